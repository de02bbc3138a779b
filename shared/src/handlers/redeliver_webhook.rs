//! `redeliver-webhook`: POST /api/v1/webhooks/redeliver?event_id=... Queues a stored event again
//! (same `webhook-id`, same body, a fresh timestamp and signature at delivery), whether it was
//! delivered, failed or went to the DLQ: any event type, a verification's or a household's
//! (`household.completed`). Only the caller's own events of their key's mode (404 otherwise,
//! never revealing that it exists); 409 when the id names one of the caller's verifications or
//! households that has no `webhook_url` (events exist only for those with one). A store that
//! fails is the enveloped 500, never a 404.
//!
//! The request is one counted write on the stored event, in one transaction with its metering
//! and a check of the event's subject (account and mode): one DynamoDB round trip
//! (`MeterStore::meter_and_redeliver`). When that refuses, the usual way (metering beside the
//! event's read, the ownership check, the write) says why. The table's stream (`publish-events`)
//! queues the message, with the outbox's retries, so a 202 is never lost work.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::domain::metering::PresentedKey;
use crate::domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
use crate::error::ApiError;
use crate::handlers::api::ownership::owned_verification;
use crate::handlers::api::respond::{MeteredWrite, respond_combined};
use crate::handlers::api::{ApiDeps, Caller};
use crate::handlers::households::visible_household;
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

fn not_found() -> ApiError {
    ApiError::NotFound("Webhook event not found".into())
}

/// Whether the caller may see `subject` (their account, their key's mode), and whether it has a
/// `webhook_url`; None when it is not theirs (or gone). A store failure is an error (500).
async fn owned_subject<S: Store>(
    store: &S,
    caller: &Caller,
    subject: WebhookSubject,
) -> Result<Option<bool>, ApiError> {
    match subject {
        WebhookSubject::Verification(id) => match owned_verification(store, caller, id).await {
            Ok(v) => Ok(Some(v.webhook_url.is_some())),
            Err(ApiError::NotFound(_)) => Ok(None),
            Err(other) => Err(other),
        },
        WebhookSubject::Household(id) => {
            Ok(visible_household(store.get_household(id).await?, caller)
                .map(|h| h.webhook_url.is_some()))
        }
    }
}

/// Why an event id names no event of the caller: 409 when it is the id of one of the caller's
/// verifications or households that has no `webhook_url` (no event was ever sent for it), else
/// 404.
async fn unknown_event<S: Store>(store: &S, caller: &Caller, req: &ApiRequest) -> ApiError {
    let Some(subject) = event_id_param(req)
        .ok()
        .and_then(|e| WebhookSubject::of_event_id(&e))
    else {
        return not_found();
    };
    match owned_subject(store, caller, subject).await {
        Ok(Some(false)) => ApiError::Conflict {
            code: "no_webhook_url",
            message: format!(
                "The {} has no webhook_url, so it has no webhook events",
                match subject {
                    WebhookSubject::Verification(_) => "verification",
                    WebhookSubject::Household(_) => "household",
                }
            ),
        },
        Ok(_) => not_found(),
        Err(other) => other,
    }
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
            let Some(event) =
                fetched?.filter(|e| e.message.account_id == caller.account.account_id)
            else {
                return Err(unknown_event(&deps.store, &caller, req).await);
            };
            // The mode is the subject's: another mode's event is not found either. Only that is a
            // 404; a store that fails while checking is a 500.
            if owned_subject(&deps.store, &caller, event.subject)
                .await?
                .is_none()
            {
                return Err(not_found());
            }
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
    let subject = WebhookSubject::of_event_id(&event_id)?;
    let request = MeteredRedelivery {
        key: &key,
        now,
        plans: &deps.settings.plans,
        event_id: &event_id,
        subject,
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
