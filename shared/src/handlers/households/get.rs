//! `get-household`: GET /api/v1/households?household_id=... The members with their statuses and,
//! once every member is final, the decision; while members are open, which ones. A GET never
//! writes: the decision shown before `publish-events` stores it is computed from the members.

use serde_json::json;

use crate::domain::household::Household;
use crate::domain::metering::PresentedKey;
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::respond;
use crate::handlers::households::{household_id_param, household_view, owned_household};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store};

/// Reads the household named by the query, for a prefetch (errors surface after authentication).
pub(crate) async fn fetch_household<S: Store>(
    store: &S,
    req: &ApiRequest,
) -> Result<Option<Household>, ApiError> {
    let id = household_id_param(req)?;
    Ok(store.get_household(id).await?)
}

/// GET /api/v1/households?household_id=...
pub async fn get_household<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_: PresentedKey| fetch_household(&deps.store, req);
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let (household, members) = owned_household(&deps.store, &caller, fetched?).await?;
        Ok(ApiResponse::json(
            200,
            &json!({ "success": true, "data": household_view(&household, &members, now) }),
        ))
    })
    .await
}
