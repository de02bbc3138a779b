//! `redeliver-webhook`: POST /api/v1/webhooks/redeliver?event_id=... Queues a stored event again
//! (same `webhook-id`, same body, a fresh timestamp and signature at delivery), whether it was
//! delivered, failed or went to the DLQ. Only the caller's own events of their key's mode (404
//! otherwise, never revealing that it exists); 409 when the id names one of the caller's
//! verifications that has no `webhook_url` (events exist only for verifications with one).
//!
//! The request is one counted write on the stored event, in one transaction with its metering
//! and a check of the event's verification (account and mode): one DynamoDB round trip
//! (`MeterStore::meter_and_redeliver`). When that refuses, the usual way (metering beside the
//! event's read, the ownership check, the write) says why. The table's stream (`publish-events`)
//! queues the message, with the outbox's retries, so a 202 is never lost work.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::domain::metering::PresentedKey;
use crate::domain::webhook_log::StoredWebhookEvent;
use crate::error::ApiError;
use crate::handlers::api::ownership::owned_verification;
use crate::handlers::api::respond::{MeteredWrite, respond_combined};
use crate::handlers::api::{ApiDeps, Caller};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, MeteredRedelivery, Store};

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

/// Why an event id names no event of the caller: 409 when it is the id of one of the caller's
/// verifications that has no `webhook_url` (no event was ever sent for it), else 404.
async fn unknown_event<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    caller: &Caller,
    req: &ApiRequest,
) -> ApiError {
    let not_found = ApiError::NotFound("Webhook event not found".into());
    let Some(id) = event_id_param(req)
        .ok()
        .and_then(|e| verification_of_event_id(&e))
    else {
        return not_found;
    };
    match owned_verification(&deps.store, caller, id).await {
        Ok(v) if v.webhook_url.is_none() => ApiError::Conflict {
            code: "no_webhook_url",
            message: "The verification has no webhook_url, so it has no webhook events".into(),
        },
        Ok(_) | Err(ApiError::NotFound(_)) => not_found,
        Err(other) => other,
    }
}

/// The verification an event id of ours names (`msg_<verification id, 32 hex>_<event>`).
fn verification_of_event_id(event_id: &str) -> Option<Uuid> {
    let hex = event_id.strip_prefix("msg_")?.get(..32)?;
    Uuid::try_parse(hex).ok()
}

/// POST /api/v1/webhooks/redeliver?event_id=...
pub async fn redeliver_webhook<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    // The stored event is read beside the metering write (errors surface after authentication).
    let prefetch = |_: PresentedKey| async {
        let id = event_id_param(req)?;
        Ok::<Option<StoredWebhookEvent>, ApiError>(deps.store.get_webhook_event(&id).await?)
    };
    let combined = |key, now| redeliver_in_one_write(deps, req, key, now);
    respond_combined(
        deps,
        req,
        combined,
        prefetch,
        |caller, fetched, now| async move {
            let not_found = || ApiError::NotFound("Webhook event not found".into());
            let Some(event) =
                fetched?.filter(|e| e.message.account_id == caller.account.account_id)
            else {
                return Err(unknown_event(deps, &caller, req).await);
            };
            // The mode is the verification's: another mode's event is not found either.
            owned_verification(&deps.store, &caller, event.verification_id)
                .await
                .map_err(|_| not_found())?;
            let event_id = &event.message.webhook_id;
            if !deps.store.request_redelivery(event_id, now).await? {
                return Err(not_found());
            }
            Ok(queued(&event))
        },
    )
    .await
}

/// The redelivery with its metering in ONE write (`MeterStore::meter_and_redeliver`), the event
/// read beside it for the answer. None (nothing written or counted): the usual way.
async fn redeliver_in_one_write<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Option<MeteredWrite> {
    let event_id = event_id_param(req).ok()?;
    let verification_id = verification_of_event_id(&event_id)?;
    let request = MeteredRedelivery {
        key: &key,
        now,
        plans: &deps.settings.plans,
        event_id: &event_id,
        verification_id,
    };
    let (written, event) = futures::join!(
        deps.store.meter_and_redeliver(&request),
        deps.store.get_webhook_event(&event_id)
    );
    match (written, event) {
        (Ok(None), _) => None,
        (Ok(Some(account)), Ok(Some(event))) => Some(Ok((account, queued(&event)))),
        // Counted and requested, but the event could not be read back for the answer (TTL
        // removed it meanwhile, or the read failed): said as an error, the work stands.
        (Ok(Some(_)), Ok(None)) => Some(Err(ApiError::Internal)),
        (Err(e), _) | (Ok(Some(_)), Err(e)) => Some(Err(e.into())),
    }
}

/// The 202 of a redelivery request.
fn queued(event: &StoredWebhookEvent) -> ApiResponse {
    let event_id = &event.message.webhook_id;
    tracing::info!(webhook_id = %event_id, "webhook redelivery requested");
    ApiResponse::json(
        202,
        &json!({
            "success": true,
            "message": "Webhook queued for redelivery",
            "data": {
                "event_id": event_id,
                "event_type": event.event_type,
                "verification_id": event.verification_id,
                "status": "queued",
            },
        }),
    )
}
