//! `get-household`: GET /api/v1/households?household_id=... The members with their statuses and,
//! once every member is final, the decision; while members are open, which ones. A GET never
//! writes: the decision shown before `publish-events` stores it is computed from the members, and
//! a member still open in a cancelled household is shown cancelled before `publish-events` writes
//! it (`households::cancel`).

use serde_json::json;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::respond;
use crate::handlers::households::{household_id_param, household_view, is_visible, not_found};
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::metering::PresentedKey;
use ports::{Clock, HouseholdStore, MeterStore};

/// GET /api/v1/households?household_id=...
///
/// The household and its members are read beside the metering write (the household item and one
/// bounded Query of its members' index: `HouseholdStore::get_household_with_members`), so the
/// request is one DynamoDB round trip; only the caller's own are shown.
pub async fn get_household<S: MeterStore + HouseholdStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_: PresentedKey| async {
        let id = household_id_param(req)?;
        Ok::<_, ApiError>(deps.store.get_household_with_members(id).await?)
    };
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let (household, members) = fetched?
            .filter(|(h, _)| is_visible(h, &caller))
            .ok_or_else(not_found)?;
        Ok(ApiResponse::json(
            200,
            &json!({ "success": true, "data": household_view(&household, &members, now) }),
        ))
    })
    .await
}
