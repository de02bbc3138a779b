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
//! (`MeterStore::meter_and_redeliver`). When that refuses, the usual way (the metering write, the
//! ownership check, the write) says why, from the event and its subject read beside the refused
//! write: a refused redelivery (404, 409) is two round trips. The table's stream (`publish-events`)
//! queues the message, with the outbox's retries, so a 202 is never lost work.

use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::domain::Verification;
use crate::domain::household::Household;
use crate::domain::metering::PresentedKey;
use crate::domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
use crate::error::ApiError;
use crate::handlers::api::ownership::visible;
use crate::handlers::api::respond::{MeteredWrite, respond_combined};
use crate::handlers::api::{ApiDeps, Caller};
use crate::handlers::households::visible_household;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, MeteredRedelivery, Store, StoreError};

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

/// The subject an event id names, as the store had it (None: no such item).
#[derive(Clone)]
enum SubjectRead {
    // Boxed: the two differ widely in size (clippy large_enum_variant).
    Verification(Option<Box<Verification>>),
    Household(Option<Box<Household>>),
}

impl SubjectRead {
    async fn of<S: Store>(store: &S, subject: WebhookSubject) -> Result<Self, StoreError> {
        Ok(match subject {
            WebhookSubject::Verification(id) => {
                SubjectRead::Verification(store.get_verification(id).await?.map(Box::new))
            }
            WebhookSubject::Household(id) => {
                SubjectRead::Household(store.get_household(id).await?.map(Box::new))
            }
        })
    }

    /// Whether the caller may see it (their account, their key's mode), and whether it has a
    /// `webhook_url`; None when it is not theirs (or gone).
    fn owned(self, caller: &Caller) -> Option<bool> {
        match self {
            SubjectRead::Verification(v) => {
                (visible(v.map(|v| *v), caller).ok()).map(|v| v.webhook_url.is_some())
            }
            SubjectRead::Household(h) => {
                visible_household(h.map(|h| *h), caller).map(|h| h.webhook_url.is_some())
            }
        }
    }
}

/// What the one write's attempt read beside it (the event, and the subject its id names), kept
/// for the usual way when that write refused: a refused redelivery then reads neither again. A
/// read that failed is kept as its error, answered as the usual way's own read failing (500).
struct Seen {
    event: Result<Option<StoredWebhookEvent>, ApiError>,
    subject: SeenSubject,
}

#[derive(Clone)]
struct SeenSubject {
    subject: WebhookSubject,
    read: Result<SubjectRead, ApiError>,
}

/// Whether the caller may see `subject`, and whether it has a `webhook_url` (`SubjectRead::owned`),
/// from `seen` when it read that subject, else read now. A store failure is an error (500).
async fn owned_subject<S: Store>(
    store: &S,
    caller: &Caller,
    subject: WebhookSubject,
    seen: Option<&SeenSubject>,
) -> Result<Option<bool>, ApiError> {
    let read = match seen.filter(|s| s.subject == subject) {
        Some(seen) => seen.read.clone()?,
        None => SubjectRead::of(store, subject).await?,
    };
    Ok(read.owned(caller))
}

/// Why an event id names no event of the caller: 409 when it is the id of one of the caller's
/// verifications or households that has no `webhook_url` (no event was ever sent for it), else
/// 404.
async fn unknown_event<S: Store>(
    store: &S,
    caller: &Caller,
    req: &ApiRequest,
    seen: Option<&SeenSubject>,
) -> ApiError {
    let Some(subject) = event_id_param(req)
        .ok()
        .and_then(|e| WebhookSubject::of_event_id(&e))
    else {
        return not_found();
    };
    match owned_subject(store, caller, subject, seen).await {
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
    let seen: Mutex<Option<Seen>> = Mutex::new(None);
    let seen = &seen;
    // The stored event is read beside the metering write (errors surface after authentication),
    // unless the one write's attempt read it already.
    let prefetch = |_: PresentedKey| async move {
        let kept = seen.lock().expect("seen").take();
        if let Some(Seen { event, subject }) = kept {
            return Ok((event?, Some(subject)));
        }
        let id = event_id_param(req)?;
        Ok::<_, ApiError>((deps.store.get_webhook_event(&id).await?, None))
    };
    let combined = |key, now| redeliver_in_one_write(deps, req, key, now, seen);
    respond_combined(
        deps,
        req,
        combined,
        prefetch,
        |caller, fetched, now| async move {
            let (event, subject) = fetched?;
            let subject = subject.as_ref();
            let Some(event) = event.filter(|e| e.message.account_id == caller.account.account_id)
            else {
                return Err(unknown_event(&deps.store, &caller, req, subject).await);
            };
            // The mode is the subject's: another mode's event is not found either. Only that is a
            // 404; a store that fails while checking is a 500.
            if owned_subject(&deps.store, &caller, event.subject, subject)
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
/// read beside it for the answer and the subject its id names for a refusal (both kept in `seen`
/// when the write refused, so the usual way that tells why is one more round trip, not two).
/// None (nothing written or counted): the usual way.
async fn redeliver_in_one_write<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
    seen: &Mutex<Option<Seen>>,
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
    let (written, event, subject_read) = futures::join!(
        deps.store.meter_and_redeliver(&request),
        deps.store.get_webhook_event(&event_id),
        SubjectRead::of(&deps.store, subject),
    );
    match (written, event) {
        (Ok(None), event) => {
            let subject = SeenSubject {
                subject,
                read: subject_read.map_err(ApiError::from),
            };
            let event = event.map_err(ApiError::from);
            *seen.lock().expect("seen") = Some(Seen { event, subject });
            None
        }
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
