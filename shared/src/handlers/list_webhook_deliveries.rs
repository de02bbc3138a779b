//! `list-webhook-deliveries`: GET /api/v1/webhooks/deliveries?verification_id=&limit=&offset=
//! The delivery attempts of one of the caller's verifications (404 for anyone else's, or the other
//! mode's), newest first, one page at a time; kept 30 days.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named;
use crate::handlers::api::validate::integer_param;
use crate::handlers::list_verifications::{DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store};

/// GET /api/v1/webhooks/deliveries?verification_id=&limit=&offset=
pub async fn list_webhook_deliveries<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    respond_on_named(deps, req, |v, _now| async move {
        // Validated like the list of verifications.
        let limit = integer_param(req, "limit", DEFAULT_LIMIT, 1, Some(MAX_LIMIT))?;
        let offset = integer_param(req, "offset", 0, 0, None)?;
        if offset > MAX_OFFSET {
            return Err(ApiError::validation(
                "offset",
                "out_of_range",
                format!("offset must be at most {MAX_OFFSET}"),
            ));
        }
        let page = deps
            .store
            .list_delivery_attempts(v.verification_id, offset, limit)
            .await?;
        let items: Vec<Value> = page.items.iter().map(|a| a.view()).collect();
        Ok(ApiResponse::json(
            200,
            &json!({
                "success": true,
                "data": items,
                "pagination": { "limit": limit, "offset": offset, "total": page.total },
            }),
        ))
    })
    .await
}
