//! `cancel-household`: DELETE /api/v1/households?household_id=... Cancels the household: every
//! member still pending or in progress is cancelled; final members stay as they are.
//!
//! ONE sequential DynamoDB round trip, cold or warm: one transaction counts the request and marks
//! the household cancelled (`MeterStore::meter_and_cancel_household`: only the key's own, undecided,
//! not yet cancelled household), with the household and its members read beside it (the household
//! item and one bounded query of its members, as GET reads them) for the answer. The household's
//! `cancelled_at` is the truth from that moment:
//!
//! - no member can make progress after it: every tenant step of a member checks the household in
//!   its own transaction (`VerificationStore::transition`), and a refused one is told the member
//!   is cancelled, so the tenant sees the closed page;
//! - the open members' own items are cancelled from the household's stream record by
//!   `publish-events` (the read-free conditional `cancel_open`: a member that completed before the
//!   cancel stays completed), retried until done; their own stream records then send their
//!   `verification.cancelled` webhooks as any cancel does;
//! - readers that show members with the household (this answer, GET /households) show an open
//!   member of a cancelled household as cancelled at once. A member's own GET /verify may show it
//!   open for the moment until the stream has applied the cancel (well under a second on AWS),
//!   though no tenant step can succeed meanwhile. A household cancelled while a member was open
//!   is never decided (one whose members had all closed is: `Household::closed_before_cancel`).
//!
//! A refused transaction writes nothing: the request is then metered the usual way with the
//! household read beside it, which tells why (another account's or unknown: 404; decided or
//! cancelled already: 200 with every member as it is and none cancelled by this call). When the
//! one write refused only for what the usual way's count settles (the account's daily count still
//! in the earlier format on the deploy's day: `dynamo::api_day`), the cancel is written then.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::domain::household::Household;
use crate::domain::metering::PresentedKey;
use crate::domain::{Status, Verification};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{MeteredWrite, respond_combined};
use crate::handlers::households::{household_id_param, visible_household};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, MeteredHouseholdCancel, Store};

/// The household and its members, read as GET reads them (one bounded read beside the write).
type Fetched = Result<Option<(Household, Vec<Verification>)>, ApiError>;

async fn fetch<S: Store>(store: &S, req: &ApiRequest) -> Fetched {
    let id = household_id_param(req)?;
    Ok(store.get_household_with_members(id).await?)
}

/// The cancel with its metering in ONE write, the household read beside it. None (nothing
/// written or counted): the usual way.
async fn cancel_in_one_write<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Option<MeteredWrite> {
    let household_id = household_id_param(req).ok()?;
    let cancel = MeteredHouseholdCancel {
        key: &key,
        now,
        plans: &deps.settings.plans,
        household_id,
    };
    let (written, fetched) = futures::join!(
        deps.store.meter_and_cancel_household(&cancel),
        fetch(&deps.store, req)
    );
    // Written and counted: a failed read must not turn it into a 500 a retry would answer
    // differently ("0 cancelled"), so it is read once more.
    let fetched = match (&written, fetched) {
        (Ok(Some(_)), Err(_)) => fetch(&deps.store, req).await,
        (_, fetched) => fetched,
    };
    match written {
        Ok(Some(account)) => Some(fetched.and_then(|found| {
            let Some((household, members)) = found else {
                tracing::error!(household_id = %household_id, "cancelled household not read");
                return Err(ApiError::Internal);
            };
            Ok((account, answer(&household, &members, true, now)))
        })),
        Ok(None) => None,
        Err(e) => Some(Err(e.into())),
    }
}

/// DELETE /api/v1/households?household_id=...
pub async fn cancel_household<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    respond_combined(
        deps,
        req,
        |key, now| cancel_in_one_write(deps, req, key, now),
        |_: PresentedKey| fetch(&deps.store, req),
        |caller, fetched: Fetched, now| async move {
            let (household, members) = fetched?.unzip();
            let household = visible_household(household, &caller).ok_or_else(super::not_found)?;
            let members = members.unwrap_or_default();
            let cancellable = household.cancelled_at.is_none() && household.decision.is_none();
            // The one write refused: not cancellable (decided, cancelled already), or only for
            // what the usual way's count settles; then the cancel is written now.
            if cancellable && deps.store.cancel_household(&household, now).await? {
                return Ok(answer(&household, &members, true, now));
            }
            if !cancellable {
                return Ok(answer(&household, &members, false, now));
            }
            // Decided or cancelled meanwhile: as it is now.
            let (household, members) = (deps.store)
                .get_household_with_members(household.household_id)
                .await?
                .ok_or(ApiError::Internal)?;
            Ok(answer(&household, &members, false, now))
        },
    )
    .await
}

/// The 200: each member's status (`cancelled` when this call cancelled it: open when read), the
/// others as they are (a member of a household cancelled earlier: cancelled, i.e. `expired`).
fn answer(
    household: &Household,
    members: &[Verification],
    cancelled_here: bool,
    now: DateTime<Utc>,
) -> ApiResponse {
    let statuses: Vec<&str> = members
        .iter()
        .map(|v| {
            // The read beside this call's write may come after it: its own cancel is told apart
            // from an earlier one by `cancelled_here`, not by the household read.
            let status = match cancelled_here {
                true => v.effective_status(now),
                false => household.member_as_of(v).effective_status(now),
            };
            match status {
                s if s.is_open() && cancelled_here => "cancelled",
                // A household this call did not cancel is cancelled or decided; a member the
                // (index) read still shows open is told as closed, never as open.
                s if s.is_open() => Status::Expired.as_str(),
                s => s.as_str(),
            }
        })
        .collect();
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
    if cancelled_here {
        // Open as read beside the write: the stream cancels each unless its tenant's step landed
        // just before the cancel (then it stays completed, as GET shows).
        tracing::info!(household_id = %household.household_id, open_when_cancelled = cancelled, "household cancelled");
    }
    ApiResponse::json(
        200,
        &json!({
            "success": true,
            "message": format!("{cancelled} open member(s) cancelled; final members unchanged"),
            "data": { "household_id": household.household_id, "members": members },
        }),
    )
}
