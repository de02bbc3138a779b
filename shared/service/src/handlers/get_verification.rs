//! `get-verification`: GET /api/v1/verify?verification_id=... The caller's own verification, in
//! the public view the webhooks carry too.

use serde_json::json;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named;
use crate::http::{ApiRequest, ApiResponse};
use domain::public_view::render_verification;
use ports::{Clock, MeterStore, VerificationStore};

/// GET /api/v1/verify?verification_id=...
pub async fn get_verification<S: MeterStore + VerificationStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    respond_on_named(deps, &req, |v, now| async move {
        Ok(ApiResponse::json(
            200,
            &json!({ "success": true, "data": render_verification(&v, now) }),
        ))
    })
    .await
}
