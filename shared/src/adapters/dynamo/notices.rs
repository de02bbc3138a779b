//! The once-only claim of the tenant's notices (invite SMS, reminders) on the verification item:
//! `notices_sent` lists the sent ones; `notice_lease_<key>` (Unix seconds) marks an attempt in
//! flight; `message_links.<key>` the hash of the link the notice carries (each attempt replaces
//! it, so retries leave the item's size alone). The claim is one conditional UpdateItem; a lease
//! that ran out (a crashed sender) may be taken over, so a claimed-but-failed send is retried
//! without a second message.

use std::collections::HashMap;

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

/// The claim's update on the verification: expression, condition, names and values.
struct ClaimUpdate {
    update: &'static str,
    condition: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

fn claim_update(
    notice: &Notice,
    token_hash: &str,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
) -> ClaimUpdate {
    let statuses = notice.open_statuses();
    let status_values: Vec<String> = (0..statuses.len()).map(|i| format!(":st{i}")).collect();
    let condition = format!(
        "attribute_exists(PK) AND #status IN ({}) AND expires_at > :now_ts \
         AND NOT contains(#sent, :key) \
         AND (attribute_not_exists(#lease) OR #lease < :now)",
        status_values.join(", ")
    );
    let names = HashMap::from([
        ("#lease".to_string(), lease_attribute(notice)),
        ("#links".to_string(), "message_links".to_string()),
        ("#msg".to_string(), notice.key()),
        ("#status".to_string(), "status".to_string()),
        ("#sent".to_string(), "notices_sent".to_string()),
    ]);
    let mut values = HashMap::from([
        (":lease_until".to_string(), n(lease_until.timestamp())),
        (":link".to_string(), s(token_hash)),
        (":now_ts".to_string(), s(format_ts(now))),
        (":key".to_string(), s(notice.key())),
        (":now".to_string(), n(now.timestamp())),
    ]);
    for (placeholder, status) in status_values.into_iter().zip(statuses) {
        values.insert(placeholder, s(status.as_str()));
    }
    ClaimUpdate {
        // The notice's link in place of an earlier attempt's: a retry never grows the item.
        update: "SET #lease = :lease_until, #links.#msg = :link",
        condition,
        names,
        values,
    }
}

impl DynamoStore {
    /// Why the verification's condition refused the claim, from the item as it is now.
    async fn notice_refusal_now(
        &self,
        id: Uuid,
        notice: &Notice,
        now: DateTime<Utc>,
    ) -> Result<NoticeClaim, StoreError> {
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
        let claim = claim_update(notice, token_hash, now, lease_until);
        let update = self
            .update_item(&keys::verification(id))
            .update_expression(claim.update)
            .condition_expression(claim.condition)
            .set_expression_attribute_names(Some(claim.names))
            .set_expression_attribute_values(Some(claim.values));
        match update.send().await {
            Ok(_) => Ok(NoticeClaim::Claimed),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                self.notice_refusal_now(id, notice, now).await
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
