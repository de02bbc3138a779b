//! `retry-events`: redoes outbox work that failed (tenant e-mail, webhook enqueue, invite SMS,
//! reminder schedules, a resent round's e-mail and SMS, a household's decision or member cancels)
//! from the durable retry queue, until the dependency is back.
//!
//! Why a queue and not the stream's own retries: the stream retries a failing record at once and
//! keeps the shard's later records waiting meanwhile, and keeps a record only 24 h. A message on
//! the retry queue waits on its own: each failed attempt hides it again for a growing delay
//! (ChangeMessageVisibility, as `deliver-webhook` does), the queue keeps it 14 days, and the work
//! is retried for `RETRY_WINDOW` (two days) from its first failure. Past that window a tenant
//! e-mail that still cannot go out ends the verification `failed` for a reason on the service's
//! side (the landlord is told by its webhook, and the allowance is refunded); any other piece
//! keeps failing into the retry DLQ, which alarms. Retrying is safe: every message is claimed
//! once, a retry binds its link in place of the last attempt's (the item never grows), schedules
//! are named per point, and webhook messages are deterministic.

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use chrono::Duration;

use crate::handlers::outbox::OutboxStore;
use crate::handlers::outbox::{OutboxDeps, OutboxError, send_retry};
use crate::handlers::outbox_work::{RetryMessage, RetryWork, do_work};
use crate::handlers::queue_message::{backoff_delay, json_body, receive_count};
use crate::handlers::tenant_email::fail_after_email;
use domain::{Status, Transition};
use ports::{
    Clock, IncomeProvider, MailError, Mailer, Queue, Scheduler, Texter, VerificationStore,
};

/// How long failed work keeps being retried, from its first failure (at least the 24 h the issue
/// asks, with margin for a long outage).
pub const RETRY_WINDOW: Duration = Duration::hours(48);

/// Delay before each further attempt, indexed by the attempt that failed (the last value repeats;
/// SQS caps a visibility timeout at 12 h). 11 delays reach the window at about 37 h of waiting, so
/// about 15 receives cover the 48 h; the queue's maxReceiveCount (20) leaves room for crashes.
pub const DEFAULT_RETRY_BACKOFF: [u32; 11] = [
    60, 120, 300, 600, 1800, 3600, 7200, 14_400, 21_600, 43_200, 43_200,
];

/// The failure reason of a verification whose tenant e-mail could not be sent in the window.
pub const EMAIL_UNDELIVERABLE: &str = "service_email_unavailable";

/// Ends a verification whose tenant e-mail could not be sent within the window.
async fn give_up_email<S: VerificationStore, M: Mailer, T, R, Q: Queue, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    id: uuid::Uuid,
) -> Result<(), OutboxError> {
    let Some(v) = deps.store.get_verification(id).await? else {
        return Ok(());
    };
    if v.status != Status::Pending {
        return Ok(());
    }
    tracing::error!(verification_id = %id, alarm = "outbox_work_given_up", "tenant e-mail not sent within the retry window; verification fails (allowance refunded)");
    let reason = EMAIL_UNDELIVERABLE.to_string();
    fail_after_email(deps, &v, Transition::FailRefunded { reason }).await
}

/// One message; true when it is done with (deleted by the event source mapping).
async fn retry_one<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    record: &SqsMessage,
) -> bool
where
    S: OutboxStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
    P: IncomeProvider,
{
    let Some(message) = json_body::<RetryMessage>(record) else {
        tracing::error!(message_id = ?record.message_id, alarm = "outbox_work_dropped", "unreadable retry message dropped");
        return true;
    };
    let error = match do_work(deps, &message.work).await {
        Ok(()) => {
            tracing::info!(message_id = ?record.message_id, kind = message.work.kind(), "retried outbox work done");
            return true;
        }
        Err(e) => e,
    };
    // Done part-way (a webhook stored, not queued): the rest goes back on the queue without the
    // body, and this message, which carries it, is done with.
    if let Some(left) = error.work_left() {
        let rest = RetryMessage {
            work: left,
            first_failed_at: message.first_failed_at,
        };
        match send_retry(deps, &rest).await {
            Ok(()) => {
                tracing::warn!(message_id = ?record.message_id, kind = message.work.kind(), error = %error, "outbox work done part-way; the rest queued for retry");
                return true;
            }
            Err(e) => {
                tracing::error!(error = %e, "could not queue the rest of the work; retried whole")
            }
        }
    }
    let waited = deps.clock.now() - message.first_failed_at;
    if waited >= RETRY_WINDOW
        && let RetryWork::TenantEmail { verification_id } = &message.work
    {
        return match give_up_email(deps, *verification_id).await {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(verification_id = %verification_id, error = %e, "could not fail the verification; retried");
                false
            }
        };
    }
    let count = receive_count(record);
    let delay = backoff_delay(&deps.retry_backoff, count).unwrap_or(300);
    let operator = matches!(error, OutboxError::Mail(MailError::Operator(_)));
    if matches!(error, OutboxError::NotDue) {
        tracing::info!(message_id = ?record.message_id, kind = message.work.kind(), attempt = count, retry_in = delay, "waiting connection looked at again later");
    } else {
        tracing::warn!(message_id = ?record.message_id, kind = message.work.kind(), error = %error, operator, attempt = count, waited_seconds = waited.num_seconds(), retry_in = delay, "outbox work failed again");
    }
    if let Some(receipt) = &record.receipt_handle
        && let Err(e) = deps.retry_queue.retry_later(receipt, delay).await
    {
        tracing::error!(error = %e, "could not set the retry delay");
    }
    false
}

/// Redoes a batch of failed work; only what failed again is reported (and retried later).
pub async fn retry_events<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    event: SqsEvent,
) -> SqsBatchResponse
where
    S: OutboxStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
    P: IncomeProvider,
{
    let mut response = SqsBatchResponse::default();
    for record in &event.records {
        if !retry_one(deps, record).await
            && let Some(id) = &record.message_id
        {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = id.clone();
            response.batch_item_failures.push(failure);
        }
    }
    response
}
