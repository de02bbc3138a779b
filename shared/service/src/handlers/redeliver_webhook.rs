//! `redeliver-webhook`: POST /api/v1/webhooks/redeliver?event_id=... Queues a stored event again
//! (same `webhook-id`, same body, a fresh timestamp and signature at delivery), whether it was
//! delivered, failed or went to the DLQ: any event type, a verification's or a household's
//! (`household.completed`). Only the caller's own events of their key's mode (404 otherwise,
//! never revealing that it exists); 409 when the id names one of the caller's verifications or
//! households that has no `webhook_url` (events exist only for those with one). A store that
//! fails is the enveloped 500, never a 404.
//!
//! The request is one counted write on the stored event, in one transaction with its metering
//! and a check of the event's subject (account, mode, `webhook_url`): one DynamoDB round trip
//! (`MeterStore::meter_and_redeliver`). When that refuses, the event and its subject as the write
//! saw them say why, and the request is counted alone: a refused redelivery (404, 409) is two
//! round trips. The table's stream (`publish-events`) queues the message, with the outbox's
//! retries, so a 202 is never lost work.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::metering::PresentedKey;
use domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
use ports::{Clock, MeterStore, MeteredRedelivery, RedeliveryRefusal};

/// Longest `event_id` accepted (ours are about 50 characters).
const MAX_EVENT_ID: usize = 128;

/// The `event_id` query parameter: present, short, of the characters webhook ids use.
fn event_id_param(req: &ApiRequest) -> Result<String, ApiError> {
    let raw = req.query.get("event_id").map(|s| s.trim()).unwrap_or("");
    if raw.is_empty() {
        return Err(ApiError::validation(
            "event_id",
            "required",
            "event_id is required",
        ));
    }
    let well_formed = raw.len() <= MAX_EVENT_ID
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !well_formed {
        return Err(ApiError::validation(
            "event_id",
            "invalid",
            "event_id must be a webhook-id as delivered (letters, digits, '_' and '-')",
        ));
    }
    Ok(raw.to_string())
}

/// POST /api/v1/webhooks/redeliver?event_id=...
pub async fn redeliver_webhook<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    respond_metered(deps, req, |key, now| redeliver(deps, req, key, now)).await
}

/// The redelivery with its metering in ONE write (`MeterStore::meter_and_redeliver`). A refusal
/// is told by the event and its subject as the write saw them (404, 409), with the request
/// counted alone.
async fn redeliver<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt {
    let event_id = match event_id_param(req) {
        Ok(id) => id,
        Err(e) => return Attempt::Invalid(e),
    };
    let not_found = || ApiError::NotFound("Webhook event not found".into());
    // An id that names no verification or household names no event: 404, counted as any.
    let Some(subject) = WebhookSubject::of_event_id(&event_id) else {
        return Attempt::Invalid(not_found());
    };
    let request = MeteredRedelivery {
        key: &key,
        now,
        plans: &deps.settings.plans,
        event_id: &event_id,
        subject,
    };
    let written = deps.store.meter_and_redeliver(&request).await;
    attempt(written, |_, done| async move {
        match done {
            Ok(event) => Ok(queued(&event)),
            Err(RedeliveryRefusal::NoWebhookUrl) => Err(ApiError::Conflict {
                code: "no_webhook_url",
                message: format!(
                    "The {} has no webhook_url, so it has no webhook events",
                    match subject {
                        WebhookSubject::Verification(_) => "verification",
                        WebhookSubject::Household(_) => "household",
                    }
                ),
            }),
            Err(RedeliveryRefusal::NotFound) => Err(not_found()),
        }
    })
    .await
}

/// The 202 of a redelivery request.
fn queued(event: &StoredWebhookEvent) -> ApiResponse {
    let event_id = &event.message.webhook_id;
    tracing::info!(webhook_id = %event_id, "webhook redelivery requested");
    let mut data = json!({
        "event_id": event_id,
        "event_type": event.event_type,
        "status": "queued",
    });
    match event.subject {
        WebhookSubject::Verification(id) => data["verification_id"] = json!(id),
        WebhookSubject::Household(id) => data["household_id"] = json!(id),
    }
    ApiResponse::json(
        202,
        &json!({
            "success": true,
            "message": "Webhook queued for redelivery",
            "data": data,
        }),
    )
}
