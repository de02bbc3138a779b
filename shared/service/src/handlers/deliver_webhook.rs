//! `deliver-webhook`: POSTs queued webhooks with Standard Webhooks headers, concurrently per batch.
//!
//! A queued message is a reference (`QueuedWebhook`): each attempt reads the stored event's body
//! (one GetItem of `WEBHOOK_EVENT#<webhook-id>`) and sends those bytes. An event gone from the
//! table (erased with its verification or household, or past its 30 days) is dropped unsent and
//! acknowledged; a read that failed is retried like a failed POST.
//!
//! The client (`adapters::webhook_client`) keeps the rules: https only (http only to the exact
//! local origins the local stack lists); private, loopback, link-local, metadata and
//! IPv4-embedding IPv6 addresses refused before sending and again after DNS resolution (the
//! connection goes to the checked addresses); 10 s timeout; redirects not followed; response
//! bodies not read. Here: the secrets, the signing time and the retries. A failed message is made visible again after a growing delay (about three days in all) and reported as a
//! batch item failure; after the queue's last receive it lands in the DLQ. 410 Gone stops retries.
//! An account without a secret is a configuration fault, logged as a failed attempt; secrets the
//! store could not read are no attempt (nothing was sent), so the message is only retried.
//!
//! Every attempt is recorded in its subject's delivery log (`record_attempt`: the verification's,
//! or the household's for `household.completed`), AFTER the POST and before the retry decision
//! takes effect. Not before: a record written first would claim an
//! attempt that a crash then never made. A failed record write does not change the message's fate:
//! failing a delivered message would POST it again (a duplicate for the receiver) and, while the
//! table is down, turn every delivery into a retry storm. So a failed record is logged as an error
//! with every field the item would have held and `alarm = "webhook_log_write_failed"` (a metric
//! filter and alarm in template.yaml): the attempt is never silently lost, only moved to the logs.

use std::collections::HashMap;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};

use crate::handlers::queue_message::{backoff_delay, json_body, receive_count};
use domain::webhook::{QueuedWebhook, WebhookMessage};
use domain::webhook_log::{AttemptOutcome, DeliveryAttempt, NetworkErrorClass, event_meta};
use ports::webhooks::{Attempt, WebhookSender};
use ports::{Clock, Queue, StoreError, WebhookHistoryStore, WebhookSecretStore, WebhookSecrets};

/// Each account's secrets as the batch read them; an Err is a store failure, not a missing secret.
type BatchSecrets = HashMap<String, Result<WebhookSecrets, StoreError>>;

/// The webhook queue's maxReceiveCount (template.yaml and the local stack): the attempt with this
/// number that fails is the last; the message then moves to the DLQ.
pub const WEBHOOK_MAX_ATTEMPTS: u32 = 13;

/// Back-off before each retry, indexed by the attempt that failed (the last value repeats).
/// 13 attempts span about 2.9 days; the queue's maxReceiveCount (13) then moves the message to
/// the DLQ.
pub const DEFAULT_BACKOFF: [u32; 12] = [
    30, 120, 600, 1800, 3600, 10_800, 21_600, 43_200, 43_200, 43_200, 43_200, 43_200,
];

/// What `deliver-webhook` needs.
pub struct DeliveryDeps<S, K, Q, C, W> {
    pub store: S,
    /// The accounts' signing secrets, apart from the table (`adapters::webhook_secrets`).
    pub secrets: K,
    pub queue: Q,
    pub clock: C,
    pub client: W,
    pub backoff: Vec<u32>,
    /// The queue's maxReceiveCount (`WEBHOOK_MAX_ATTEMPTS`), so the log can mark the final attempt.
    pub max_attempts: u32,
}

/// Records one attempt in the delivery log; a failure is logged and alarmed, never retried (see
/// the module's comment).
async fn record_attempt<S: WebhookHistoryStore>(
    store: &S,
    message: &WebhookMessage,
    attempt: DeliveryAttempt,
) {
    if let Err(e) = store
        .record_delivery_attempt(&message.account_id, &attempt)
        .await
    {
        tracing::error!(
            error = %e,
            alarm = "webhook_log_write_failed",
            webhook_id = %attempt.event_id,
            event_type = %attempt.event_type,
            subject = %attempt.subject,
            attempt = attempt.attempt,
            attempted_at = %domain::format_ts(attempt.attempted_at),
            outcome = ?attempt.outcome,
            http_status = ?attempt.http_status,
            network_error = ?attempt.error,
            duration_ms = attempt.duration_ms,
            final_attempt = attempt.final_attempt,
            "delivery attempt not recorded in the log"
        );
    }
}

