//! Waiting for a provider's data: the tenant finished in the provider's window (Plaid Link), and
//! the provider builds the report on its own time, then says so by webhook.
//!
//! The verification records the wait (`AwaitingData`) and stays `in_progress`. The wait belongs
//! to one try: it is current while no try was recorded after it (`attempts` is the count of
//! tries when it began), so a resolved wait needs no clearing. Its `signal` is written once, by
//! the provider's webhook, and the report is read after it. A sweep re-reads a wait that had no
//! signal for `SWEEP_AFTER` (a lost webhook) and gives up after `GIVE_UP_AFTER`.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::income::VerificationMethod;
use crate::{Verification, ts};

/// How long a wait goes without the provider's webhook before the sweep reads the report
/// itself. Plaid Check builds most reports within minutes.
pub const SWEEP_AFTER: Duration = Duration::minutes(30);

/// How long a wait may last before the sweep gives up and routes the tenant to the next method.
/// Plaid keeps a ready report retrievable for 24 hours, so a day without one ends the try.
pub const GIVE_UP_AFTER: Duration = Duration::hours(24);

/// What the provider said about the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataSignal {
    /// The report is ready to read (Plaid: `CHECK_REPORT_READY`).
    Ready,
    /// The report could not be made (Plaid: `CHECK_REPORT_FAILED`).
    Failed,
}

/// The provider's word about a wait, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalAt {
    pub signal: DataSignal,
    #[serde(with = "ts")]
    pub at: DateTime<Utc>,
}

/// A connection waiting for its provider's data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwaitingData {
    /// The method being connected.
    pub method: VerificationMethod,
    /// Where a failure leads: the next open method when the wait began (the journey's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<VerificationMethod>,
    #[serde(with = "ts")]
    pub since: DateTime<Utc>,
    /// The count of tries recorded when the wait began: the wait is current while it still is.
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<SignalAt>,
}

/// What the sweep does with a verification at `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// Nothing: no current wait, a signal already came, or it is too early.
    Leave,
    /// Read the report (the webhook may have been lost).
    Reread,
    /// The wait is over: route the tenant to the next method.
    GiveUp,
}

impl Verification {
    /// The wait of the current try, if the verification is open and waiting.
    pub fn awaiting_now(&self) -> Option<&AwaitingData> {
        let waiting = self.awaiting.as_ref()?;
        (self.status.is_open() && waiting.attempts as usize == self.method_attempts.len())
            .then_some(waiting)
    }
}

/// The sweep's decision for `v` at `now`.
pub fn sweep(v: &Verification, now: DateTime<Utc>) -> Sweep {
    let Some(waiting) = v.awaiting_now() else {
        return Sweep::Leave;
    };
    let waited = now - waiting.since;
    if waited >= GIVE_UP_AFTER {
        Sweep::GiveUp
    } else if waiting.signal.is_none() && waited >= SWEEP_AFTER {
        Sweep::Reread
    } else {
        Sweep::Leave
    }
}
