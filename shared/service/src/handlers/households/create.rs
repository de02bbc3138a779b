//! `create-household`: POST /api/v1/households. Validates the body, honours `Idempotency-Key` as
//! POST /verify does (same body: the same household with fresh links; another body: 422), and
//! writes the household with one verification per member in ONE transaction that checks the
//! monthly allowance for all of them at once; that transaction also counts the request (one
//! DynamoDB round trip); a refusal is told by what it saw. Each member's invite e-mail is sent by
//! `publish-events` from the stream, as for any verification.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::config::Settings;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::api::validate::{idempotency_claim, invalid_fields, json_body, resolve_phone};
use crate::handlers::api::{ApiDeps, MAX_REPLAY_LINK_TOKENS};
use crate::handlers::households::body::validate_household;
use crate::handlers::households::{not_found, owned_household};
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::household::{Household, HouseholdShape, MemberRole};
use domain::metering::PresentedKey;
use domain::secrets::generate_link_token;
use domain::tenant_link::tenant_link;
use domain::{Mode, Status, Verification, format_ts, next_month_start};
use ports::{
    Clock, CreateRefusal, HouseholdStore, IdempotencyClaim, LinkTokenOutcome, MeterStore,
    MeteredHousehold, VerificationStore,
};

/// Largest accepted body: six members and the property fit in far less.
pub const MAX_BODY_BYTES: usize = 32 * 1024;

/// POST /api/v1/households
pub async fn create_household<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + HouseholdStore + VerificationStore,
    C: Clock,
{
    respond_metered(deps, &req, |key, now| create(deps, &req, key, now)).await
}

/// A household ready to be written, and its members' links for the response.
struct Prepared {
    household: Household,
    members: Vec<Verification>,
    tokens: Vec<String>,
    idempotency: Option<IdempotencyClaim>,
}

/// The create with its metering in ONE write (`MeterStore::meter_and_create_household`), for a
/// test or a live key alike (the write checks a live household against the monthly allowance of
/// whichever plan the account has, for all members at once). A refusal says why: the allowance,
/// or the Idempotency-Key used before (then its household is answered again).
async fn create<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt
where
    S: MeterStore + HouseholdStore + VerificationStore,
    C: Clock,
{
    let prepared = match prepare(deps, req, &key, now) {
        Ok(prepared) => prepared,
        Err(e) => return Attempt::Invalid(e),
    };
    let written = deps
        .store
        .meter_and_create_household(&MeteredHousehold {
            key: &key,
            now,
            plans: &deps.settings.plans,
            household: &prepared.household,
            members: &prepared.members,
            idempotency: prepared.idempotency.as_ref(),
        })
        .await;
    attempt(written, |account, done| async move {
        match done {
            Ok(()) => Ok(created(deps, req, &prepared)),
            Err(CreateRefusal::LimitReached) => {
                let allowance = (deps.settings.plans.get(&account.plan))
                    .map_or(0, |p| p.verifications_per_month);
                Err(ApiError::Forbidden {
                    code: "verification_limit_reached",
                    message: format!(
                        "The monthly allowance of {allowance} verifications does not cover these \
                         {} members; it resets at {}",
                        prepared.members.len(),
                        format_ts(next_month_start(now))
                    ),
                })
            }
            Err(CreateRefusal::IdempotencyConflict(record)) => {
                let same_body = (prepared.idempotency.as_ref())
                    .is_some_and(|c| c.body_hash == record.body_hash);
                let Some(existing_id) = record.household_id.filter(|_| same_body) else {
                    return Err(ApiError::IdempotencyMismatch);
                };
                replay(deps, req, &key, existing_id).await
            }
        }
    })
    .await
}

/// The 201 of a created household.
fn created<S, C>(deps: &ApiDeps<S, C>, req: &ApiRequest, prepared: &Prepared) -> ApiResponse {
    let Prepared {
        household,
        members,
        tokens,
        ..
    } = prepared;
    tracing::info!(household_id = %household.household_id, members = members.len(), "household created");
    created_response(&deps.settings, req, household, members, tokens)
}

