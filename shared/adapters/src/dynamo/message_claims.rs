//! The claim item of each message to the tenant (`CLAIM#<id>`, `MSG#<message key>`): a
//! lease one sender holds while sending, then the outcome for good (sent, or rejected by the
//! provider), so a retry never sends twice and finishes what a crash left. The claim is one
//! transaction with the binding of the message's link on the verification (its entry of
//! `message_links`, replaced by each attempt), so 100 failed attempts leave both items the size
//! they had after the first.

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, Put, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{Item, n, s, with_key};
use super::metering::refused_item;
use super::{DynamoStore, unavailable, written};
use domain::format_ts;
use domain::reach::{MESSAGE_LEASE, Message};
use domain::sms::SMS_ALLOWANCE_USED;
use ports::{ClaimStart, MessageClaim, MessageClaimStore, SmsAllowance, StoreError};
use service::table_schema::{self as schema, keys};

/// Claim states, as stored in the item's `state` attribute.
const SENDING: &str = "sending";
const SENT: &str = "sent";
const REJECTED: &str = "rejected";

/// Who may take a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Taking {
    /// Nobody holds it, or the holder's lease ran out.
    Any,
    /// Nobody ever held it (a counted SMS: its first claim counts).
    Fresh,
    /// A holder's lease ran out (a counted SMS: that holder's count stands).
    Lapsed,
}

impl Taking {
    fn condition(self) -> &'static str {
        match self {
            Taking::Any => "attribute_not_exists(PK) OR (#state = :sending AND lease_until < :now)",
            Taking::Fresh => "attribute_not_exists(PK)",
            Taking::Lapsed => "#state = :sending AND lease_until < :now",
        }
    }
}

/// Whether a claim item is a lease that ran out by `now`.
fn lapsed(item: &Item, now: DateTime<Utc>) -> bool {
    let state = item.get("state").and_then(|v| v.as_s().ok());
    let until =
        (item.get("lease_until").and_then(|v| v.as_n().ok())).and_then(|v| v.parse::<i64>().ok());
    state.is_some_and(|st| st == SENDING) && until.is_some_and(|u| u < now.timestamp())
}

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
        (id, message, token_hash): (Uuid, &Message, &str),
        now: DateTime<Utc>,
        taking: Taking,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let mut claim = Put::builder()
            .table_name(self.table())
            .set_item(Some(message_claim_item(id, message, now)))
            .condition_expression(taking.condition())
            // A refusal brings the claim item along: why it was refused costs no extra read.
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        if taking != Taking::Fresh {
            claim = claim
                .expression_attribute_names("#state", "state")
                .expression_attribute_values(":sending", s(SENDING))
                .expression_attribute_values(":now", n(now.timestamp()));
        }
        let claim = claim.build().map_err(unavailable)?;
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

impl DynamoStore {
    /// The claim transaction (`taking` says who may take it), and what it found.
    async fn claim_with(
        &self,
        (id, message, token_hash): (Uuid, &Message, &str),
        now: DateTime<Utc>,
        taking: Taking,
    ) -> Result<ClaimStart, StoreError> {
        let items = self.claim_items((id, message, token_hash), now, taking)?;
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
        let refusal = match refused_item(reasons, 0) {
            Some(Some(item)) => Some(message_claim_refusal(item)),
            // No item returned: it vanished since (released), or the service did not send it.
            Some(None) => Some(message_claim_refusal(
                &self
                    .get(keys::message_claim(id, &message.key()))
                    .await?
                    .unwrap_or_default(),
            )),
            None => None,
        };
        match (refusal, refused_item(reasons, 1).is_some()) {
            // Sent is sent, whatever the verification became since.
            (Some(MessageClaim::Sent), _) => Ok(ClaimStart::Refused(MessageClaim::Sent)),
            (_, true) => Ok(ClaimStart::Closed),
            (Some(refusal), false) => Ok(ClaimStart::Refused(refusal)),
            // A conflicting concurrent transaction: not done, so the caller retries.
            (None, false) => Err(unavailable(err)),
        }
    }

