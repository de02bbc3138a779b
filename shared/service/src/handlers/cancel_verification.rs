//! `cancel-verification`: DELETE /api/v1/verify?verification_id=... Only pending and
//! in_progress verifications can be cancelled; one conditional write, in one transaction with
//! the request's metering, settles a race with the tenant or the expiry sweeper.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::api::validate::verification_id_param;
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::metering::PresentedKey;
use ports::{Clock, MeterStore, MeteredCancel, VerificationRefusal};

/// DELETE /api/v1/verify?verification_id=...
pub async fn cancel_verification<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    respond_metered(deps, req, |key, now| cancel(deps, req, key, now)).await
}

/// The cancel with its metering in ONE write (`MeterStore::meter_and_cancel`): the key's own
/// open verification (pending or in progress) before its expiry, one round trip. A refusal is told
/// by the verification as the write saw it (404, 400), with the request counted alone: two round
/// trips.
async fn cancel<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt {
    let id = match verification_id_param(req) {
        Ok(id) => id,
        Err(e) => return Attempt::Invalid(e),
    };
    let cancel = MeteredCancel {
        key: &key,
        now,
        plans: &deps.settings.plans,
        verification_id: id,
    };
    let written = deps.store.meter_and_cancel(&cancel).await;
    attempt(written, |_, done| async move {
        match done {
            Ok(()) => Ok(cancelled(id)),
            Err(VerificationRefusal::Closed(current)) => {
                let shown = match current.cancelled_at {
                    Some(_) => "already cancelled",
                    None => current.effective_status(now).as_str(),
                };
                Err(ApiError::NotCancellable { status: shown })
            }
            Err(_) => Err(ApiError::NotFound("Verification not found".into())),
        }
    })
    .await
}

/// The 200 of a cancelled verification.
fn cancelled(id: Uuid) -> ApiResponse {
    tracing::info!(verification_id = %id, "verification cancelled");
    ApiResponse::json(
        200,
        &json!({
            "success": true,
            "message": "Verification cancelled",
            "data": { "verification_id": id, "status": "cancelled" },
        }),
    )
}