/// The log entry of an attempt that ended as `attempt` after `duration_ms`.
fn log_entry(
    message: &WebhookMessage,
    number: u32,
    at: chrono::DateTime<chrono::Utc>,
    attempt: Attempt,
    duration_ms: u64,
    max_attempts: u32,
) -> Option<DeliveryAttempt> {
    let (event_type, subject) = event_meta(message)?;
    let (outcome, http_status, error) = match attempt {
        Attempt::Delivered(status) => (AttemptOutcome::Delivered, Some(status), None),
        Attempt::Gone => (AttemptOutcome::Gone, Some(410), None),
        Attempt::Refused => (
            AttemptOutcome::Refused,
            None,
            Some(NetworkErrorClass::RefusedTarget),
        ),
        Attempt::Failed(status) => (
            AttemptOutcome::Failed,
            status,
            status.is_none().then_some(NetworkErrorClass::NoSecret),
        ),
        Attempt::Unreachable(class) => (AttemptOutcome::Failed, None, Some(class)),
    };
    Some(DeliveryAttempt {
        event_id: message.webhook_id.clone(),
        event_type,
        subject,
        attempt: number,
        attempted_at: at,
        outcome,
        http_status,
        error,
        duration_ms,
        final_attempt: outcome == AttemptOutcome::Failed && number >= max_attempts,
    })
}

/// The stored event a queued reference names: its message (the body as first stored). Ok(None)
/// when the message is done with unsent: the event is gone (erased with its subject, or past its
/// 30 days), or names another account. Err(delivered) when it could not be read: retried.
async fn stored_message<
    S: WebhookHistoryStore,
    K: WebhookSecretStore,
    Q: Queue,
    C: Clock,
    W: WebhookSender,
>(
    deps: &DeliveryDeps<S, K, Q, C, W>,
    record: &SqsMessage,
    queued: &QueuedWebhook,
) -> Result<Option<WebhookMessage>, bool> {
    match deps.store.get_webhook_event(&queued.webhook_id).await {
        Ok(Some(event)) if event.message.account_id == queued.account_id => Ok(Some(event.message)),
        Ok(Some(_)) => {
            tracing::error!(webhook_id = %queued.webhook_id, account_id = %queued.account_id, "queued webhook names another account than its stored event; dropped");
            Ok(None)
        }
        Ok(None) => {
            tracing::info!(webhook_id = %queued.webhook_id, "stored webhook event gone (erased with its subject, or past its 30 days); dropped, not sent");
            Ok(None)
        }
        Err(e) => {
            // Nothing was sent, so nothing goes in the delivery log.
            tracing::error!(error = %e, webhook_id = %queued.webhook_id, "stored webhook event could not be read; retried");
            Err(retry_later(deps, record, &queued.webhook_id, None).await)
        }
    }
}

async fn deliver_one<
    S: WebhookHistoryStore,
    K: WebhookSecretStore,
    Q: Queue,
    C: Clock,
    W: WebhookSender,
