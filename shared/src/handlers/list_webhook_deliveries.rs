//! `list-webhook-deliveries`: GET /api/v1/webhooks/deliveries?verification_id=&limit=&offset=
//! The delivery attempts of one of the caller's verifications (404 for anyone else's, or the other
//! mode's), newest first, one page at a time; kept 30 days.
//!
//! The verification and, for a short log, the whole log (one bounded Query: page and total) are
//! read beside the metering write: one DynamoDB round trip. A longer log is listed after it (page
//! and count).

use serde_json::{Value, json};

use crate::domain::webhook_log::DeliveryPage;
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::{fetch_named, visible};
use crate::handlers::api::respond::respond;
use crate::handlers::api::validate::{integer_param, verification_id_param};
use crate::handlers::list_verifications::{DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store, StoreError};

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

/// The page of a short log, read before the request is known to be allowed (a bounded read);
/// None when the parameters are invalid (said after authentication) or the log is longer.
async fn short_log_page<S: Store>(
    store: &S,
    req: &ApiRequest,
) -> Result<Option<DeliveryPage>, StoreError> {
    let (Ok(id), Ok((limit, offset))) = (verification_id_param(req), page_params(req)) else {
        return Ok(None);
    };
    store.delivery_page_if_short(id, offset, limit).await
}

/// GET /api/v1/webhooks/deliveries?verification_id=&limit=&offset=
pub async fn list_webhook_deliveries<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_| async {
        futures::join!(
            fetch_named(&deps.store, req),
            short_log_page(&deps.store, req)
        )
    };
    respond(
        deps,
        req,
        prefetch,
        |caller, (named, short), _now| async move {
            let v = visible(named?, &caller)?;
            let (limit, offset) = page_params(req)?;
            let page = match short? {
                Some(page) => page,
                None => {
                    (deps.store)
                        .list_delivery_attempts(v.verification_id, offset, limit)
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
