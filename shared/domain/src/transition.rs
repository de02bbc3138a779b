//! Status changes: what each transition sets on a verification and from which statuses it may
//! start, and the webhook event a reached status sends.

use chrono::{DateTime, Utc};

use super::{Status, Verification};
use crate::report::IncomeReport;

/// A status change, as the store applies it with a conditional write.
#[derive(Clone, PartialEq)]
pub enum Transition {
    /// The tenant opened the link.
    Start,
    /// The tenant's consent, their first action: records it (with the provider user prepared for
    /// them, if any) and moves a pending verification to in_progress, in one conditional write.
    Consent {
        version: String,
        provider_user: Option<String>,
        /// The methods a verification created without its own takes from the account's default
        /// set (`methods::from_account_default`); empty: none to store.
        methods: Vec<crate::income::VerificationMethod>,
    },
    /// Boxed: the report is far larger than every other transition.
    Complete {
        report: Box<IncomeReport>,
    },
    Fail {
        reason: String,
    },
    /// Failed for a reason on the service's side (e.g. the tenant e-mail could not be sent for
    /// the whole retry window): the landlord is told, and the verification is not charged.
    FailRefunded {
        reason: String,
    },
    Cancel,
    Expire,
    /// A method the tenant tried and left while another remains: recorded, and the
    /// verification stays in progress for the next method.
    Attempt {
        attempt: crate::methods::MethodAttempt,
    },
    /// A method that succeeded while the tenant adds another income source: its income is held
    /// beside any held before, the try recorded as `succeeded`, and the verification stays in
    /// progress until the tenant finishes.
    Hold {
        attempt: crate::methods::MethodAttempt,
        income: Box<crate::income::ProviderIncome>,
    },
    /// The tenant finished in the provider's window; its data comes later (`awaiting`). Written
    /// on the tries as read, and never over a wait of the same try.
    Await {
        method: crate::income::VerificationMethod,
        next: Option<crate::income::VerificationMethod>,
    },
    /// The provider's verified word on the current wait, written once.
    Signal {
        signal: crate::awaiting::DataSignal,
    },
}

impl Transition {
    pub fn target(&self) -> Status {
        match self {
            Transition::Start
            | Transition::Consent { .. }
            | Transition::Attempt { .. }
            | Transition::Hold { .. }
            | Transition::Await { .. }
            | Transition::Signal { .. } => Status::InProgress,
            Transition::Complete { .. } => Status::Completed,
            Transition::Fail { .. } | Transition::FailRefunded { .. } => Status::Failed,
            Transition::Cancel | Transition::Expire => Status::Expired,
        }
    }

    /// The statuses this transition may start from.
    pub fn allowed_from(&self) -> &'static [Status] {
        match self {
            Transition::Start => &[Status::Pending],
            Transition::Consent { .. } => &[Status::Pending, Status::InProgress],
            Transition::Attempt { .. }
            | Transition::Hold { .. }
            | Transition::Await { .. }
            | Transition::Signal { .. } => &[Status::InProgress],
            _ => &[Status::Pending, Status::InProgress],
        }
    }

    /// Whether the month's verification allowance is given back with this change.
    pub fn refunds_allowance(&self) -> bool {
        matches!(self, Transition::FailRefunded { .. })
    }

    /// Applies the change to a copy, as the stored item will look after the write.
    pub fn apply(&self, v: &Verification, now: DateTime<Utc>) -> Verification {
        let mut next = v.clone();
        next.status = self.target();
        match self {
            Transition::Start => next.started_at = Some(now),
            Transition::Consent {
                version,
                provider_user,
                methods,
            } => {
                next.started_at = next.started_at.or(Some(now));
                // A verification's own methods are never replaced.
                if next.methods.is_empty() {
                    next.methods = methods.clone();
                }
                next.consented_at = Some(now);
                next.consent_version = Some(version.clone());
                if provider_user.is_some() {
                    next.provider_user = provider_user.clone();
                }
            }
            Transition::Complete { report } => {
                next.completed_at = Some(now);
                next.income_report = Some(report.as_ref().clone());
            }
            Transition::Fail { reason } | Transition::FailRefunded { reason } => {
                next.failed_at = Some(now);
                next.failure_reason = Some(reason.clone());
            }
            Transition::Cancel => {
                next.cancelled_at = Some(now);
                next.expired_at = Some(now);
            }
            Transition::Expire => next.expired_at = Some(now),
            Transition::Attempt { attempt } => next.method_attempts.push(attempt.clone()),
            Transition::Hold { attempt, income } => {
                next.method_attempts.push(attempt.clone());
                next.held_income = Some(income.joined(next.held_income.as_ref()));
            }
            Transition::Await { method, next: then } => {
                next.awaiting = Some(crate::awaiting::AwaitingData {
                    method: *method,
                    next: *then,
                    since: now,
                    attempts: v.method_attempts.len() as u32,
                    signal: None,
                });
            }
            Transition::Signal { signal } => {
                let current = next.method_attempts.len() as u32;
                if let Some(waiting) = next.awaiting.as_mut().filter(|w| w.attempts == current) {
                    waiting.signal.get_or_insert(crate::awaiting::SignalAt {
                        signal: *signal,
                        at: now,
                    });
                }
            }
        }
        next
    }
}

/// Webhook event type for a verification that has just reached `v.status`.
pub fn webhook_event_type(v: &Verification) -> Option<&'static str> {
    Some(match v.status {
        Status::Pending => return None,
        Status::InProgress => "verification.in_progress",
        Status::Completed => "verification.completed",
        Status::Failed => "verification.failed",
        Status::Expired if v.cancelled_at.is_some() => "verification.cancelled",
        Status::Expired => "verification.expired",
    })
}
