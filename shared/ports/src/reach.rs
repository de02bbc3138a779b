//! Ports for reaching the tenant beyond the first e-mail: text messages and one-time schedules
//! (each message's once-only claim is `MessageClaimStore`).

use std::future::Future;

use chrono::{DateTime, Utc};

use crate::StoreError;

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