>(
    deps: &DeliveryDeps<S, K, Q, C, W>,
    record: &SqsMessage,
    secrets: &BatchSecrets,
) -> bool {
    let Some(queued) = json_body::<QueuedWebhook>(record) else {
        // A message that cannot be read will not become readable: drop it, loudly.
        tracing::error!(message_id = ?record.message_id, "unreadable webhook message dropped");
        return true;
    };
    let now = deps.clock.now();
    let signing = match secrets.get(&queued.account_id) {
        Some(Ok(s)) => s.signing(now),
        Some(Err(e)) => {
            // Nothing reached the receiver, so nothing goes in its delivery log; Secrets Manager
            // is likely back by the retry.
            tracing::error!(error = %e, webhook_id = %queued.webhook_id, account_id = %queued.account_id, "webhook secrets could not be read; retried");
            return retry_later(deps, record, &queued.webhook_id, None).await;
        }
        None => Vec::new(),
    };
    let message = match stored_message(deps, record, &queued).await {
        Ok(Some(message)) => message,
        Ok(None) => return true,
        Err(done) => return done,
    };
    let started = std::time::Instant::now();
    let attempt = if signing.is_empty() {
        tracing::error!(account_id = %message.account_id, "account has no webhook secret; rotate one with the admin tool");
        Attempt::Failed(None)
    } else {
        deps.client.send(&message, &signing, now.timestamp()).await
    };
    let duration_ms = started.elapsed().as_millis() as u64;
    let count = receive_count(record);
    let number = u32::try_from(count).unwrap_or(u32::MAX);
    match log_entry(
        &message,
        number,
        now,
        attempt,
        duration_ms,
        deps.max_attempts,
    ) {
        Some(entry) => record_attempt(&deps.store, &message, entry).await,
        None => {
            tracing::warn!(webhook_id = %message.webhook_id, "webhook body names no event type, verification or household; attempt not logged")
        }
    }
    match attempt {
        Attempt::Delivered(status) => {
            tracing::info!(webhook_id = %message.webhook_id, status, attempt = count, "webhook delivered");
            true
        }
        Attempt::Gone => {
            tracing::warn!(webhook_id = %message.webhook_id, "receiver answered 410; not retried");
            true
        }
        Attempt::Refused => {
            tracing::warn!(webhook_id = %message.webhook_id, "webhook URL not allowed; dropped");
            true
        }
        Attempt::Failed(status) => retry_later(deps, record, &message.webhook_id, status).await,
        Attempt::Unreachable(_) => retry_later(deps, record, &message.webhook_id, None).await,
    }
}

/// Makes a failed message visible again after its back-off; false: a batch item failure.
async fn retry_later<
    S: WebhookHistoryStore,
    K: WebhookSecretStore,
    Q: Queue,
    C: Clock,
    W: WebhookSender,
>(
    deps: &DeliveryDeps<S, K, Q, C, W>,
    record: &SqsMessage,
    webhook_id: &str,
    status: Option<u16>,
) -> bool {
    let count = receive_count(record);
    let number = u32::try_from(count).unwrap_or(u32::MAX);
    let delay = backoff_delay(&deps.backoff, count).unwrap_or(60);
    if number >= deps.max_attempts {
        tracing::error!(webhook_id = %webhook_id, status = ?status, attempt = count, alarm = "webhook_dead_lettered", "webhook failed its last attempt; it goes to the DLQ (redeliver it with POST /api/v1/webhooks/redeliver)");
    } else {
        tracing::warn!(webhook_id = %webhook_id, status = ?status, attempt = count, retry_in = delay, "webhook failed");
    }
    if let Some(receipt) = &record.receipt_handle
        && let Err(e) = deps.queue.retry_later(receipt, delay).await
    {
        tracing::error!(error = %e, "could not set the retry delay");
    }
    false
}

/// Delivers a batch concurrently; only the failed messages are reported (and retried).
pub async fn deliver_webhooks<
    S: WebhookHistoryStore,
    K: WebhookSecretStore,
    Q: Queue,
    C: Clock,
    W: WebhookSender,
>(
    deps: &DeliveryDeps<S, K, Q, C, W>,
    event: SqsEvent,
) -> SqsBatchResponse {
    // Each account's secrets are read once per batch.
    let mut secrets = HashMap::new();
    for record in &event.records {
        let Some(queued) = json_body::<QueuedWebhook>(record) else {
            continue;
        };
        if secrets.contains_key(&queued.account_id) {
            continue;
        }
        let read = deps.secrets.get_webhook_secrets(&queued.account_id).await;
        secrets.insert(queued.account_id, read);
    }
    let outcomes =
        futures::future::join_all(event.records.iter().map(|r| deliver_one(deps, r, &secrets)))
            .await;
    let mut response = SqsBatchResponse::default();
    for (record, ok) in event.records.iter().zip(outcomes) {
        if !ok && let Some(id) = &record.message_id {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = id.clone();
            response.batch_item_failures.push(failure);
        }
    }
    response
}
