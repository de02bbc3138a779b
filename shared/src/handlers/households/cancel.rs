//! `cancel-household`: DELETE /api/v1/households?household_id=... Cancels the household and,
//! in the same write, every member still pending or in progress; final members stay as they are.
//!
//! TWO sequential DynamoDB round trips: the household and its members are read (the household
//! item and one bounded query of its members, as GET reads them), then ONE transaction counts the
//! request, marks the household cancelled and cancels each member read open, with the owner's
//! counters (`MeterStore::meter_and_cancel_household`: only the key's own, undecided, not yet
//! cancelled household, each member still open). From that write on no member is open on any
//! read (its own GET /verify, the list, GET /households), no tenant step of one can succeed (its
//! status is final), and the members' own stream records send their `verification.cancelled`
//! webhooks as any cancel does. A cancelled household is never decided.
//!
//! When the write refuses because a member changed since the read (a tenant finished meanwhile),
//! nothing is written or counted, and the household is read and the write tried again. Any other
//! refusal is counted and told by the household as the write saw it: another account's or
//! unknown, 404; cancelled already, 200 with every member as it is and none cancelled by this
//! call; decided, or every member already closed, 409 `household_closed`, and nothing changes.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::domain::household::Household;
use crate::domain::metering::PresentedKey;
use crate::domain::{Status, Verification};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::households::household_id_param;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{
    Clock, HouseholdCancelRefusal, HouseholdStore, MeterStore, Metered, MeteredHouseholdCancel,
};

/// Reads and writes before the cancel gives up with 503 (a tenant step between the read and the
/// write makes the write refuse; the next read sees it).
const ATTEMPTS: usize = 3;

/// DELETE /api/v1/households?household_id=...
pub async fn cancel_household<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + HouseholdStore,
    C: Clock,
{
    let req = &req;
    respond_metered(deps, req, |key, now| cancel(deps, req, key, now)).await
}

fn household_closed() -> ApiError {
    ApiError::Conflict {
        code: "household_closed",
        message: "Every member of this household has already finished; nothing was cancelled"
            .into(),
    }
}

/// The household read, then the cancel with its metering in ONE write, again while members
/// change under it.
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
    for _ in 0..ATTEMPTS {
        let found = match deps.store.get_household_with_members(household_id).await {
            Ok(found) => found,
            Err(e) => return Attempt::Failed(e.into()),
        };
        let (household, members) = found.unzip();
        let members = members.unwrap_or_default();
        // The key's own household, undecided and not cancelled: its open members go with it.
        // Otherwise the write names none, and its refusal tells why.
        let cancellable = household.as_ref().is_some_and(|h| {
            h.account_id == key.account_id
                && h.mode == key.mode
                && h.cancelled_at.is_none()
                && h.decision.is_none()
        });
        let open: Vec<Uuid> = match cancellable {
            true => (members.iter())
                .filter(|v| v.effective_status(now).is_open())
                .map(|v| v.verification_id)
                .collect(),
            false => Vec::new(),
        };
        if cancellable && open.is_empty() {
            return Attempt::Invalid(household_closed());
        }
        let cancel = MeteredHouseholdCancel {
            key: &key,
            now,
            plans: &deps.settings.plans,
            household_id,
            members: &open,
        };
        let written = deps.store.meter_and_cancel_household(&cancel).await;
        if let Ok(Metered::Refused(_, HouseholdCancelRefusal::MembersChanged)) = written {
            continue;
        }
        return attempt(written, |_, done| async move {
            match done {
                Ok(()) => {
                    let household = household.ok_or(ApiError::Internal)?;
                    Ok(answer(&household, &members, &open, now))
                }
                Err(HouseholdCancelRefusal::NotFound) => Err(super::not_found()),
                Err(HouseholdCancelRefusal::Closed(seen)) if seen.cancelled_at.is_some() => {
                    Ok(answer(&seen, &members, &[], now))
                }
                Err(HouseholdCancelRefusal::Closed(_)) => Err(household_closed()),
                Err(HouseholdCancelRefusal::MembersChanged) => Err(ApiError::Busy),
            }
        })
        .await;
    }
    // Still open, yet the one write kept refusing (tenants finishing meanwhile): nothing was
    // written or counted, and the client tries again.
    Attempt::Failed(ApiError::Busy)
}

/// The 200: each member's status (`cancelled` for those this call cancelled, `cancelled_here`),
/// the others as they are (a member of a household cancelled earlier: cancelled, i.e. `expired`).
fn answer(
    household: &Household,
    members: &[Verification],
    cancelled_here: &[Uuid],
    now: DateTime<Utc>,
) -> ApiResponse {
    let statuses: Vec<&str> = members
        .iter()
        .map(|v| {
            if cancelled_here.contains(&v.verification_id) {
                return "cancelled";
            }
            match household.member_as_of(v).effective_status(now) {
                // The members' index lags their items by a moment: a member of a cancelled
                // household it still shows open was cancelled with it.
                s if s.is_open() => Status::Expired.as_str(),
                s => s.as_str(),
            }
        })
        .collect();
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
    if !cancelled_here.is_empty() {
        tracing::info!(household_id = %household.household_id, cancelled = cancelled_here.len(), "household cancelled");
    }
    ApiResponse::json(
        200,
        &json!({
            "success": true,
            "message": format!("{} open member(s) cancelled; final members unchanged", cancelled_here.len()),
            "data": { "household_id": household.household_id, "members": members },
        }),
    )
}
