//! `deliver-webhook`: POSTs queued webhooks with Standard Webhooks headers, concurrently per batch.
//!
//! The client (`adapters::webhook_client`) keeps the rules: https only (http only to the exact
//! local origins the local stack lists); private, loopback, link-local, metadata and
//! IPv4-embedding IPv6 addresses refused before sending and again after DNS resolution (the
//! connection goes to the checked addresses); 10 s timeout; redirects not followed; response
//! bodies not read. Here: the secrets, the signing time and the retries. A failed message is made visible again after a growing delay (about three days in all) and reported as a
//! batch item failure; after the queue's last receive it lands in the DLQ. 410 Gone stops retries.

use std::collections::HashMap;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};

use crate::adapters::sqs::{backoff_delay, json_body, receive_count};
use crate::adapters::webhook_client::{Attempt, WebhookClient};
use crate::domain::webhook::WebhookMessage;
use crate::ports::{Clock, Queue, Store, WebhookSecrets};

/// Back-off before each retry, indexed by the attempt that failed (the last value repeats).
/// 13 attempts span about 2.9 days; the queue's maxReceiveCount (13) then moves the message to
/// the DLQ.
pub const DEFAULT_BACKOFF: [u32; 12] = [
    30, 120, 600, 1800, 3600, 10_800, 21_600, 43_200, 43_200, 43_200, 43_200, 43_200,
];

/// What `deliver-webhook` needs.
pub struct DeliveryDeps<S, Q, C> {
    pub store: S,
    pub queue: Q,
    pub clock: C,
    pub client: WebhookClient,
    pub backoff: Vec<u32>,
}

async fn deliver_one<S: Store, Q: Queue, C: Clock>(
    deps: &DeliveryDeps<S, Q, C>,
    record: &SqsMessage,
    secrets: &HashMap<String, WebhookSecrets>,
) -> bool {
    let Some(message) = json_body::<WebhookMessage>(record) else {
        // A message that cannot be read will not become readable: drop it, loudly.
        tracing::error!(message_id = ?record.message_id, "unreadable webhook message dropped");
        return true;
    };
    let now = deps.clock.now();
    let signing = secrets
        .get(&message.account_id)
        .map(|s| s.signing(now))
        .unwrap_or_default();
    let attempt = if signing.is_empty() {
        tracing::error!(account_id = %message.account_id, "account has no webhook secret; rotate one with the admin tool");
        Attempt::Failed(None)
    } else {
        deps.client.post(&message, &signing, now.timestamp()).await
    };
    let count = receive_count(record);
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
        Attempt::Failed(status) => {
            let delay = backoff_delay(&deps.backoff, count).unwrap_or(60);
            tracing::warn!(webhook_id = %message.webhook_id, status = ?status, attempt = count, retry_in = delay, "webhook failed");
            if let Some(receipt) = &record.receipt_handle
                && let Err(e) = deps.queue.retry_later(receipt, delay).await
            {
                tracing::error!(error = %e, "could not set the retry delay");
            }
            false
        }
    }
}

/// Delivers a batch concurrently; only the failed messages are reported (and retried).
pub async fn deliver_webhooks<S: Store, Q: Queue, C: Clock>(
    deps: &DeliveryDeps<S, Q, C>,
    event: SqsEvent,
) -> SqsBatchResponse {
    // Each account's secrets are read once per batch.
    let mut secrets = HashMap::new();
    for record in &event.records {
        let Some(message) = json_body::<WebhookMessage>(record) else {
            continue;
        };
        if secrets.contains_key(&message.account_id) {
            continue;
        }
        match deps.store.get_webhook_secrets(&message.account_id).await {
            Ok(s) => {
                secrets.insert(message.account_id, s);
            }
            Err(e) => tracing::error!(error = %e, "could not read webhook secrets"),
        }
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