/// Everything a create does before it writes: the offline checks (live mode available, body,
/// Idempotency-Key) and the household with one new verification per member and their links.
fn prepare<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: &PresentedKey,
    now: DateTime<Utc>,
) -> Result<Prepared, ApiError> {
    if key.mode == Mode::Live && deps.settings.live_income.is_none() {
        return Err(ApiError::Forbidden {
            code: "live_mode_unavailable",
            message: "Live verifications are not available on this service yet (no income \
                      provider is configured); test keys work"
                .into(),
        });
    }
    let body = json_body(req, MAX_BODY_BYTES)?;
    let mut input = validate_household(&body, &deps.settings.local_webhook_origins)?;
    let refused: Vec<_> = (input.members.iter_mut().enumerate())
        .filter_map(|(i, (tenant, _))| {
            let field = format!("members[{i}].tenant_phone");
            resolve_phone(tenant, &deps.settings, &field).err()
        })
        .collect();
    if !refused.is_empty() {
        return Err(invalid_fields(refused));
    }
    let idempotency = idempotency_claim(req, &key.account_id, key.mode, &body)?;
    // The id names the members' count and roles, and each member's id follows from it
    // (`HouseholdShape`), so a cancel names them all without a read.
    let roles: Vec<MemberRole> = input.members.iter().map(|(_, role)| *role).collect();
    let shape = HouseholdShape::new(&roles).ok_or(ApiError::Internal)?;
    let household_id = shape.new_household_id();
    let mut tokens = Vec::new();
    let household_members = shape.members(household_id);
    let members: Vec<Verification> = (household_members.iter().zip(&input.members))
        .map(|(member, (tenant, role))| {
            let tenant = tenant.clone();
            let mut v = Verification::new_pending(
                &key.account_id,
                key.mode,
                tenant,
                now,
                deps.settings.verification_lifetime,
            );
            v.verification_id = member.verification_id;
            let (token, token_hash) = generate_link_token();
            v.token_hashes = vec![token_hash];
            v.household_id = Some(household_id);
            v.household_role = Some(*role);
            tokens.push(token);
            v
        })
        .collect();
    let household = Household {
        household_id,
        account_id: key.account_id.clone(),
        mode: key.mode,
        created_at: now,
        property_address: input.property.property_address.clone(),
        monthly_rent: input.monthly_rent,
        rent_subsidy_monthly: input.property.rent_subsidy_monthly,
        income_multiple: input.property.income_multiple,
        guarantor_multiple: input.guarantor_multiple,
        webhook_url: input.property.webhook_url.clone(),
        members: household_members,
        decision: None,
        decided_at: None,
        cancelled_at: None,
        erased_at: None,
    };
    Ok(Prepared {
        household,
        members,
        tokens,
        idempotency,
    })
}

/// The first answer again, with a fresh link per member (tokens are stored only as hashes), in
/// each member's bounded set of replay links; the first links keep working.
async fn replay<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: &PresentedKey,
    household_id: Uuid,
) -> Result<ApiResponse, ApiError>
where
    S: HouseholdStore + VerificationStore,
{
    let fetched = deps.store.get_household(household_id).await?;
    let (household, members) = owned_household(&deps.store, key, fetched).await?;
    let mut tokens = Vec::new();
    for member in &members {
        let (token, token_hash) = generate_link_token();
        match deps
            .store
            .add_recent_link_token(member, &token_hash, MAX_REPLAY_LINK_TOKENS)
            .await?
        {
            LinkTokenOutcome::Added => tokens.push(token),
            LinkTokenOutcome::NotFound => return Err(not_found()),
            LinkTokenOutcome::Contended => return Err(ApiError::IdempotencyInFlight),
        }
    }
    tracing::info!(household_id = %household_id, "idempotent household replay");
    Ok(
        created_response(&deps.settings, req, &household, &members, &tokens)
            .with_header("idempotent-replayed", "true"),
    )
}

/// The 201 of a create (and of its replays).
fn created_response(
    settings: &Settings,
    req: &ApiRequest,
    household: &Household,
    members: &[Verification],
    tokens: &[String],
) -> ApiResponse {
    let base = match &settings.public_base_url {
        Some(base) => base.clone(),
        None => format!("https://{}", req.header("host").unwrap_or("localhost")),
    };
    let members: Vec<Value> = (household.members.iter())
        .zip(members)
        .zip(tokens)
        .map(|((m, v), token)| {
            json!({
                "verification_id": v.verification_id,
                "verification_url": tenant_link(&base, v.verification_id, token),
                "tenant_email": v.tenant_email,
                "role": m.role.as_str(),
                "status": Status::Pending.as_str(),
                "expires_at": format_ts(v.expires_at),
            })
        })
        .collect();
    ApiResponse::json(
        201,
        &json!({
            "success": true,
            "data": {
                "household_id": household.household_id,
                "status": "open",
                "created_at": format_ts(household.created_at),
                "members": members,
            }
        }),
    )
}
