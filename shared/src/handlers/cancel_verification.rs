//! `cancel-verification`: DELETE /api/v1/verify?verification_id=... Only pending and
//! in_progress verifications can be cancelled; one conditional write settles a race with the
//! tenant or the expiry sweeper.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::domain::Transition;
use crate::domain::metering::PresentedKey;
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named_combined;
use crate::handlers::api::respond::MeteredWrite;
use crate::handlers::api::validate::verification_id_param;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, MeteredCancel, Store, TransitionOutcome};

/// DELETE /api/v1/verify?verification_id=...
pub async fn cancel_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    respond_on_named_combined(
        deps,
        req,
        |key, now| cancel_in_one_write(deps, req, key, now),
        |mut current, now| async move {
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
                    TransitionOutcome::Applied(_) => return Ok(cancelled(id)),
                    TransitionOutcome::Conflict(Some(fresh)) => current = fresh,
                    TransitionOutcome::Conflict(None) => {
                        return Err(ApiError::NotFound("Verification not found".into()));
                    }
                }
            }
            tracing::error!(verification_id = %id, "cancel kept losing races");
            Err(ApiError::Internal)
        },
    )
    .await
}

/// The cancel with its metering in ONE write (`MeterStore::meter_and_cancel`): the key's own
/// open verification (pending or in progress) before its expiry, one round trip. None (nothing
/// written or counted): the usual way, which reads the verification beside the metering write and
/// tells why (400, 404): a refused cancel is two round trips, since the count must still be
/// written once the one write has said no.
async fn cancel_in_one_write<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Option<MeteredWrite> {
    let id = verification_id_param(req).ok()?;
    let cancel = MeteredCancel {
        key: &key,
        now,
        plans: &deps.settings.plans,
        verification_id: id,
    };
    match deps.store.meter_and_cancel(&cancel).await {
        Ok(Some(account)) => Some(Ok((account, cancelled(id)))),
        Ok(None) => None,
        Err(e) => Some(Err(e.into())),
    }
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
