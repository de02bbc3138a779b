//! The outbox's part of the webhook history: every message is stored (`StoredWebhookEvent`)
//! before it is first queued, and the queue carries only its reference (`QueuedWebhook`), so the
//! body lives in one place an erasure reaches; a redelivery request (the API's counted write on
//! the stored event) reaches `publish-events` as a MODIFY record of that item, which queues the
//! same reference again (same `webhook-id`, same body; `deliver-webhook` signs it afresh).

use aws_lambda_events::event::dynamodb::EventRecord;

use crate::table_schema as schema;
use domain::webhook::{QueuedWebhook, WebhookMessage};
use domain::webhook_log::StoredWebhookEvent;
use ports::{Clock, Queue, StoreError, WebhookHistoryStore};

/// Stores the message's event (kept if stored before), unless its subject was erased meanwhile
/// (`WebhookHistoryStore::put_webhook_event`). True when the event is stored, so its reference
/// may be queued; false when it is dropped: its subject was erased (it would bring back what the
/// erasure removed), or its body names no event of ours (nothing could deliver it).
pub(crate) async fn archive<S: WebhookHistoryStore, C: Clock>(
    store: &S,
    clock: &C,
    message: &WebhookMessage,
) -> Result<bool, StoreError> {
    let Some(event) = StoredWebhookEvent::of(message, clock.now()) else {
        tracing::error!(webhook_id = %message.webhook_id, alarm = "outbox_work_dropped", "webhook body names no event; not stored, so not queued");
        return Ok(false);
    };
    let stored = store.put_webhook_event(&event).await?;
    if !stored {
        tracing::info!(webhook_id = %message.webhook_id, "webhook of an erased subject; dropped, not stored or queued");
    }
    Ok(stored)
}

/// Puts a stored event's reference on the webhook queue: what the first queuing and every
/// redelivery send. `deliver-webhook` reads the body from the stored event at each attempt.
pub(crate) async fn queue_stored<Q: Queue>(
    queue: &Q,
    event: &QueuedWebhook,
) -> Result<(), StoreError> {
    let body = serde_json::to_string(event).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    queue.send(&body).await?;
    tracing::info!(webhook_id = %event.webhook_id, "webhook queued");
    Ok(())
}

/// Stores a webhook's event, then queues its reference: the one way every webhook (a status
/// change, a resend, a reminder, a household's decision) is first queued. An error when either
/// step failed; the caller retries it (both steps are idempotent: the event is put once, and a
/// reference queued twice names one `webhook-id` the receiver deduplicates). Nothing is queued
/// for an event `archive` dropped.
pub(crate) async fn archive_and_queue<S: WebhookHistoryStore, Q: Queue, C: Clock>(
    store: &S,
    queue: &Q,
    clock: &C,
    message: &WebhookMessage,
) -> Result<(), StoreError> {
    if archive(store, clock, message).await? {
        queue_stored(queue, &QueuedWebhook::of(message)).await?;
    }
    Ok(())
}

/// The stored event to queue again when a stream record is a redelivery request: a MODIFY of a
/// stored event whose `redeliveries` count went up. None for any other record.
pub(crate) fn redelivery_of(record: &EventRecord) -> Result<Option<QueuedWebhook>, String> {
    if record.event_name != "MODIFY" {
        return Ok(None);
    }
    let is_event = |item: &serde_dynamo::Item| {
        matches!(
            item.get(schema::SK),
            Some(serde_dynamo::AttributeValue::S(sk)) if sk == schema::WEBHOOK_EVENT_SK
        )
    };
    let (old, new) = (&record.change.old_image, &record.change.new_image);
    if !is_event(new) {
        return Ok(None);
    }
    let read = |item: &serde_dynamo::Item| -> Result<StoredWebhookEvent, String> {
        serde_dynamo::from_item(item.clone()).map_err(|e| e.to_string())
    };
    let new = read(new)?;
    let before = if is_event(old) {
        read(old)?.redeliveries
    } else {
        0
    };
    Ok((new.redeliveries > before).then(|| QueuedWebhook::of(&new.message)))
}
