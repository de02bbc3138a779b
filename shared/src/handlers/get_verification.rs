//! `get-verification`: GET /api/v1/verify?verification_id=... The caller's own verification, in
//! the public view the webhooks carry too.

use serde_json::json;

use crate::domain::public_view::render_verification;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::{fetch_named, visible};
use crate::handlers::api::respond::respond;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store};

/// GET /api/v1/verify?verification_id=...
pub async fn get_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_| fetch_named(&deps.store, req);
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let v = visible(fetched?, &caller)?;
        Ok(ApiResponse::json(
            200,
            &json!({ "success": true, "data": render_verification(&v, now) }),
        ))
    })
    .await
}
