//! The outbox's part of the webhook history: every message is stored (`StoredWebhookEvent`)
//! before it is first queued, so it can be queued again; and a redelivery request (the API's
//! counted write on the stored event) reaches `publish-events` as a MODIFY record of that item,
//! which queues the very same message again (same `webhook-id`, same body; `deliver-webhook` signs
//! it afresh).

use aws_lambda_events::event::dynamodb::EventRecord;

use crate::adapters::dynamo::schema;
use crate::domain::webhook::WebhookMessage;
use crate::domain::webhook_log::StoredWebhookEvent;
use crate::ports::{Clock, Queue, StoreError, WebhookHistoryStore};

/// Stores the message's event (kept if stored before). Called before the message is queued: a
/// queued message is always one the API can redeliver. A body that names no event (not ours) is
/// queued without being stored, and said so.
async fn archive_before_queueing<S: WebhookHistoryStore, C: Clock>(
    store: &S,
    clock: &C,
    message: &WebhookMessage,
) -> Result<(), StoreError> {
    match StoredWebhookEvent::of(message, clock.now()) {
        Some(event) => store.put_webhook_event(&event).await,
        None => {
            tracing::warn!(webhook_id = %message.webhook_id, "webhook body names no event; not stored for redelivery");
            Ok(())
        }
    }
}

/// Puts a webhook message on the webhook queue once its event is stored for redelivery: the one
/// way every webhook (a status change, a resend, a reminder, a household's decision) is queued.
/// An error when either step failed; the caller retries it (both steps are idempotent: the event
/// is put once, and a message queued twice carries one `webhook-id` the receiver deduplicates).
pub(crate) async fn archive_and_queue<S: WebhookHistoryStore, Q: Queue, C: Clock>(
    store: &S,
    queue: &Q,
    clock: &C,
    message: &WebhookMessage,
) -> Result<(), StoreError> {
    archive_before_queueing(store, clock, message).await?;
    let body = serde_json::to_string(message).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    queue.send(&body).await?;
    tracing::info!(webhook_id = %message.webhook_id, "webhook queued");
    Ok(())
}

/// The message to queue again when a stream record is a redelivery request: a MODIFY of a stored
/// event whose `redeliveries` count went up. None for any other record.
pub(crate) fn redelivery_of(record: &EventRecord) -> Result<Option<WebhookMessage>, String> {
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
    Ok((new.redeliveries > before).then_some(new.message))
}
