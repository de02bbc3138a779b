//! `cancel-household`: DELETE /api/v1/households?household_id=... Cancels every member still
//! pending or in progress, each with the one conditional write DELETE /verify uses (a member that
//! completes meanwhile stays completed); final members stay as they are.

use serde_json::{Value, json};

use crate::domain::metering::PresentedKey;
use crate::domain::{Transition, Verification};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::respond;
use crate::handlers::households::get::fetch_household;
use crate::handlers::households::owned_household;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store, TransitionOutcome};

/// Cancels one member if it is open; the status it ends with ("cancelled" when this call did it).
async fn cancel_member<S: Store>(
    store: &S,
    mut current: Verification,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<&'static str, ApiError> {
    for _ in 0..3 {
        let status = current.effective_status(now);
        if !status.is_open() {
            return Ok(status.as_str());
        }
        match store.transition(&current, &Transition::Cancel, now).await? {
            TransitionOutcome::Applied(_) => return Ok("cancelled"),
            TransitionOutcome::Conflict(Some(fresh)) => current = fresh,
            TransitionOutcome::Conflict(None) => return Err(ApiError::Internal),
        }
    }
    tracing::error!(verification_id = %current.verification_id, "member cancel kept losing races");
    Err(ApiError::Internal)
}

/// DELETE /api/v1/households?household_id=...
pub async fn cancel_household<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_: PresentedKey| fetch_household(&deps.store, req);
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let (household, members) = owned_household(&deps.store, &caller, fetched?).await?;
        let cancels = members
            .into_iter()
            .map(|v| cancel_member(&deps.store, v, now));
        let statuses = futures::future::try_join_all(cancels).await?;
        let cancelled = statuses.iter().filter(|s| **s == "cancelled").count();
        let members: Vec<Value> = (household.members.iter())
            .zip(statuses)
            .map(|(m, status)| {
                json!({
                    "verification_id": m.verification_id,
                    "role": m.role.as_str(),
                    "status": status,
                })
            })
            .collect();
        tracing::info!(household_id = %household.household_id, cancelled, "household cancelled");
        Ok(ApiResponse::json(
            200,
            &json!({
                "success": true,
                "message": format!("{cancelled} open member(s) cancelled; final members unchanged"),
                "data": { "household_id": household.household_id, "members": members },
            }),
        ))
    })
    .await
}
