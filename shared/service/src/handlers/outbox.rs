//! What the outbox's pieces share (`publish-events`, `retry-events` and the modules of each
//! piece): their deps, their error, the pieces of work as they wait on the retry queue, the
//! hand-off to that queue and the one way a webhook is queued. Every outbox module imports this
//! one, and it imports none of them, so the outbox's files form no circle.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::config::{SmsBounds, TestModeDelivery};
use crate::handlers::notices::{ReachError, Texting};
use crate::handlers::webhook_archive;
use domain::webhook::{QueuedWebhook, WebhookMessage};
use ports::{
    AccountStore, Clock, ErasureStore, HouseholdStore, MailError, MessageClaimStore, Queue,
    StoreError, VerificationStore, WebhookHistoryStore,
};

/// The store roles the outbox's pieces call, together: the verification and the account it
/// reads, each message's claim, the webhook history, a household's decision, and forgetting a
/// closed provider user.
pub trait OutboxStore:
    AccountStore
    + VerificationStore
    + HouseholdStore
    + MessageClaimStore
    + WebhookHistoryStore
    + ErasureStore
{
}

impl<T> OutboxStore for T where
    T: AccountStore
        + VerificationStore
        + HouseholdStore
        + MessageClaimStore
        + WebhookHistoryStore
        + ErasureStore
{
}

/// What `publish-events` and `retry-events` need.
pub struct OutboxDeps<S, M, T, R, Q, C, P> {
    pub store: S,
    pub mailer: M,
    /// The invite SMS, and a resent round's.
    pub texter: T,
    /// A new verification's reminder schedules.
    pub scheduler: R,
    /// The webhook queue.
    pub queue: Q,
    /// The durable retry queue (work that failed, redone by `retry-events`).
    pub retry_queue: Q,
    /// The income provider of live verifications, whose tenant users are closed once the report
    /// is built or the verification ended (`provider_connection`).
    pub provider: P,
    pub clock: C,
    /// Base URL of the tenant page (links are `{base}/t/{id}/{token}`).
    pub public_base_url: String,
    /// Whether test-mode verifications reach the tenant (suppressed in a deployed stack).
    pub test_mode_delivery: TestModeDelivery,
    /// The reminder points, as durations before `expires_at` (at most two are used).
    pub reminder_offsets: Vec<Duration>,
    /// `retry-events`' delay before each further attempt (seconds; the last value repeats).
    pub retry_backoff: Vec<u32>,
    /// The countries texts may go to, and the plans' monthly SMS allowances.
    pub sms: SmsBounds,
}

impl<S, M, T, R, Q, C, P> OutboxDeps<S, M, T, R, Q, C, P> {
    /// What an SMS notice takes from these deps.
    pub fn texting(&self) -> Texting<'_, S, T, C> {
        Texting {
            store: &self.store,
            texter: &self.texter,
            clock: &self.clock,
            public_base_url: &self.public_base_url,
            test_mode_delivery: self.test_mode_delivery,
            sms: &self.sms,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("mail: {0}")]
    Mail(MailError),
    #[error("tenant e-mail claimed by another attempt that has not finished")]
    Held,
    #[error("unreadable stream record: {0}")]
    Record(String),
    /// An SMS or a reminder schedule.
    #[error(transparent)]
    Reach(#[from] ReachError),
    /// The income provider (closing a tenant's user, reading a waiting connection's report).
    #[error("income provider: {0}")]
    Provider(String),
    /// A waiting connection the sweep is not due to read yet: looked at again after the retry
    /// road's next delay. Not a failure.
    #[error("the waiting connection is not due for the sweep yet")]
    NotDue,
    /// A webhook's event is stored but its reference could not be queued: what is left to do is
    /// `RetryWork::QueueWebhook`, which carries no body.
    #[error("webhook stored, not queued: {error}")]
    WebhookNotQueued {
        event: QueuedWebhook,
        error: StoreError,
    },
}

impl OutboxError {
    /// The work left when a piece failed part-way, narrower than the piece: a stored webhook's
    /// reference instead of its body. None when the piece itself is what is left.
    pub fn work_left(&self) -> Option<RetryWork> {
        match self {
            OutboxError::WebhookNotQueued { event, .. } => Some(RetryWork::QueueWebhook {
                event: event.clone(),
            }),
            _ => None,
        }
    }
}

/// Work that could not be done at once, as it waits on the retry queue.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RetryWork {
    /// Send the tenant e-mail of this verification (if still pending and not sent).
    TenantEmail { verification_id: Uuid },
    /// Build this webhook from the table, store its event, then queue its reference (the first
    /// storing failed). It names the webhook by keys, never by its body; dropped at its retry
    /// when the subject was erased or deleted meanwhile.
    Webhook { of: WebhookOf },
    /// Queue this stored event's reference (the event is stored; a redelivery, or a first
    /// queuing whose send failed). No body.
    QueueWebhook { event: QueuedWebhook },
    /// Text the invite SMS of this verification (once, while it is pending).
    InviteSms { verification_id: Uuid },
    /// Create this verification's reminder schedules (creating one again is success).
    ReminderSchedules { verification_id: Uuid },
    /// Send round `round` of the invite again (a resend), then its `verification.resent` webhook.
    ResendInvite {
        verification_id: Uuid,
        round: u32,
        #[serde(with = "domain::ts")]
        resent_at: DateTime<Utc>,
    },
    /// Text round `round`'s resent invite (once per round).
    ResentSms { verification_id: Uuid, round: u32 },
    /// Store this household's decision if every member is final (once; its stream record then
    /// sends `household.completed`).
    HouseholdDecision { household_id: Uuid },
    /// Close the tenant's user at the income provider once the verification ended, then forget it.
    CloseProviderUser { verification_id: Uuid },
    /// Read the data of this verification's waiting connection and settle its try (the
    /// provider's webhook signalled it).
    ProviderData { verification_id: Uuid },
    /// The sweep of one waiting connection, in case its webhook is lost: redone on the retry
    /// road's back-off until the wait is settled (`provider_data::sweep_wait`).
    SweepWait { verification_id: Uuid },
}

