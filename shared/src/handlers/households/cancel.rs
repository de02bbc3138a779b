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
//! When the write refuses because a member or the household changed since the read (a tenant
//! finished meanwhile), the household is read and the write tried again. Nothing written, the
//! request is metered the usual way with the household read beside it, which tells why: another
//! account's or unknown, 404; cancelled already, 200 with every member as it is and none cancelled
//! by this call; every member already closed (decided or not), 409 `household_closed`, and
//! nothing changes.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::domain::household::Household;
use crate::domain::metering::PresentedKey;
use crate::domain::{Status, Verification};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{MeteredWrite, respond_combined};
use crate::handlers::households::{household_id_param, visible_household};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, HouseholdStore, MeterStore, MeteredHouseholdCancel, Store};

/// The household and its members, read as GET reads them.
type Fetched = Result<Option<(Household, Vec<Verification>)>, ApiError>;

async fn fetch<S: HouseholdStore>(store: &S, req: &ApiRequest) -> Fetched {
    let id = household_id_param(req)?;
    Ok(store.get_household_with_members(id).await?)
}

/// Reads and writes before a refusal is left to the usual way (a tenant step between the read
/// and the write makes the write refuse; the next read sees it).
const ATTEMPTS: usize = 3;

/// The members open at `now` of a household the key may cancel (its own, undecided, not
/// cancelled); None when it may not, or when none is open.
fn open_members(
    found: &(Household, Vec<Verification>),
    key: &PresentedKey,
    now: DateTime<Utc>,
) -> Option<Vec<Uuid>> {
    let (household, members) = found;
    let cancellable = household.account_id == key.account_id
        && household.mode == key.mode
        && household.cancelled_at.is_none()
        && household.decision.is_none();
    let open: Vec<Uuid> = (members.iter())
        .filter(|v| v.effective_status(now).is_open())
        .map(|v| v.verification_id)
        .collect();
    (cancellable && !open.is_empty()).then_some(open)
}

/// The household read, then the cancel with its metering in ONE write. None (nothing written
/// or counted): the usual way.
async fn cancel_in_one_write<S: HouseholdStore + MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Option<MeteredWrite> {
    let household_id = household_id_param(req).ok()?;
    for _ in 0..ATTEMPTS {
        let found = match fetch(&deps.store, req).await {
            Ok(found) => found?,
            Err(e) => return Some(Err(e)),
        };
        let open = open_members(&found, &key, now)?;
        let cancel = MeteredHouseholdCancel {
            key: &key,
            now,
            plans: &deps.settings.plans,
            household_id,
            members: &open,
        };
        match deps.store.meter_and_cancel_household(&cancel).await {
            Ok(Some(account)) => {
                let (household, members) = &found;
                return Some(Ok((account, answer(household, members, &open, now))));
            }
            // Changed since the read: read again.
            Ok(None) => continue,
            Err(e) => return Some(Err(e.into())),
        }
    }
    None
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
            if household.cancelled_at.is_some() {
                return Ok(answer(&household, &members, &[], now));
            }
            if members.iter().all(|v| !v.effective_status(now).is_open()) {
                return Err(ApiError::Conflict {
                    code: "household_closed",
                    message:
                        "Every member of this household has already finished; nothing was cancelled"
                            .into(),
                });
            }
            // Still open, yet the one write kept refusing (tenants finishing meanwhile): nothing
            // was written, the client tries again.
            Err(ApiError::Busy)
        },
    )
    .await
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
