//! Households (POST, GET, DELETE /api/v1/households): co-applicants and guarantors verified
//! together. Each member is an ordinary verification; this module holds what the three endpoints
//! share (the `household_id` parameter, ownership, the members' reads and the JSON view), one
//! module per endpoint beside it, and `body` the validation of the create body. The decision is
//! `domain::household`; `household.completed` is sent by `publish-events`.

mod body;
pub mod cancel;
pub mod create;
pub mod get;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::handlers::api::Caller;
use crate::http::ApiRequest;
use domain::error::ApiError;
use domain::household::{Household, HouseholdState, MemberOutcome, household_state};
use domain::metering::PresentedKey;
use domain::{Verification, format_ts};
use ports::{StoreError, VerificationStore};

pub use cancel::cancel_household;
pub use create::create_household;
pub use get::get_household;

pub(crate) fn household_id_param(req: &ApiRequest) -> Result<Uuid, ApiError> {
    let raw = req
        .query
        .get("household_id")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ApiError::validation(
                "household_id",
                "required",
                "household_id query parameter is required",
            )
        })?;
    Uuid::parse_str(raw)
        .map_err(|_| ApiError::validation("household_id", "invalid", "household_id must be a UUID"))
}

/// The household if the caller may see it (their account, their key's mode); else None, which
/// every endpoint answers as not found (another account's household is never revealed).
pub(crate) fn visible_household(fetched: Option<Household>, caller: &Caller) -> Option<Household> {
    fetched.filter(|h| is_visible(h, caller))
}

/// Whether the caller may see the household: their account, their key's mode.
pub(crate) fn is_visible(household: &Household, caller: &Caller) -> bool {
    household.account_id == caller.account.account_id && household.mode == caller.mode()
}

pub(crate) fn not_found() -> ApiError {
    ApiError::NotFound("Household not found".into())
}

/// The members' verifications, read in parallel, in the household's order (at most six reads).
pub(crate) async fn member_verifications<S: VerificationStore>(
    store: &S,
    household: &Household,
) -> Result<Vec<Verification>, StoreError> {
    let reads = household
        .members
        .iter()
        .map(|m| store.get_verification(m.verification_id));
    let found = futures::future::try_join_all(reads).await?;
    found
        .into_iter()
        .zip(&household.members)
        .map(|(v, m)| {
            v.ok_or_else(|| {
                StoreError::Corrupt(format!("household member {} missing", m.verification_id))
            })
        })
        .collect()
}

/// The household's state at `now`: the stored decision once written; cancelled once cancelled
/// (its cancel closed a member, so it is never decided); else read off the members.
pub(crate) fn state_of(
    household: &Household,
    members: &[Verification],
    now: DateTime<Utc>,
) -> HouseholdState {
    if let Some(decision) = &household.decision {
        return HouseholdState::Decided(decision.clone());
    }
    if household.cancelled_at.is_some() {
        return HouseholdState::Cancelled;
    }
    let outcomes: Vec<MemberOutcome> = (household.members.iter())
        .zip(members)
        .map(|(m, v)| MemberOutcome::of(v, m.role, now))
        .collect();
    household_state(
        &household.rent_terms(),
        household.guarantor_multiple,
        &outcomes,
    )
}

/// The household as GET /households shows it at `now`. A member the index still shows open in a
/// cancelled household is shown cancelled (`Household::member_as_of`), as its cancel wrote it.
pub(crate) fn household_view(
    household: &Household,
    members: &[Verification],
    now: DateTime<Utc>,
) -> Value {
    let members: Vec<Verification> = members.iter().map(|v| household.member_as_of(v)).collect();
    let members = members.as_slice();
    let state = state_of(household, members, now);
    let members_view: Vec<Value> = (household.members.iter())
        .zip(members)
        .map(|(m, v)| {
            let outcome = MemberOutcome::of(v, m.role, now);
            json!({
                "verification_id": v.verification_id,
                "role": m.role.as_str(),
                "tenant_email": v.tenant_email,
                "tenant_name": v.tenant_name,
                "status": outcome.status.as_str(),
                "completed_at": v.completed_at.map(format_ts),
                "monthly_income": outcome.monthly_income,
            })
        })
        .collect();
    let erased = household.erased_at.is_some();
    // Erased with a member: the address reads empty, the rent and the decision null.
    let mut property = match erased {
        true => json!({"address": "", "monthly_rent": Value::Null}),
        false => json!({
            "address": household.property_address,
            "monthly_rent": household.monthly_rent,
        }),
    };
    if let Some(subsidy) = household.rent_subsidy_monthly {
        property["rent_subsidy_monthly"] = json!(subsidy);
    }
    let (open_members, decision) = match &state {
        HouseholdState::Open { open_members } => (open_members.clone(), Value::Null),
        HouseholdState::Decided(_) if erased => (vec![], Value::Null),
        HouseholdState::Decided(d) => (vec![], serde_json::to_value(d).unwrap_or(Value::Null)),
        HouseholdState::Closed | HouseholdState::Cancelled => (vec![], Value::Null),
    };
    json!({
        "household_id": household.household_id,
        "status": state.as_str(),
        "property": property,
        "income_multiple": household.income_multiple,
        "guarantor_multiple": household.guarantor_multiple,
        "created_at": format_ts(household.created_at),
        "members": members_view,
        "open_members": open_members,
        "decision": decision,
        "decided_at": household.decided_at.map(format_ts),
        "cancelled_at": household.cancelled_at.map(format_ts),
        "erased_at": household.erased_at.map(format_ts),
    })
}

/// The household of the key's account and mode with its members, or not found.
pub(crate) async fn owned_household<S: VerificationStore>(
    store: &S,
    key: &PresentedKey,
    fetched: Option<Household>,
) -> Result<(Household, Vec<Verification>), ApiError> {
    let household = fetched
        .filter(|h| h.account_id == key.account_id && h.mode == key.mode)
        .ok_or_else(not_found)?;
    let members = member_verifications(store, &household).await?;
    Ok((household, members))
}
