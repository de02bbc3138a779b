//! Ports for reaching the tenant beyond the first e-mail: text messages, one-time schedules, and
//! the once-only claim of a notice on the verification.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::domain::reach::Notice;
use crate::ports::StoreError;

/// One text message (its `Debug` hides the number and the text: `redact.rs`).
#[derive(Clone, PartialEq)]
pub struct Sms {
    /// E.164.
    pub to: String,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// Worth retrying (throttling, outage).
    #[error("transient SMS failure: {0}")]
    Transient(String),
    /// Refused for good (opted out, invalid number): never retried.
    #[error("SMS refused: {0}")]
    Permanent(String),
}

/// Outgoing SMS (SNS `Publish` to a phone number).
pub trait Texter: Send + Sync {
    fn send(&self, sms: &Sms) -> impl Future<Output = Result<(), TextError>> + Send;
}

/// A one-time schedule that invokes `send-reminders` with `payload` at `at`.
#[derive(Debug, Clone, PartialEq)]
pub struct OneTimeSchedule {
    /// Unique per verification and point, so creating it again is a no-op.
    pub name: String,
    pub at: DateTime<Utc>,
    /// JSON handed to the target (ids and a label only: no personal data).
    pub payload: String,
}

/// One-time schedules (EventBridge Scheduler).
pub trait Scheduler: Send + Sync {
    /// Creates the schedule; one that exists already (same name) is success.
    fn create_once(
        &self,
        schedule: &OneTimeSchedule,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Why a notice was not claimed, or that it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeClaim {
    /// This attempt holds the lease: send, then mark it sent (or release it on failure).
    Claimed,
    /// Sent before: nothing to send.
    Sent,
    /// Another attempt holds a live lease (it finishes, or its lease runs out and a retry sends).
    Held,
    /// The verification is no longer open for it (completed, cancelled, expired, failed, or the
    /// tenant already started, for the invite).
    Closed,
}

/// The once-only claim of the tenant's notices (invite SMS, reminders), on the verification item.
pub trait NoticeStore: Send + Sync {
    /// One conditional write: the verification is in one of the notice's open statuses and not
    /// past `expires_at`, the notice is not in `notices_sent`, and no other lease is live; it
    /// sets a lease until `lease_until` and binds `token_hash` (the message's own link).
    fn claim_notice(
        &self,
        id: Uuid,
        notice: &Notice,
        token_hash: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> impl Future<Output = Result<NoticeClaim, StoreError>> + Send;

    /// Records the notice as sent (and drops the lease).
    fn mark_notice_sent(
        &self,
        id: Uuid,
        notice: &Notice,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Gives a failed attempt's lease back, so a retry may send at once.
    fn release_notice(
        &self,
        id: Uuid,
        notice: &Notice,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
