//! The one claim of every message to the tenant (each invite round's e-mail and SMS, each
//! reminder's e-mail and SMS): one claim item per verification and message, so a redelivered
//! stream record, a retry or a race sends each message once.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreError;
use domain::reach::Message;

/// A message's claim as an attempt finds it.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageClaim {
    /// This attempt holds the lease and may send.
    Claimed,
    /// Sent already: nothing to do.
    Sent,
    /// Another attempt holds a live lease: not done yet, so the caller must retry later.
    Held,
    /// Refused for good by the provider (reason kept): never sent again.
    Rejected(String),
}

/// What one claim write found (`MessageClaimStore::claim_message`).
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimStart {
    /// This attempt holds the lease and the message's link is bound: send.
    Claimed,
    /// The verification is gone, in none of the message's open statuses, or past its expiry: the
    /// message is not needed, and nothing was written.
    Closed,
    /// The claim was refused (sent, held by another attempt, rejected for good); nothing was
    /// written. Never `MessageClaim::Claimed`.
    Refused(MessageClaim),
}

/// The account's monthly SMS allowance a live SMS claim counts against: the month's count on the
/// account item (the claim's UTC month, `yyyymm`: `domain::sms::sms_month`), within `limit` (the
/// plan's `sms_per_month`).
#[derive(Debug, Clone, PartialEq)]
pub struct SmsAllowance {
    pub account_id: String,
    pub month: u32,
    pub limit: u32,
}

/// The claims of the messages to the tenant: at most one sender at a time per message, and its
/// outcome for good.
pub trait MessageClaimStore: Send + Sync {
    /// One atomic write before the provider is called: claims `message` of verification `id` for
    /// `MESSAGE_LEASE` AND binds the link it carries (by hash, as the message's entry of
    /// `message_links`, in place of an earlier attempt's), only while the verification is in one
    /// of the message's open statuses and not past its expiry at `now`. Either both happen or
    /// neither; a retry grows no item. Only `Claimed` lets the caller send; `Held` is NOT done
    /// work (the holder may still fail).
    fn claim_message(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<ClaimStart, StoreError>> + Send;
    /// `claim_message` for a live SMS, counting it in the same write against `allowance`: a
    /// first claim of the message counts one, a claim taken over from a crashed attempt's lapsed
    /// lease counts nothing more (that attempt's count stands). With the allowance used up, the
    /// message is recorded as refused for good (`SMS_ALLOWANCE_USED`), nothing is counted, and
    /// the answer is `Refused(Rejected(..))`.
    fn claim_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
        allowance: &SmsAllowance,
    ) -> impl Future<Output = Result<ClaimStart, StoreError>> + Send;
    /// `release_message` of a counted SMS: gives its count back in the same write.
    fn release_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        allowance: &SmsAllowance,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Records a message as refused for good before any provider saw it (`reason`), unless
    /// another attempt claimed, sent or refused it already.
    fn refuse_message(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Marks the message sent, for good.
    fn mark_message_sent(
        &self,
        id: Uuid,
        message: &Message,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Records for good that the provider refused the message (no retry sends it; the first
    /// e-mail's retry finishes the verification's `failed` transition instead).
    fn mark_message_rejected(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Gives back a claim after a transient failure, so a retry may send at once.
    fn release_message(
        &self,
        id: Uuid,
        message: &Message,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
