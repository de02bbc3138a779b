//! `list-webhook-deliveries`: GET /api/v1/webhooks/deliveries?verification_id=&limit=&offset=
//! (or `household_id=` instead of `verification_id=`, for a household's `household.completed`).
//! The delivery attempts of one of the caller's verifications or households (404 for anyone
//! else's, or the other mode's), newest first, one page at a time; kept 30 days.
//!
//! The verification (or household) and, for a short log, the whole log (one bounded Query: page
//! and total) are read beside the metering write: one DynamoDB round trip. A longer log is listed
//! after it (page and count).

use serde_json::{Value, json};

use crate::handlers::api::ownership::visible;
use crate::handlers::api::respond::respond;
use crate::handlers::api::validate::{integer_param, verification_id_param};
use crate::handlers::api::{ApiDeps, Caller};
use crate::handlers::households::{self, household_id_param, visible_household};
use crate::handlers::list_verifications::{DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET};
use crate::http::{ApiRequest, ApiResponse};
use domain::Verification;
use domain::error::ApiError;
use domain::household::Household;
use domain::webhook_log::{DeliveryPage, WebhookSubject};
use ports::{
    Clock, HouseholdStore, MeterStore, StoreError, VerificationStore, WebhookHistoryStore,
};

/// The page asked for: `limit` and `offset`, validated like the list of verifications.
fn page_params(req: &ApiRequest) -> Result<(u32, u32), ApiError> {
    let limit = integer_param(req, "limit", DEFAULT_LIMIT, 1, Some(MAX_LIMIT))?;
    let offset = integer_param(req, "offset", 0, 0, None)?;
    if offset > MAX_OFFSET {
        return Err(ApiError::validation(
            "offset",
            "out_of_range",
            format!("offset must be at most {MAX_OFFSET}"),
        ));
    }
    Ok((limit, offset))
}

/// Whose log is asked for: `verification_id=`, or `household_id=` (additive) instead; not both.
/// Neither is the 400 of a missing `verification_id`.
fn subject_param(req: &ApiRequest) -> Result<WebhookSubject, ApiError> {
    let given = |name: &str| req.query.get(name).is_some_and(|v| !v.trim().is_empty());
    match (given("verification_id"), given("household_id")) {
        (true, true) => Err(ApiError::validation(
            "household_id",
            "invalid",
            "give verification_id or household_id, not both",
        )),
        (false, true) => Ok(WebhookSubject::Household(household_id_param(req)?)),
        _ => Ok(WebhookSubject::Verification(verification_id_param(req)?)),
    }
}

/// The subject's own item, read to check that the caller may see it (boxed: the two differ much
/// in size).
enum Named {
    Verification(Option<Box<Verification>>),
    Household(Option<Box<Household>>),
}

async fn fetch_subject<S: VerificationStore + HouseholdStore>(
    store: &S,
    req: &ApiRequest,
) -> Result<Named, ApiError> {
    Ok(match subject_param(req)? {
        WebhookSubject::Verification(id) => {
            Named::Verification(store.get_verification(id).await?.map(Box::new))
        }
        WebhookSubject::Household(id) => {
            Named::Household(store.get_household(id).await?.map(Box::new))
        }
    })
}

/// The subject if the caller may see it (their account, their key's mode); else 404.
fn visible_subject(named: Named, caller: &Caller) -> Result<WebhookSubject, ApiError> {
    match named {
        Named::Verification(v) => Ok(WebhookSubject::Verification(
            visible(v.map(|v| *v), caller)?.verification_id,
        )),
        Named::Household(h) => visible_household(h.map(|h| *h), caller)
            .map(|h| WebhookSubject::Household(h.household_id))
            .ok_or_else(households::not_found),
    }
}

/// The page of a short log, read before the request is known to be allowed (a bounded read);
/// None when the parameters are invalid (said after authentication) or the log is longer.
async fn short_log_page<S: WebhookHistoryStore>(
    store: &S,
    req: &ApiRequest,
) -> Result<Option<DeliveryPage>, StoreError> {
    let (Ok(subject), Ok((limit, offset))) = (subject_param(req), page_params(req)) else {
        return Ok(None);
    };
    store.delivery_page_if_short(subject, offset, limit).await
}

/// GET /api/v1/webhooks/deliveries?verification_id=&limit=&offset= (or `household_id=`)
pub async fn list_webhook_deliveries<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + VerificationStore + HouseholdStore + WebhookHistoryStore,
    C: Clock,
{
    let req = &req;
    let prefetch = |_| async {
        futures::join!(
            fetch_subject(&deps.store, req),
            short_log_page(&deps.store, req)
        )
    };
    respond(
        deps,
        req,
        prefetch,
        |caller, (named, short), _now| async move {
            let subject = visible_subject(named?, &caller)?;
            let (limit, offset) = page_params(req)?;
            let page = match short? {
                Some(page) => page,
                None => {
                    (deps.store)
                        .list_delivery_attempts(subject, offset, limit)
                        .await?
                }
            };
            let items: Vec<Value> = page.items.iter().map(|a| a.view()).collect();
            Ok(ApiResponse::json(
                200,
                &json!({
                    "success": true,
                    "data": items,
                    "pagination": { "limit": limit, "offset": offset, "total": page.total },
                }),
            ))
        },
    )
    .await
}
