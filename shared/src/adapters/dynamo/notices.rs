//! The once-only claim of the tenant's notices (invite SMS, reminders) on the verification item:
//! `notices_sent` lists the sent ones; `notice_lease_<key>` (Unix seconds) marks an attempt in
//! flight. The claim is one conditional UpdateItem; a lease that ran out (a crashed sender) may
//! be taken over, so a claimed-but-failed send is retried without a second message.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{n, s};
use super::schema::keys;
use super::{DynamoStore, unavailable};
use crate::domain::reach::Notice;
use crate::domain::{Verification, format_ts};
use crate::ports::{NoticeClaim, NoticeStore, StoreError};

fn lease_attribute(notice: &Notice) -> String {
    format!("notice_lease_{}", notice.key())
}

/// Why a refused claim was refused, from the item as it is now.
pub fn refusal(
    v: Option<&Verification>,
    lease: Option<i64>,
    notice: &Notice,
    now: DateTime<Utc>,
) -> NoticeClaim {
    let Some(v) = v else {
        return NoticeClaim::Closed;
    };
    if v.notices_sent.contains(&notice.key()) {
        NoticeClaim::Sent
    } else if !notice.open_statuses().contains(&v.status) || now >= v.expires_at {
        NoticeClaim::Closed
    } else if lease.is_some_and(|until| until >= now.timestamp()) {
        NoticeClaim::Held
    } else {
        // Changed between the write and the read (a lease just released): not done, try again.
        NoticeClaim::Held
    }
}

impl NoticeStore for DynamoStore {
    async fn claim_notice(
        &self,
        id: Uuid,
        notice: &Notice,
        token_hash: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<NoticeClaim, StoreError> {
        let statuses = notice.open_statuses();
        let status_values: Vec<String> = (0..statuses.len()).map(|i| format!(":st{i}")).collect();
        let mut update = self
            .update_item(&keys::verification(id))
            .update_expression(
                "SET #lease = :lease_until, #t = list_append(if_not_exists(#t, :empty), :new)",
            )
            .condition_expression(format!(
                "attribute_exists(PK) AND #status IN ({}) AND expires_at > :now_ts \
                 AND NOT contains(#sent, :key) \
                 AND (attribute_not_exists(#lease) OR #lease < :now)",
                status_values.join(", ")
            ))
            .expression_attribute_names("#lease", lease_attribute(notice))
            .expression_attribute_names("#t", "token_hashes")
            .expression_attribute_names("#status", "status")
            .expression_attribute_names("#sent", "notices_sent")
            .expression_attribute_values(":lease_until", n(lease_until.timestamp()))
            .expression_attribute_values(":empty", AttributeValue::L(vec![]))
            .expression_attribute_values(":new", AttributeValue::L(vec![s(token_hash)]))
            .expression_attribute_values(":now_ts", s(format_ts(now)))
            .expression_attribute_values(":key", s(notice.key()))
            .expression_attribute_values(":now", n(now.timestamp()));
        for (placeholder, status) in status_values.iter().zip(statuses) {
            update = update.expression_attribute_values(placeholder, s(status.as_str()));
        }
        match update.send().await {
            Ok(_) => Ok(NoticeClaim::Claimed),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                let item = self.get(keys::verification(id)).await?;
                let lease = item
                    .as_ref()
                    .and_then(|i| match i.get(&lease_attribute(notice)) {
                        Some(AttributeValue::N(v)) => v.parse().ok(),
                        _ => None,
                    });
                let v = item
                    .map(super::items::from_item::<Verification>)
                    .transpose()?;
                Ok(refusal(v.as_ref(), lease, notice, now))
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn mark_notice_sent(&self, id: Uuid, notice: &Notice) -> Result<(), StoreError> {
        let result = self
            .update_item(&keys::verification(id))
            .update_expression(
                "SET #sent = list_append(if_not_exists(#sent, :empty), :new) REMOVE #lease",
            )
            .condition_expression("attribute_exists(PK) AND NOT contains(#sent, :key)")
            .expression_attribute_names("#sent", "notices_sent")
            .expression_attribute_names("#lease", lease_attribute(notice))
            .expression_attribute_values(":empty", AttributeValue::L(vec![]))
            .expression_attribute_values(":new", AttributeValue::L(vec![s(notice.key())]))
            .expression_attribute_values(":key", s(notice.key()))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            // Already recorded: done.
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn release_notice(&self, id: Uuid, notice: &Notice) -> Result<(), StoreError> {
        self.update_item(&keys::verification(id))
            .update_expression("REMOVE #lease")
            .condition_expression("attribute_exists(PK)")
            .expression_attribute_names("#lease", lease_attribute(notice))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}
