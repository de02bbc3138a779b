//! `create-verification`: POST /api/v1/verify. Validates the body, honours `Idempotency-Key`
//! (a replay answers the first verification with a fresh link and sends no second e-mail), and
//! creates the verification, within the plan's monthly allowance for live keys. The tenant
//! e-mail is sent by `publish-events` from the table's stream.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::config::Settings;
use crate::handlers::api::ownership::owned_verification;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::api::validate::{
    check_methods_available, idempotency_claim, invalid_fields, json_body, resolve_phone,
    validate_create,
};
use crate::handlers::api::views::created_response;
use crate::handlers::api::{ApiDeps, MAX_BODY_BYTES, MAX_REPLAY_LINK_TOKENS};
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::metering::PresentedKey;
use domain::methods;
use domain::secrets::generate_link_token;
use domain::tenant_link::tenant_link;
use domain::{Account, Mode, Verification, format_ts, next_month_start};
use ports::{
    Clock, CreateRefusal, IdempotencyClaim, IdempotencyRecord, LinkTokenOutcome, MeterStore,
    MeteredCreate, VerificationStore,
};

/// POST /api/v1/verify
pub async fn create_verification<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + VerificationStore,
    C: Clock,
{
    respond_metered(deps, &req, |key, now| create(deps, &req, key, now)).await
}

/// A verification ready to be written, and its link for the response.
struct Prepared {
    verification: Verification,
    token: String,
    idempotency: Option<IdempotencyClaim>,
}

/// The create with its metering in ONE write (`MeterStore::meter_and_create`), built before any
/// read for a test or a live key alike: the write checks a live create against the monthly
/// allowance of whichever plan the account has. A refusal says why: the allowance used up, or
/// the Idempotency-Key used before (then its verification is answered again).
async fn create<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt
where
    S: MeterStore + VerificationStore,
    C: Clock,
{
    let prepared = match prepare(deps, req, &key, now) {
        Ok(prepared) => prepared,
        Err(e) => return Attempt::Invalid(e),
    };
    let written = deps
        .store
        .meter_and_create(&MeteredCreate {
            key: &key,
            now,
            plans: &deps.settings.plans,
            verification: &prepared.verification,
            idempotency: prepared.idempotency.as_ref(),
        })
        .await;
    attempt(written, |account, done| async move {
        match done {
            Ok(()) => Ok(created(deps, req, &prepared)),
            Err(CreateRefusal::LimitReached) => Err(limit_reached(deps, &account, now)),
            Err(CreateRefusal::IdempotencyConflict(record)) => {
                replay(deps, req, &key, &prepared, record).await
            }
        }
    })
    .await
}

/// The 403 of a create past the monthly allowance of the account's plan.
pub(crate) fn limit_reached<S, C>(
    deps: &ApiDeps<S, C>,
    account: &Account,
    now: DateTime<Utc>,
) -> ApiError {
    let allowance =
        (deps.settings.plans.get(&account.plan)).map_or(0, |p| p.verifications_per_month);
    ApiError::Forbidden {
        code: "verification_limit_reached",
        message: format!(
            "The monthly allowance of {allowance} verifications is used up; it resets at {}",
            format_ts(next_month_start(now))
        ),
    }
}

/// The 201 of a created verification.
fn created<S, C>(deps: &ApiDeps<S, C>, req: &ApiRequest, prepared: &Prepared) -> ApiResponse {
    let v = &prepared.verification;
    tracing::info!(verification_id = %v.verification_id, "verification created");
    created_response(
        v,
        &verification_url(&deps.settings, req, v.verification_id, &prepared.token),
    )
}

/// Everything a create does before it writes: the offline checks (live mode available, media
/// type, size, JSON, fields, Idempotency-Key) and the new verification with its first link.
fn prepare<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: &PresentedKey,
    now: DateTime<Utc>,
) -> Result<Prepared, ApiError> {
    // A live verification needs real income data; without a provider it could never complete.
    if key.mode == Mode::Live && deps.settings.live_income.is_none() {
        return Err(ApiError::Forbidden {
            code: "live_mode_unavailable",
            message: "Live verifications are not available on this service yet (no income \
                      provider is configured); test keys work"
                .into(),
        });
    }
    let body = json_body(req, MAX_BODY_BYTES)?;
    let mut input = validate_create(&body, &deps.settings.local_webhook_origins)?;
    check_methods_available(
        &input.methods,
        &methods::available(
            &deps.settings.live_income.methods(),
            key.mode,
            deps.settings.documents,
        ),
    )?;
    resolve_phone(&mut input, &deps.settings, "tenant_phone")
        .map_err(|e| invalid_fields(vec![e]))?;
    let idempotency = idempotency_claim(req, &key.account_id, key.mode, &body)?;
    let (token, token_hash) = generate_link_token();
    let mut v = Verification::new_pending(
        &key.account_id,
        key.mode,
        input,
        now,
        deps.settings.verification_lifetime,
    );
    v.token_hashes = vec![token_hash];
    Ok(Prepared {
        verification: v,
        token,
        idempotency,
    })
}

/// A create whose Idempotency-Key was used before: the same body answers the first verification
/// again, with a fresh link; another body is 422.
async fn replay<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: &PresentedKey,
    prepared: &Prepared,
    record: IdempotencyRecord,
) -> Result<ApiResponse, ApiError>
where
    S: VerificationStore,
{
    let same_body =
        (prepared.idempotency.as_ref()).is_some_and(|c| c.body_hash == record.body_hash);
    if !same_body {
        return Err(ApiError::IdempotencyMismatch);
    }
    let existing = owned_verification(&deps.store, key, record.verification_id).await?;
    // Tokens are stored only as hashes, so the replay carries a fresh link to the same
    // verification, in a bounded set of replay links; the first link keeps working.
    let (token, token_hash) = generate_link_token();
    match deps
        .store
        .add_recent_link_token(&existing, &token_hash, MAX_REPLAY_LINK_TOKENS)
        .await?
    {
        LinkTokenOutcome::Added => {}
        LinkTokenOutcome::NotFound => {
            return Err(ApiError::NotFound("Verification not found".into()));
        }
        // Many replays of this key at once: the client may retry.
        LinkTokenOutcome::Contended => return Err(ApiError::IdempotencyInFlight),
    }
    tracing::info!(verification_id = %existing.verification_id, "idempotent replay");
    Ok(created_response(
        &existing,
        &verification_url(&deps.settings, req, existing.verification_id, &token),
    )
    .with_header("idempotent-replayed", "true"))
}

/// The tenant link of a create response: under the configured public origin, else the request's
/// own host.
fn verification_url(settings: &Settings, req: &ApiRequest, id: Uuid, token: &str) -> String {
    let base = match &settings.public_base_url {
        Some(base) => base.clone(),
        None => format!("https://{}", req.header("host").unwrap_or("localhost")),
    };
    tenant_link(&base, id, token)
}
