//! The claim item of each message to the tenant (`VERIFICATION#<id>`, `MSG#<message key>`): a
//! lease one sender holds while sending, then the outcome for good (sent, or rejected by the
//! provider), so a retry never sends twice and finishes what a crash left. The claim is one
//! transaction with the binding of the message's link on the verification (its entry of
//! `message_links`, replaced by each attempt), so 100 failed attempts leave both items the size
//! they had after the first.

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{Item, n, s, with_key};
use super::schema::{self, keys};
use super::{DynamoStore, unavailable};
use crate::domain::format_ts;
use crate::domain::reach::{MESSAGE_LEASE, Message};
use crate::ports::{ClaimStart, MessageClaim, MessageClaimStore, StoreError};

/// Claim states, as stored in the item's `state` attribute.
const SENDING: &str = "sending";
const SENT: &str = "sent";
const REJECTED: &str = "rejected";

/// Who may take the claim: nobody holds it, or the holder's lease ran out.
const CLAIM_CONDITION: &str =
    "attribute_not_exists(PK) OR (#state = :sending AND lease_until < :now)";

/// A fresh claim on `message` of `id`: a lease that a crashed sender loses after
/// `MESSAGE_LEASE`, so the retry sends. The same attributes on every attempt: the item never
/// grows.
pub fn message_claim_item(id: Uuid, message: &Message, now: DateTime<Utc>) -> Item {
    let mut item = with_key(Item::new(), keys::message_claim(id, &message.key()));
    item.insert("state".into(), s(SENDING));
    item.insert("lease_until".into(), n((now + MESSAGE_LEASE).timestamp()));
    item
}

/// Why a claim was refused, read off the existing claim item (empty when it vanished since).
pub fn message_claim_refusal(item: &Item) -> MessageClaim {
    let text = |name: &str| match item.get(name) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        _ => None,
    };
    match text("state").as_deref() {
        Some(SENT) => MessageClaim::Sent,
        Some(REJECTED) => {
            MessageClaim::Rejected(text("reason").unwrap_or_else(|| "rejected".into()))
        }
        // A live lease, or one released or expired since the put: retry later.
        _ => MessageClaim::Held,
    }
}

impl DynamoStore {
    /// The claim item's put and the binding of the message's link, as one transaction's items.
    fn claim_items(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let claim = Put::builder()
            .table_name(self.table())
            .set_item(Some(message_claim_item(id, message, now)))
            .condition_expression(CLAIM_CONDITION)
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(SENDING))
            .expression_attribute_values(":now", n(now.timestamp()))
            // A refusal brings the claim item along: why it was refused costs no extra read.
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        let statuses = message.open_statuses();
        let placeholders: Vec<String> = (0..statuses.len()).map(|i| format!(":st{i}")).collect();
        let (pk, sk) = keys::verification(id);
        let mut bind = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            // The message's link in place of an earlier attempt's: a retry never grows the item.
            .update_expression("SET #links.#msg = :link")
            // Stored timestamps share one format and sort as strings.
            .condition_expression(format!(
                "#status IN ({}) AND expires_at > :now",
                placeholders.join(", ")
            ))
            .expression_attribute_names("#links", "message_links")
            .expression_attribute_names("#msg", message.key())
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":link", s(token_hash))
            .expression_attribute_values(":now", s(format_ts(now)));
        for (placeholder, status) in placeholders.into_iter().zip(statuses) {
            bind = bind.expression_attribute_values(placeholder, s(status.as_str()));
        }
        Ok(vec![
            TransactWriteItem::builder().put(claim).build(),
            TransactWriteItem::builder()
                .update(bind.build().map_err(unavailable)?)
                .build(),
        ])
    }
}

impl MessageClaimStore for DynamoStore {
    async fn claim_message(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<ClaimStart, StoreError> {
        let items = self.claim_items(id, message, token_hash, now)?;
        let err = match self
            .client()
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
        {
            Ok(_) => return Ok(ClaimStart::Claimed),
            Err(err) => err,
        };
        let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
            err.as_service_error()
        else {
            return Err(unavailable(err));
        };
        let reasons = cancelled.cancellation_reasons();
        let failed = |i: usize| {
            reasons
                .get(i)
                .is_some_and(|r| r.code() == Some("ConditionalCheckFailed"))
        };
        let refusal = match failed(0) {
            true => Some(match reasons[0].item() {
                Some(item) => message_claim_refusal(item),
                // No item returned: it vanished since (released), or the service did not send it.
                None => message_claim_refusal(
                    &self
                        .get(keys::message_claim(id, &message.key()))
                        .await?
                        .unwrap_or_default(),
                ),
            }),
            false => None,
        };
        match (refusal, failed(1)) {
            // Sent is sent, whatever the verification became since.
            (Some(MessageClaim::Sent), _) => Ok(ClaimStart::Refused(MessageClaim::Sent)),
            (_, true) => Ok(ClaimStart::Closed),
            (Some(refusal), false) => Ok(ClaimStart::Refused(refusal)),
            // A conflicting concurrent transaction: not done, so the caller retries.
            (None, false) => Err(unavailable(err)),
        }
    }

    async fn mark_message_sent(
        &self,
        id: Uuid,
        message: &Message,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.update_item(&keys::message_claim(id, &message.key()))
            .update_expression("SET #state = :sent, sent_at = :now REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sent", s(SENT))
            .expression_attribute_values(":now", s(format_ts(now)))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn mark_message_rejected(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.update_item(&keys::message_claim(id, &message.key()))
            .update_expression("SET #state = :rejected, reason = :reason REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":rejected", s(REJECTED))
            .expression_attribute_values(":reason", s(reason))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn release_message(&self, id: Uuid, message: &Message) -> Result<(), StoreError> {
        self.delete_item(&keys::message_claim(id, &message.key()))
            .condition_expression("#state = :sending")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(SENDING))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_item_reads_back_as_its_state() {
        let id = Uuid::nil();
        let now = "2026-11-25T21:00:00Z".parse().unwrap();
        let claim = message_claim_item(id, &Message::InviteEmail(0), now);
        assert_eq!(claim[schema::SK], s("MSG#invite_email"));
        assert_eq!(message_claim_refusal(&claim), MessageClaim::Held);
        let mut sent = claim.clone();
        sent.insert("state".into(), s(SENT));
        assert_eq!(message_claim_refusal(&sent), MessageClaim::Sent);
        let mut rejected = claim;
        rejected.insert("state".into(), s(REJECTED));
        rejected.insert("reason".into(), s("email_rejected"));
        assert_eq!(
            message_claim_refusal(&rejected),
            MessageClaim::Rejected("email_rejected".into())
        );
    }
}
