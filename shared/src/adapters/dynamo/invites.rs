//! The invite's resends: the day's count and the round on the verification (one conditional
//! UpdateItem), and one send claim item per resent round (`EMAIL#<round>`, the first e-mail's
//! claim is `EMAIL`), claimed together with the round's link token like the first e-mail's.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Put, ReturnValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
    Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{
    EMAIL_LEASE, EMAIL_REJECTED, EMAIL_SENDING, EMAIL_SENT, Item, email_claim_refusal, from_item,
    n, s,
};
use super::schema::{self, keys};
use super::{DynamoStore, unavailable};
use crate::domain::reach::invite_email_key;
use crate::domain::{Status, Verification, format_ts, resend};
use crate::ports::{EmailStart, InviteStore, ResendOutcome, StoreError};

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

/// A resend's write on the verification: the round, the day's count and when.
const RESEND_UPDATE: &str = "SET invite_round = :round, resend_day = :day, \
     resends_on_day = :count, last_resent_at = :at, #day_count = :count";

/// The round as read: any resend since (the only writer of the round) fails the write, so the
/// day's count written is the stored count + 1, and never passes the limit.
fn round_as_read(current: &Verification) -> &'static str {
    if current.invite_round == 0 {
        "(attribute_not_exists(invite_round) OR invite_round = :read_round)"
    } else {
        "invite_round = :read_round"
    }
}

fn resend_names(now: DateTime<Utc>) -> HashMap<String, String> {
    HashMap::from([
        ("#day_count".to_string(), day_count_attribute(now)),
        ("#status".to_string(), "status".to_string()),
    ])
}

fn resend_values(
    current: &Verification,
    next: &Verification,
    now: DateTime<Utc>,
) -> HashMap<String, AttributeValue> {
    HashMap::from([
        (":now".to_string(), s(format_ts(now))),
        (":read_round".to_string(), n(current.invite_round)),
        (":round".to_string(), n(next.invite_round)),
        (
            ":day".to_string(),
            s(next.resend_day.clone().unwrap_or_default()),
        ),
        (":count".to_string(), n(next.resends_on_day)),
        (":at".to_string(), s(format_ts(now))),
    ])
}

impl InviteStore for DynamoStore {
    async fn record_resend(
        &self,
        current: &Verification,
        now: DateTime<Utc>,
        max_per_day: u32,
    ) -> Result<ResendOutcome, StoreError> {
        if resend::resends_today(current, now) >= max_per_day {
            return Ok(ResendOutcome::LimitReached);
        }
        let next = resend::record(current, now);
        // The round as read: any resend since (the only writer of the round) fails the write, so
        // the day's count written here is the stored count + 1, and never passes the limit.
        let mut update = self
            .update_item(&keys::verification(current.verification_id))
            .update_expression(RESEND_UPDATE)
            .condition_expression(format!(
                "attribute_exists(PK) AND {OPEN_CONDITION} AND {}",
                round_as_read(current)
            ))
            .set_expression_attribute_names(Some(resend_names(now)))
            .set_expression_attribute_values(Some(resend_values(current, &next, now)))
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        for (k, v) in open_values() {
            update = update.expression_attribute_values(k, v);
        }
        match update.send().await {
            Ok(out) => {
                let item = out.attributes.unwrap_or_default();
                Ok(ResendOutcome::Applied(from_item(item)?))
            }
            Err(e) => match e.into_service_error() {
                UpdateItemError::ConditionalCheckFailedException(failed) => {
                    let fresh = match failed.item {
                        Some(item) => Some(from_item(item)?),
                        None => self.get_verification_item(current.verification_id).await?,
                    };
                    Ok(ResendOutcome::Conflict(fresh))
                }
                other => Err(unavailable(other)),
            },
        }
    }

    async fn claim_invite_and_bind(
        &self,
        id: Uuid,
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
        let items = vec![
            TransactWriteItem::builder().put(claim).build(),
            TransactWriteItem::builder()
                .update(bind.build().map_err(unavailable)?)
                .build(),
        ];
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

impl DynamoStore {
    async fn get_verification_item(&self, id: Uuid) -> Result<Option<Verification>, StoreError> {
        self.read(keys::verification(id)).await
    }
}
