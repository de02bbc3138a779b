//! The invite's resends: the day's count and the round on the verification (one conditional
//! UpdateItem). Each round's e-mail is claimed as any message (`message_claims`).

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use chrono::{DateTime, Utc};

use super::items::{from_item, n, s};
use super::schema::keys;
use super::{DynamoStore, unavailable};
use crate::domain::{Status, Verification, format_ts, resend};
use crate::ports::{InviteStore, ResendOutcome, StoreError};

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
                        None => {
                            self.read(keys::verification(current.verification_id))
                                .await?
                        }
                    };
                    Ok(ResendOutcome::Conflict(fresh))
                }
                other => Err(unavailable(other)),
            },
        }
    }
}
