//! `cancel-household`: DELETE /api/v1/households?household_id=... Cancels the household and,
//! in the same write, every member still pending or in progress; final members stay as they are.
//!
//! ONE DynamoDB round trip when it succeeds, and no read: a household's id names its members'
//! count and roles, and each member's id follows from it (`HouseholdShape`). So ONE transaction
//! counts the request, marks the household cancelled and cancels every member, with the owner's
//! counters (`MeterStore::meter_and_cancel_household`: only the key's own, undecided, not yet
//! cancelled household, each member still open and unexpired). From that write on no member is
//! open on any read (its own GET /verify, the list, GET /households), no tenant step of one can
//! succeed (its status is final), and the members' own stream records send their
//! `verification.cancelled` webhooks as any cancel does. A cancelled household is never decided.
//!
//! A refusal carries every refused item as its condition saw it. When only members refused
//! (final already, or a tenant finished meanwhile), nothing is written or counted, and the write
//! is tried again naming only the members whose conditions held; a member completed before the
//! cancel thus costs a second round trip. When no named member is left open, the request is
//! counted and answered 409 `household_closed`, and nothing changes. Any other refusal is
//! counted and told by the household as the write saw it: another account's, unknown, or an id
//! without a shape, 404; cancelled already, 200 with every member as it is and none cancelled by
//! this call; decided, 409 `household_closed`.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::households::household_id_param;
use crate::http::{ApiRequest, ApiResponse};
use domain::Verification;
use domain::error::ApiError;
use domain::household::{HouseholdMember, HouseholdShape};
use domain::metering::PresentedKey;
use ports::{Clock, HouseholdCancelRefusal, MeterStore, Metered, MeteredHouseholdCancel};

/// Writes before the cancel gives up with 503 (each refusal by members alone leaves fewer to
/// name; tenants finishing meanwhile may refuse the next).
const ATTEMPTS: usize = 3;

/// DELETE /api/v1/households?household_id=...
pub async fn cancel_household<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore,
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

/// The cancel with its metering in ONE write, again with fewer members while some refuse.
async fn cancel<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt
where
    S: MeterStore,
    C: Clock,
{
    let household_id = match household_id_param(req) {
        Ok(id) => id,
        Err(e) => return Attempt::Invalid(e),
    };
    // An id without a shape names no member: the household's condition refuses it.
    let members = HouseholdShape::of(household_id)
        .map(|shape| shape.members(household_id))
        .unwrap_or_default();
    let mut open: Vec<Uuid> = members.iter().map(|m| m.verification_id).collect();
    // Members earlier attempts found closed, as their conditions saw them.
    let mut closed: Vec<Verification> = Vec::new();
    for _ in 0..ATTEMPTS {
        let cancel = MeteredHouseholdCancel {
            key: &key,
            now,
            plans: &deps.settings.plans,
            household_id,
            members: &open,
        };
        let written = deps.store.meter_and_cancel_household(&cancel).await;
        if let Ok(Metered::Refused(
            _,
            HouseholdCancelRefusal::MembersClosed {
                closed: seen,
                open: left,
            },
        )) = &written
            && !left.is_empty()
        {
            closed.extend(seen.iter().cloned());
            open = left.clone();
            continue;
        }
        let (members, open, closed) = (&members, &open, &mut closed);
        return attempt(written, |_, done| async move {
            let here = match done {
                Ok(()) => open.as_slice(),
                Err(HouseholdCancelRefusal::Closed(seen, refused))
                    if seen.cancelled_at.is_some() =>
                {
                    closed.extend(refused);
                    &[]
                }
                Err(HouseholdCancelRefusal::NotFound) => return Err(super::not_found()),
                Err(
                    HouseholdCancelRefusal::Closed(..)
                    | HouseholdCancelRefusal::MembersClosed { .. },
                ) => {
                    return Err(household_closed());
                }
            };
            answer(household_id, members, here, closed, now)
        })
        .await;
    }
    // Members kept closing under the write: nothing was written or counted, and the client tries
    // again.
    Attempt::Failed(ApiError::Busy)
}

/// The 200: each member in the household's order, `cancelled` for those this call cancelled
/// (`cancelled_here`), the others as the write's conditions saw them (`closed`).
fn answer(
    household_id: Uuid,
    members: &[HouseholdMember],
    cancelled_here: &[Uuid],
    closed: &[Verification],
    now: DateTime<Utc>,
) -> Result<ApiResponse, ApiError> {
    let members: Vec<Value> = (members.iter())
        .map(|m| {
            let seen = closed
                .iter()
                .find(|v| v.verification_id == m.verification_id);
            let status = match seen {
                _ if cancelled_here.contains(&m.verification_id) => "cancelled",
                Some(v) => v.effective_status(now).as_str(),
                // Neither cancelled here nor seen closed: the store lost a member.
                None => return Err(ApiError::Internal),
            };
            Ok(json!({
                "verification_id": m.verification_id,
                "role": m.role.as_str(),
                "status": status,
            }))
        })
        .collect::<Result<_, _>>()?;
    if !cancelled_here.is_empty() {
        tracing::info!(household_id = %household_id, cancelled = cancelled_here.len(), "household cancelled");
    }
    Ok(ApiResponse::json(
        200,
        &json!({
            "success": true,
            "message": format!("{} open member(s) cancelled; final members unchanged", cancelled_here.len()),
            "data": { "household_id": household_id, "members": members },
        }),
    ))
}