impl RetryWork {
    /// The piece's kind, as its message names it (for logs: no personal data).
    pub fn kind(&self) -> &'static str {
        match self {
            RetryWork::TenantEmail { .. } => "tenant_email",
            RetryWork::Webhook { .. } => "webhook",
            RetryWork::QueueWebhook { .. } => "queue_webhook",
            RetryWork::InviteSms { .. } => "invite_sms",
            RetryWork::ReminderSchedules { .. } => "reminder_schedules",
            RetryWork::ResendInvite { .. } => "resend_invite",
            RetryWork::ResentSms { .. } => "resent_sms",
            RetryWork::HouseholdDecision { .. } => "household_decision",
            RetryWork::CloseProviderUser { .. } => "close_provider_user",
            RetryWork::ProviderData { .. } => "provider_data",
            RetryWork::SweepWait { .. } => "sweep_wait",
        }
    }
}

/// Which webhook a piece of work sends, by keys: its message is built from the table's item when
/// the work is redone (`outbox_work::webhook_from_table`), so no retry message holds a body.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subject", rename_all = "snake_case")]
pub enum WebhookOf {
    /// The verification's event named by the suffix of its `webhook-id` (`in_progress`,
    /// `completed`, `failed`, `cancelled`, `expired`, `reviewed`, `erased`).
    Verification {
        verification_id: Uuid,
        event: String,
    },
    /// The household's `household.completed`.
    Household { household_id: Uuid },
}

/// A retry-queue message: the work, and when it first failed (the retry window starts there).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryMessage {
    pub work: RetryWork,
    #[serde(with = "domain::ts")]
    pub first_failed_at: DateTime<Utc>,
}

/// Stores a webhook's event, then queues its reference (`webhook_archive`). When only the send
/// failed, the error names the reference, so the retry queue never holds a stored event's body.
pub(crate) async fn enqueue_webhook<S: WebhookHistoryStore, M, T, R, Q: Queue, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    message: &WebhookMessage,
) -> Result<(), OutboxError> {
    if !webhook_archive::archive(&deps.store, &deps.clock, message).await? {
        return Ok(());
    }
    let event = QueuedWebhook::of(message);
    webhook_archive::queue_stored(&deps.queue, &event)
        .await
        .map_err(|error| OutboxError::WebhookNotQueued { event, error })
}

/// Hands the work a failed piece left to the retry queue: the narrower work its error names
/// (`OutboxError::work_left`), else the piece.
pub(crate) async fn hand_off_left<S, M, T, R, Q: Queue, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    piece: RetryWork,
    error: &OutboxError,
) -> Result<(), StoreError> {
    hand_off(deps, error.work_left().unwrap_or(piece)).await
}

/// Hands failed work to the durable retry queue.
pub(crate) async fn hand_off<S, M, T, R, Q: Queue, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    work: RetryWork,
) -> Result<(), StoreError> {
    let message = RetryMessage {
        work,
        first_failed_at: deps.clock.now(),
    };
    send_retry(deps, &message).await
}

/// Puts a retry message on the retry queue (a first hand-off, or the rest of a retried piece).
pub(crate) async fn send_retry<S, M, T, R, Q: Queue, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    message: &RetryMessage,
) -> Result<(), StoreError> {
    let body = serde_json::to_string(message).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    deps.retry_queue.send(&body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the logs name a piece is what its message says (`work.kind`), for every piece.
    #[test]
    fn a_pieces_kind_is_its_messages_kind() {
        let id = Uuid::nil();
        let at = "2026-11-25T21:00:00Z".parse().unwrap();
        let all = [
            RetryWork::TenantEmail {
                verification_id: id,
            },
            RetryWork::Webhook {
                of: WebhookOf::Verification {
                    verification_id: id,
                    event: "completed".into(),
                },
            },
            RetryWork::Webhook {
                of: WebhookOf::Household { household_id: id },
            },
            RetryWork::QueueWebhook {
                event: QueuedWebhook {
                    webhook_id: "msg_x".into(),
                    account_id: "acct".into(),
                },
            },
            RetryWork::InviteSms {
                verification_id: id,
            },
            RetryWork::ReminderSchedules {
                verification_id: id,
            },
            RetryWork::ResendInvite {
                verification_id: id,
                round: 1,
                resent_at: at,
            },
            RetryWork::ResentSms {
                verification_id: id,
                round: 1,
            },
            RetryWork::HouseholdDecision { household_id: id },
            RetryWork::CloseProviderUser {
                verification_id: id,
            },
            RetryWork::ProviderData {
                verification_id: id,
            },
            RetryWork::SweepWait {
                verification_id: id,
            },
        ];
        for work in all {
            let json = serde_json::to_value(&work).unwrap();
            assert_eq!(json["kind"], work.kind());
        }
    }
}
