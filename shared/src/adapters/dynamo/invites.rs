//! The invite's resends: the day's count on the verification (written by the metered resend,
//! `metered_reach`), and one send claim item per resent round (`EMAIL#<round>`, the first e-mail's
//! claim is `EMAIL`), claimed together with the round's link token like the first e-mail's.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{
    EMAIL_LEASE, EMAIL_REJECTED, EMAIL_SENDING, EMAIL_SENT, Item, email_claim_refusal, n, s,
};
use super::schema::{self, keys};
use super::{DynamoStore, unavailable};
use crate::domain::reach::invite_email_key;
use crate::domain::{Status, format_ts, resend};
use crate::ports::{EmailStart, InviteStore, StoreError};

/// Who may take a round's claim: nobody holds it, or the holder's lease ran out.
const CLAIM_CONDITION: &str =
    "attribute_not_exists(PK) OR (#state = :sending AND lease_until < :now)";

/// The verification is open and not past its expiry (stored timestamps sort as strings).
const OPEN_CONDITION: &str = "#status IN (:pending, :in_progress) AND expires_at > :now";

fn open_values() -> [(&'static str, AttributeValue); 2] {
    [
        (":pending", s(Status::Pending.as_str())),
        (":in_progress", s(Status::InProgress.as_str())),
    ]
}

/// The attribute that counts the resends of `now`'s UTC day (`resends_on_YYYY-MM-DD`): a day's
/// own counter lets one write check and raise it without reading the verification first
/// (`metered_reach`). A verification lives days, so it keeps a handful at most.
pub(super) fn day_count_attribute(now: DateTime<Utc>) -> String {
    format!("resends_on_{}", resend::utc_day(now))
}

impl InviteStore for DynamoStore {
    async fn claim_invite_and_bind(
        &self,
        id: Uuid,
        household_id: Option<Uuid>,
        round: u32,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<EmailStart, StoreError> {
        let (pk, sk) = keys::invite_claim(id, round);
        let mut claim_item: Item = HashMap::new();
        claim_item.insert(schema::PK.into(), s(pk));
        claim_item.insert(schema::SK.into(), s(sk));
        claim_item.insert("state".into(), s(EMAIL_SENDING));
        claim_item.insert("lease_until".into(), n((now + EMAIL_LEASE).timestamp()));
        let claim = Put::builder()
            .table_name(self.table())
            .set_item(Some(claim_item))
            .condition_expression(CLAIM_CONDITION)
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(EMAIL_SENDING))
            .expression_attribute_values(":now", n(now.timestamp()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        let (vpk, vsk) = keys::verification(id);
        let mut bind = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(vpk))
            .key(schema::SK, s(vsk))
            // The round's link in place of an earlier attempt's: a retry never grows the item.
            .update_expression("SET #links.#msg = :link")
            .condition_expression(OPEN_CONDITION)
            .expression_attribute_names("#links", "message_links")
            .expression_attribute_names("#msg", invite_email_key(round))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":link", s(token_hash))
            .expression_attribute_values(":now", s(format_ts(now)));
        for (k, v) in open_values() {
            bind = bind.expression_attribute_values(k, v);
        }
        let mut items = vec![
            TransactWriteItem::builder().put(claim).build(),
            TransactWriteItem::builder()
                .update(bind.build().map_err(unavailable)?)
                .build(),
        ];
        // A household member's: only while the household is not cancelled.
        if let Some(household) = household_id {
            items.push(self.open_household_check(household)?);
        }
        let err = match self
            .client()
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
        {
            Ok(_) => return Ok(EmailStart::Claimed),
            Err(err) => err,
        };
        let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
            err.as_service_error()
        else {
            return Err(unavailable(err));
        };
        let failed = |i: usize| {
            cancelled
                .cancellation_reasons()
                .get(i)
                .is_some_and(|r| r.code() == Some("ConditionalCheckFailed"))
        };
        if failed(1) {
            return Ok(EmailStart::NotPending);
        }
        if household_id.is_some() && failed(2) {
            return Ok(EmailStart::HouseholdCancelled);
        }
        if !failed(0) {
            return Err(unavailable(err));
        }
        let item = match cancelled.cancellation_reasons()[0].item() {
            Some(item) => item.clone(),
            None => self
                .get(keys::invite_claim(id, round))
                .await?
                .unwrap_or_default(),
        };
        Ok(EmailStart::Refused(email_claim_refusal(&item)))
    }

    async fn mark_invite_sent(
        &self,
        id: Uuid,
        round: u32,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.update_item(&keys::invite_claim(id, round))
            .update_expression("SET #state = :sent, sent_at = :now REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sent", s(EMAIL_SENT))
            .expression_attribute_values(":now", s(format_ts(now)))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn mark_invite_rejected(
        &self,
        id: Uuid,
        round: u32,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.update_item(&keys::invite_claim(id, round))
            .update_expression("SET #state = :rejected, reason = :reason REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":rejected", s(EMAIL_REJECTED))
            .expression_attribute_values(":reason", s(reason))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn release_invite(&self, id: Uuid, round: u32) -> Result<(), StoreError> {
        self.delete_item(&keys::invite_claim(id, round))
            .condition_expression("#state = :sending")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(EMAIL_SENDING))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}
