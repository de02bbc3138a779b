//! `cancel-household`: DELETE /api/v1/households?household_id=... Cancels every member still
//! pending or in progress, each with the read-free conditional write of `VerificationStore::
//! cancel_open` (a member that completes meanwhile stays completed); final members stay as they
//! are.
//!
//! Two sequential DynamoDB round trips, cold or warm: the metering write beside the household's
//! read, then every member's cancel beside its read. Two is the floor: the request names only the
//! household, so its members' ids are known once its item is read, and a member's write cannot
//! start before (nor can the count wait for the members: a refused request writes nothing).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::domain::metering::PresentedKey;
use crate::domain::{Mode, Transition, Verification};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::respond;
use crate::handlers::households::get::fetch_household;
use crate::handlers::households::visible_household;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store, TransitionOutcome};

/// Cancels member `id` of the owner's household if it is open, in one write with its read beside
/// it (the status of a member the write left alone); the status it ends with ("cancelled" when
/// this call did it).
async fn cancel_member<S: Store>(
    store: &S,
    id: Uuid,
    (account_id, mode): (&str, Mode),
    now: DateTime<Utc>,
) -> Result<&'static str, ApiError> {
    let (cancelled, seen) = futures::join!(
        store.cancel_open(id, account_id, mode, now),
        store.get_verification(id)
    );
    if cancelled? {
        return Ok("cancelled");
    }
    let Some(current) = seen? else {
        tracing::error!(verification_id = %id, "household member missing");
        return Err(ApiError::Internal);
    };
    settle_refused(store, current, now).await
}

/// A member the one write left alone: closed or past expiry, as read; or still open as read, when
/// the read came before a change that refused the write (a race), which the conditional
/// transition on the status read settles.
async fn settle_refused<S: Store>(
    store: &S,
    mut current: Verification,
    now: DateTime<Utc>,
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
        let household = visible_household(fetched?, &caller).ok_or_else(super::not_found)?;
        let owner = (household.account_id.as_str(), household.mode);
        let cancels = (household.members.iter())
            .map(|m| cancel_member(&deps.store, m.verification_id, owner, now));
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
