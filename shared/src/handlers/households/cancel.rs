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
//! A refused transaction writes nothing: the household as it saw it tells why (another account's
//! or unknown: 404; decided or cancelled already: 200 with every member as it is and none
//! cancelled by this call), and the request is counted alone.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::domain::household::Household;
use crate::domain::metering::PresentedKey;
use crate::domain::{Status, Verification};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::households::household_id_param;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{
    Clock, HouseholdCancelRefusal, HouseholdStore, MeterStore, MeteredHouseholdCancel,
};

/// The household and its members, read as GET reads them (one bounded read beside the write).
type Fetched = Result<Option<(Household, Vec<Verification>)>, ApiError>;

async fn fetch<S: HouseholdStore>(store: &S, req: &ApiRequest) -> Fetched {
    let id = household_id_param(req)?;
    Ok(store.get_household_with_members(id).await?)
}

/// DELETE /api/v1/households?household_id=...
pub async fn cancel_household<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + HouseholdStore,
    C: Clock,
{
    let req = &req;
    respond_metered(deps, req, |key, now| cancel(deps, req, key, now)).await
}

/// The cancel with its metering in ONE write, the household read beside it for the answer. A
/// refusal is told by the household as the write saw it (404; decided or cancelled already: 200
/// with every member as it is and none cancelled by this call), with the request counted alone.
async fn cancel<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt
where
    S: MeterStore + HouseholdStore,
    C: Clock,
{
    let household_id = match household_id_param(req) {
        Ok(id) => id,
        Err(e) => return Attempt::Invalid(e),
    };
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
    attempt(written, |_, done| async move {
        let cancelled_here = match done {
            Ok(()) => true,
            Err(HouseholdCancelRefusal::NotFound) => return Err(super::not_found()),
            Err(HouseholdCancelRefusal::Closed(_)) => false,
        };
        // Written and counted: a failed read must not turn it into a 500 a retry would answer
        // differently ("0 cancelled"), so it is read once more.
        let fetched = match fetched {
            Err(_) if cancelled_here => fetch(&deps.store, req).await,
            fetched => fetched,
        };
        let Some((household, members)) = fetched? else {
            tracing::error!(household_id = %household_id, "household not read");
            return Err(ApiError::Internal);
        };
        Ok(answer(&household, &members, cancelled_here, now))
    })
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