    /// What a counted claim's refusal means: the claim item's or the verification's refusal as
    /// for any claim, a lapsed lease taken over without a count, or the allowance used up.
    async fn counted_refusal(
        &self,
        (id, message, token_hash): (Uuid, &Message, &str),
        now: DateTime<Utc>,
        reasons: &[CancellationReason],
    ) -> Result<ClaimStart, StoreError> {
        let closed = refused_item(reasons, 1).is_some();
        if let Some(seen) = refused_item(reasons, 0) {
            let item = match seen {
                Some(item) => item.clone(),
                None => {
                    (self.get(keys::message_claim(id, &message.key())).await?).unwrap_or_default()
                }
            };
            return Ok(match message_claim_refusal(&item) {
                MessageClaim::Sent => ClaimStart::Refused(MessageClaim::Sent),
                _ if closed => ClaimStart::Closed,
                MessageClaim::Held if lapsed(&item, now) => {
                    let claim = (id, message, token_hash);
                    return self.claim_with(claim, now, Taking::Lapsed).await;
                }
                refusal => ClaimStart::Refused(refusal),
            });
        }
        if closed {
            return Ok(ClaimStart::Closed);
        }
        if refused_item(reasons, 2).is_some() {
            self.refuse_message(id, message, SMS_ALLOWANCE_USED, now)
                .await?;
            let rejected = MessageClaim::Rejected(SMS_ALLOWANCE_USED.into());
            return Ok(ClaimStart::Refused(rejected));
        }
        Err(StoreError::Unavailable(format!(
            "SMS claim refused for no known reason: {:?}",
            reasons.iter().map(|r| r.code()).collect::<Vec<_>>()
        )))
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
        self.claim_with((id, message, token_hash), now, Taking::Any)
            .await
    }

    async fn claim_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
        allowance: &SmsAllowance,
    ) -> Result<ClaimStart, StoreError> {
        let claim = (id, message, token_hash);
        if allowance.limit == 0 {
            // No clause could allow it: refused without a transaction.
            self.refuse_message(id, message, SMS_ALLOWANCE_USED, now)
                .await?;
            return Ok(ClaimStart::Refused(MessageClaim::Rejected(
                SMS_ALLOWANCE_USED.into(),
            )));
        }
        let mut items = self.claim_items(claim, now, Taking::Fresh)?;
        items.push(self.sms_count(allowance)?);
        match self.transact_with_reasons(items).await? {
            Ok(()) => Ok(ClaimStart::Claimed),
            Err(reasons) => self.counted_refusal(claim, now, &reasons).await,
        }
    }

    async fn release_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        allowance: &SmsAllowance,
    ) -> Result<(), StoreError> {
        let items = self.sms_release(keys::message_claim(id, &message.key()), allowance)?;
        match self.transact_with_reasons(items).await? {
            Ok(()) => Ok(()),
            Err(reasons) => Err(StoreError::Unavailable(format!(
                "SMS claim not released: {:?}",
                reasons.iter().map(|r| r.code()).collect::<Vec<_>>()
            ))),
        }
    }

    async fn refuse_message(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut item = with_key(Item::new(), keys::message_claim(id, &message.key()));
        item.insert("state".into(), s(REJECTED));
        item.insert("reason".into(), s(reason));
        let result = self
            .put_item(item)
            .condition_expression(Taking::Any.condition())
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(SENDING))
            .expression_attribute_values(":now", n(now.timestamp()))
            .send()
            .await;
        // Refused: claimed, sent or refused by another attempt already, whose outcome stands.
        written(result).map(|_| ())
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
    use proptest::prelude::*;

    /// The typed prefix of a partition key (`VERIFICATION#`), what a `LeadingKeys` grant names.
    fn prefix(pk: &str) -> &str {
        &pk[..=pk.find('#').unwrap()]
    }

    proptest! {
        /// Whatever the ids and the message key, a claim and a marker are never a verification
        /// and never in a verification's partition (so no grant on claims or markers reaches
        /// one), and a marker's key reads back to its verification and only to it.
        #[test]
        fn claims_and_markers_never_take_a_verification_key(
            a in any::<u128>(),
            b in any::<u128>(),
            message_key in "\\PC{0,40}",
        ) {
            let (a, b) = (Uuid::from_u128(a), Uuid::from_u128(b));
            let verification = keys::verification(b);
            let claim = keys::message_claim(a, &message_key);
            let markers = [keys::expiry_marker(a), keys::erasure_marker(a)];
            for (pk, sk) in std::iter::once(&claim).chain(&markers) {
                prop_assert_ne!(&(pk.clone(), sk.clone()), &verification);
                prop_assert_ne!(prefix(pk), prefix(&verification.0));
                prop_assert_eq!(keys::verification_id(pk), None);
            }
            prop_assert_eq!(keys::marker_verification_id(&claim.0), None);
            for (pk, _) in &markers {
                prop_assert_eq!(keys::marker_verification_id(pk), Some(a));
            }
            prop_assert_eq!(keys::marker_verification_id(&verification.0), None);
        }
    }

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
