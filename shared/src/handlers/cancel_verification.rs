//! `cancel-verification`: DELETE /api/v1/verify?verification_id=... Only pending and
//! in_progress verifications can be cancelled; one conditional write settles a race with the
//! tenant or the expiry sweeper.

use serde_json::json;

use crate::domain::Transition;
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store, TransitionOutcome};

/// DELETE /api/v1/verify?verification_id=...
pub async fn cancel_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    respond_on_named(deps, &req, |mut current, now| async move {
        let id = current.verification_id;
        // The conditional write settles races with the tenant and the expiry sweeper; on a lost
        // race the fresh state decides.
        for _ in 0..3 {
            let status = current.effective_status(now);
            if !status.is_open() {
                let shown = if current.cancelled_at.is_some() {
                    "already cancelled"
                } else {
                    status.as_str()
                };
                return Err(ApiError::NotCancellable { status: shown });
            }
            match deps
                .store
                .transition(&current, &Transition::Cancel, now)
                .await?
            {
                TransitionOutcome::Applied(_) => {
                    tracing::info!(verification_id = %id, "verification cancelled");
                    return Ok(ApiResponse::json(
                        200,
                        &json!({
                            "success": true,
                            "message": "Verification cancelled",
                            "data": { "verification_id": id, "status": "cancelled" },
                        }),
                    ));
                }
                TransitionOutcome::Conflict(Some(fresh)) => current = fresh,
                TransitionOutcome::Conflict(None) => {
                    return Err(ApiError::NotFound("Verification not found".into()));
                }
            }
        }
        tracing::error!(verification_id = %id, "cancel kept losing races");
        Err(ApiError::Internal)
    })
    .await
}
