//! Handlers of the five `/api/v1` endpoints, generic over the store and the clock.
//!
//! Every handler authenticates (key format, hash lookup, then one conditional update that checks
//! revocation, plan, subscription and the API allowance and counts the request), runs its
//! operation, and answers with the envelope and the `X-RateLimit-*` headers. Nothing here returns
//! `Err`: failures become enveloped errors.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tracing::Instrument;
use uuid::Uuid;

use crate::config::Settings;
use crate::domain::secrets::{generate_link_token, parse_api_key, sha256_hex};
use crate::domain::{
    Account, ApiKeyRecord, Mode, NewVerificationInput, Plan, Status, Transition, Verification,
    api_window_reset, format_ts, next_month_start, usage_month,
};
use crate::error::{ApiError, FieldError};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{
    Clock, CreateOutcome, IdempotencyClaim, LinkTokenOutcome, ListQuery, MeterOutcome, Store,
    StoreError, TransitionOutcome,
};

/// Largest accepted create body. API Gateway allows far more; nothing legitimate needs it.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;
/// Deep offsets cost O(offset) reads; past this, callers should filter instead.
pub const MAX_OFFSET: u32 = 10_000;
/// Replay links kept per verification: each Idempotency-Key replay answers with a fresh link and
/// the oldest replay link beyond this many stops working. The first response's link and the
/// e-mailed one are never dropped, so a verification has at most these + 2 live links.
pub const MAX_REPLAY_LINK_TOKENS: usize = 3;

/// Everything the HTTP handlers need, built once per cold start.
pub struct ApiDeps<S, C> {
    pub store: S,
    pub clock: C,
    pub settings: Settings,
    /// key hash -> key record. The mapping never changes (revocation is checked on the account in
    /// the metering write), so a warm function skips the key lookup.
    key_cache: Mutex<HashMap<String, ApiKeyRecord>>,
}

impl<S: Store, C: Clock> ApiDeps<S, C> {
    pub fn new(store: S, clock: C, settings: Settings) -> Self {
        ApiDeps {
            store,
            clock,
            settings,
            key_cache: Mutex::new(HashMap::new()),
        }
    }
}

/// The caller, once authenticated and metered.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account: Account,
    pub key: ApiKeyRecord,
    pub plan: Plan,
}

impl Caller {
    fn mode(&self) -> Mode {
        self.key.mode
    }
}

/// The API allowance as the headers and `/usage` report it.
#[derive(Debug, Clone)]
struct RateInfo {
    limit: u32,
    remaining: u32,
    reset: DateTime<Utc>,
}

impl RateInfo {
    fn of(account: &Account, plan: &Plan, now: DateTime<Utc>) -> Self {
        let used = if account.api_window.as_deref() == Some(crate::domain::api_window(now).as_str())
        {
            account.api_requests
        } else {
            0
        };
        RateInfo {
            limit: plan.api_requests_per_day,
            remaining: plan.api_requests_per_day.saturating_sub(used),
            reset: api_window_reset(now),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        // The span carries the request id; the store's text stays in the log.
        tracing::error!(error = %e, "store call failed");
        ApiError::Internal
    }
}

fn unauthorized(code: &'static str, message: &str) -> ApiError {
    ApiError::Unauthorized {
        code,
        message: message.to_string(),
    }
}

/// First half of authentication: the key's format, then its record (from the warm cache, or one
/// read). No allowance is counted yet.
async fn resolve_key<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
) -> Result<(ApiKeyRecord, String), ApiError> {
    let header = req.header("authorization").ok_or_else(|| {
        unauthorized(
            "missing_api_key",
            "Missing Authorization header; send 'Authorization: Bearer <API key>'",
        )
    })?;
    let (scheme, token) = header.trim().split_once(' ').unwrap_or((header, ""));
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(unauthorized(
            "invalid_authorization",
            "Authorization header must use the Bearer scheme",
        ));
    }
    let parsed = parse_api_key(token.trim())
        .ok_or_else(|| unauthorized("invalid_api_key", "API key is malformed"))?;
    let cached = deps
        .key_cache
        .lock()
        .expect("key cache")
        .get(&parsed.hash)
        .cloned();
    let key = match cached {
        Some(key) => key,
        None => {
            let key = deps
                .store
                .find_api_key(&parsed.hash)
                .await?
                .ok_or_else(|| unauthorized("invalid_api_key", "API key is not valid"))?;
            if key.revoked_at.is_none() {
                deps.key_cache
                    .lock()
                    .expect("key cache")
                    .insert(parsed.hash.clone(), key.clone());
            }
            key
        }
    };
    if key.revoked_at.is_some() || key.mode != parsed.mode {
        return Err(unauthorized("api_key_revoked", "API key has been revoked"));
    }
    Ok((key, parsed.hash))
}

/// Second half: one conditional write on the account checks revocation, plan and subscription
/// and counts the request against the daily allowance.
async fn meter<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    key: ApiKeyRecord,
    key_hash: &str,
    now: DateTime<Utc>,
) -> Result<(Caller, RateInfo), (ApiError, Option<RateInfo>)> {
    let plans = &deps.settings.plans;
    let plan_of = |account: &Account| plans.get(&account.plan).cloned();
    match deps
        .store
        .meter_api_request(&key.account_id, &key.key_id, now, plans)
        .await
        .map_err(|e| (ApiError::from(e), None))?
    {
        MeterOutcome::Allowed(account) => {
            let plan = plan_of(&account).ok_or((ApiError::Internal, None))?;
            let rate = RateInfo::of(&account, &plan, now);
            tracing::Span::current().record("account_id", account.account_id.as_str());
            Ok((Caller { account, key, plan }, rate))
        }
        MeterOutcome::UnknownAccount => Err((
            unauthorized("invalid_api_key", "API key is not valid"),
            None,
        )),
        MeterOutcome::KeyRevoked => {
            deps.key_cache.lock().expect("key cache").remove(key_hash);
            Err((
                unauthorized("api_key_revoked", "API key has been revoked"),
                None,
            ))
        }
        MeterOutcome::NoApiAccess(account) => Err((
            ApiError::Forbidden {
                code: "plan_without_api_access",
                message: format!(
                    "The '{}' plan does not include API access; upgrade to use the API",
                    account.plan
                ),
            },
            None,
        )),
        MeterOutcome::SubscriptionInactive(account) => Err((
            ApiError::Forbidden {
                code: "subscription_inactive",
                message: format!(
                    "Subscription is {}; API access needs an active subscription",
                    account.subscription_status.as_str()
                ),
            },
            plan_of(&account).map(|p| RateInfo::of(&account, &p, now)),
        )),
        MeterOutcome::LimitExceeded(account) => {
            let rate = plan_of(&account).map(|p| RateInfo::of(&account, &p, now));
            let retry_after = (api_window_reset(now) - now).num_seconds().max(1) as u64;
            Err((
                ApiError::RateLimited { retry_after },
                rate.map(|r| RateInfo { remaining: 0, ..r }),
            ))
        }
    }
}

/// Authenticates, runs `op`, and turns the outcome into the response with headers and logs.
///
/// `prefetch` runs the operation's reads at the same time as the metering write: a read needs only
/// the key's owner, and its result is used only once the request is allowed. That keeps a warm GET
/// at one DynamoDB round trip, and a write at two. Only O(1) reads belong there: a refused request
/// must not pay for more (so the list's page is read in `op`).
async fn respond<S, C, P, PF, T, F, Fut>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    prefetch: P,
    op: F,
) -> ApiResponse
where
    S: Store,
    C: Clock,
    P: FnOnce(ApiKeyRecord) -> PF,
    PF: Future<Output = T>,
    F: FnOnce(Caller, T, DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
{
    let span = tracing::info_span!(
        "api_request",
        request_id = %req.request_id,
        method = %req.method,
        path = %req.path,
        account_id = tracing::field::Empty,
    );
    async {
        let now = deps.clock.now();
        let (result, rate) = match resolve_key(deps, req).await {
            Err(e) => (Err(e), None),
            Ok((key, hash)) => {
                let (metered, fetched) =
                    futures::join!(meter(deps, key.clone(), &hash, now), prefetch(key));
                match metered {
                    Ok((caller, rate)) => (op(caller, fetched, now).await, Some(rate)),
                    Err((e, rate)) => (Err(e), rate),
                }
            }
        };
        let mut response = match result {
            Ok(resp) => {
                tracing::info!(status = resp.status, "request served");
                resp
            }
            Err(e) => {
                if e.status() >= 500 {
                    tracing::error!(status = e.status(), code = e.code(), "request failed");
                } else {
                    tracing::info!(status = e.status(), code = e.code(), "request refused");
                }
                error_response(&e, &req.request_id)
            }
        };
        if let Some(rate) = rate {
            response = response
                .with_header("x-ratelimit-limit", rate.limit.to_string())
                .with_header("x-ratelimit-remaining", rate.remaining.to_string())
                .with_header("x-ratelimit-reset", rate.reset.timestamp().to_string());
        }
        response.with_header("x-request-id", req.request_id.clone())
    }
    .instrument(span)
    .await
}

/// The enveloped error response, with the headers its status calls for.
pub fn error_response(e: &ApiError, request_id: &str) -> ApiResponse {
    let mut response = ApiResponse::json(e.status(), &e.body(request_id));
    match e {
        ApiError::Unauthorized { code, .. } => {
            let error = if *code == "missing_api_key" {
                "invalid_request"
            } else {
                "invalid_token"
            };
            response = response.with_header(
                "www-authenticate",
                format!("Bearer realm=\"api\", error=\"{error}\""),
            );
        }
        ApiError::RateLimited { retry_after } => {
            response = response.with_header("retry-after", retry_after.to_string());
        }
        _ => {}
    }
    response
}

// ---------------------------------------------------------------------------------------------
// Input parsing

fn field_error(field: &str, code: &'static str, message: impl Into<String>) -> FieldError {
    FieldError::new(field, code, message)
}

fn optional_string(
    body: &serde_json::Map<String, Value>,
    field: &str,
    max: usize,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) if s.chars().count() > max => {
            errors.push(field_error(
                field,
                "too_long",
                format!("{field} must be at most {max} characters"),
            ));
            None
        }
        Some(Value::String(s)) if s.chars().any(char::is_control) => {
            errors.push(field_error(
                field,
                "invalid",
                format!("{field} must not contain control characters"),
            ));
            None
        }
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(_) => {
            errors.push(field_error(
                field,
                "invalid_type",
                format!("{field} must be a string"),
            ));
            None
        }
    }
}

/// A pragmatic address check: one `@`, a dotted domain, no spaces, within RFC 5321 lengths.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && local.len() <= 64
        && !local.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && domain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !email
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',')
}

fn is_valid_phone(phone: &str) -> bool {
    let digits: String = phone.chars().filter(|c| c.is_ascii_digit()).collect();
    phone
        .chars()
        .enumerate()
        .all(|(i, c)| c.is_ascii_digit() || " -().".contains(c) || (c == '+' && i == 0))
        && (7..=15).contains(&digits.len())
}

/// Validates a create body and collects every field problem at once.
pub fn validate_create(
    body: &Value,
    local_webhook_origins: &crate::domain::webhook::LocalWebhookOrigins,
) -> Result<NewVerificationInput, ApiError> {
    let Some(body) = body.as_object() else {
        return Err(ApiError::validation(
            "body",
            "invalid_type",
            "Request body must be a JSON object",
        ));
    };
    let mut errors = Vec::new();
    let tenant_email = match body.get("tenant_email") {
        None | Some(Value::Null) => {
            errors.push(field_error(
                "tenant_email",
                "required",
                "tenant_email is required",
            ));
            None
        }
        Some(Value::String(s)) if is_valid_email(s.trim()) => Some(s.trim().to_string()),
        Some(Value::String(_)) => {
            errors.push(field_error(
                "tenant_email",
                "invalid",
                "tenant_email must be a valid e-mail address",
            ));
            None
        }
        Some(_) => {
            errors.push(field_error(
                "tenant_email",
                "invalid_type",
                "tenant_email must be a string",
            ));
            None
        }
    };
    let tenant_name = optional_string(body, "tenant_name", 200, &mut errors);
    let tenant_phone = optional_string(body, "tenant_phone", 32, &mut errors);
    if tenant_phone.as_deref().is_some_and(|p| !is_valid_phone(p)) {
        errors.push(field_error(
            "tenant_phone",
            "invalid",
            "tenant_phone must be a phone number of 7 to 15 digits",
        ));
    }
    let property_address = optional_string(body, "property_address", 500, &mut errors);
    let monthly_rent = match body.get("monthly_rent") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            // Rent is money: kept in whole cents (which also keeps it in DynamoDB's number range).
            Some(rent) if rent.is_finite() && (0.0..=10_000_000.0).contains(&rent) => {
                Some(((rent * 100.0).round() / 100.0).abs())
            }
            _ => {
                errors.push(field_error(
                    "monthly_rent",
                    "out_of_range",
                    "monthly_rent must be between 0 and 10000000",
                ));
                None
            }
        },
        Some(_) => {
            errors.push(field_error(
                "monthly_rent",
                "invalid_type",
                "monthly_rent must be a number",
            ));
            None
        }
    };
    let webhook_url = match optional_string(body, "webhook_url", 2048, &mut errors) {
        Some(url) => match crate::domain::webhook::check_url(&url, local_webhook_origins) {
            Ok(_) => Some(url),
            Err(reason) => {
                errors.push(field_error("webhook_url", "invalid", reason));
                None
            }
        },
        None => None,
    };
    match (tenant_email, errors.is_empty()) {
        (Some(tenant_email), true) => Ok(NewVerificationInput {
            tenant_email,
            tenant_name,
            tenant_phone,
            property_address,
            monthly_rent,
            webhook_url,
        }),
        _ => {
            let message = if errors.len() == 1 {
                errors[0].message.clone()
            } else {
                format!(
                    "{} fields are invalid: {}",
                    errors.len(),
                    errors
                        .iter()
                        .map(|e| e.field.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            Err(ApiError::Validation {
                message,
                details: errors,
            })
        }
    }
}

fn verification_id_param(req: &ApiRequest) -> Result<Uuid, ApiError> {
    let raw = req
        .query
        .get("verification_id")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ApiError::validation(
                "verification_id",
                "required",
                "verification_id query parameter is required",
            )
        })?;
    Uuid::parse_str(raw).map_err(|_| {
        ApiError::validation(
            "verification_id",
            "invalid",
            "verification_id must be a UUID",
        )
    })
}

fn integer_param(
    req: &ApiRequest,
    name: &str,
    default: u32,
    min: u32,
    max: Option<u32>,
) -> Result<u32, ApiError> {
    let Some(raw) = req.query.get(name) else {
        return Ok(default);
    };
    let value: i64 = raw.trim().parse().map_err(|_| {
        ApiError::validation(name, "invalid_type", format!("{name} must be an integer"))
    })?;
    if value < min as i64 {
        return Err(ApiError::validation(
            name,
            "out_of_range",
            format!("{name} must be at least {min}"),
        ));
    }
    // Saturate before narrowing: a huge value must stay huge (and fail a later bound), not wrap.
    let max = max.unwrap_or(u32::MAX) as i64;
    Ok(value.min(max) as u32)
}

/// Reads the verification named by the query, for a prefetch (errors surface after authentication).
async fn fetch_named<S: Store>(
    store: &S,
    req: &ApiRequest,
) -> Result<Option<Verification>, ApiError> {
    let id = verification_id_param(req)?;
    Ok(store.get_verification(id).await?)
}

/// The caller may see only their own verifications of their key's mode; anything else is 404.
fn visible(fetched: Option<Verification>, caller: &Caller) -> Result<Verification, ApiError> {
    match fetched {
        Some(v) if v.account_id == caller.account.account_id && v.mode == caller.mode() => Ok(v),
        _ => Err(ApiError::NotFound("Verification not found".into())),
    }
}

/// Loads a verification the caller may see: another owner's, or the other mode's, is 404.
async fn owned_verification<S: Store>(
    store: &S,
    caller: &Caller,
    id: Uuid,
) -> Result<Verification, ApiError> {
    match store.get_verification(id).await? {
        Some(v) if v.account_id == caller.account.account_id && v.mode == caller.mode() => Ok(v),
        _ => Err(ApiError::NotFound("Verification not found".into())),
    }
}

fn verification_url(settings: &Settings, req: &ApiRequest, id: Uuid, token: &str) -> String {
    let base = match &settings.public_base_url {
        Some(base) => base.clone(),
        None => format!("https://{}", req.header("host").unwrap_or("localhost")),
    };
    format!("{base}/t/{id}/{token}")
}

// ---------------------------------------------------------------------------------------------
// Handlers

/// POST /api/v1/verify
pub async fn create_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    respond(
        deps,
        &req,
        |_| async {},
        |caller, (), now| create_op(deps, &req, caller, now),
    )
    .await
}

async fn create_op<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    caller: Caller,
    now: DateTime<Utc>,
) -> Result<ApiResponse, ApiError> {
    // A live verification needs real income data; without a provider it could never complete.
    if caller.mode() == Mode::Live && deps.settings.live_income == crate::config::LiveIncome::None {
        return Err(ApiError::Forbidden {
            code: "live_mode_unavailable",
            message: "Live verifications are not available on this service yet (no income \
                      provider is configured); test keys work"
                .into(),
        });
    }
    let content_type = req.header("content-type").unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        return Err(ApiError::UnsupportedMediaType);
    }
    if req.body.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge {
            limit: MAX_BODY_BYTES,
        });
    }
    let body: Value = serde_json::from_slice(&req.body).map_err(|e| {
        // serde_json's message names a line and column, never the content.
        ApiError::InvalidJson(format!("line {} column {}", e.line(), e.column()))
    })?;
    let input = validate_create(&body, &deps.settings.local_webhook_origins)?;
    let idempotency = match req.header("idempotency-key") {
        None => None,
        Some(key)
            if key.is_empty()
                || key.len() > 255
                || !key.bytes().all(|b| (0x21..0x7f).contains(&b)) =>
        {
            return Err(ApiError::validation(
                "Idempotency-Key",
                "invalid",
                "Idempotency-Key must be 1 to 255 visible ASCII characters",
            ));
        }
        Some(key) => Some(IdempotencyClaim {
            key_hash: sha256_hex(
                format!(
                    "{}\n{}\n{key}",
                    caller.account.account_id,
                    caller.mode().as_str()
                )
                .as_bytes(),
            ),
            // serde_json's map is ordered, so this is a canonical form of the body.
            body_hash: sha256_hex(body.to_string().as_bytes()),
        }),
    };
    let (token, token_hash) = generate_link_token();
    let mut v = Verification::new_pending(
        &caller.account.account_id,
        caller.mode(),
        input,
        now,
        deps.settings.verification_lifetime,
    );
    v.token_hashes = vec![token_hash];
    // Test verifications are never charged against the monthly allowance.
    let monthly_limit =
        (caller.mode() == Mode::Live).then_some(caller.plan.verifications_per_month);
    match deps
        .store
        .create_verification(&v, idempotency.as_ref(), monthly_limit)
        .await?
    {
        CreateOutcome::Created => {
            tracing::info!(verification_id = %v.verification_id, "verification created");
            Ok(created_response(
                &v,
                &verification_url(&deps.settings, req, v.verification_id, &token),
            ))
        }
        CreateOutcome::LimitReached => Err(ApiError::Forbidden {
            code: "verification_limit_reached",
            message: format!(
                "The monthly allowance of {} verifications is used up; it resets at {}",
                caller.plan.verifications_per_month,
                format_ts(next_month_start(now))
            ),
        }),
        CreateOutcome::IdempotencyConflict(record) => {
            let same_body = idempotency
                .as_ref()
                .is_some_and(|c| c.body_hash == record.body_hash);
            if !same_body {
                return Err(ApiError::IdempotencyMismatch);
            }
            let existing = owned_verification(&deps.store, &caller, record.verification_id).await?;
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
    }
}

fn created_response(v: &Verification, url: &str) -> ApiResponse {
    ApiResponse::json(
        201,
        &json!({
            "success": true,
            "data": {
                "verification_id": v.verification_id,
                "verification_url": url,
                "tenant_email": v.tenant_email,
                "status": Status::Pending.as_str(),
                "expires_at": format_ts(v.expires_at),
            }
        }),
    )
}

/// The verification as GET /verify shows it (contract §2.3).
pub fn render_verification(v: &Verification, now: DateTime<Utc>) -> Value {
    let status = v.effective_status(now);
    let mut data = json!({
        "verification_id": v.verification_id,
        "status": status.as_str(),
        "tenant": { "email": v.tenant_email, "name": v.tenant_name },
        "property": { "address": v.property_address, "monthly_rent": v.monthly_rent },
        "created_at": format_ts(v.created_at),
        "completed_at": v.completed_at.map(format_ts),
    });
    if status == Status::Completed
        && let Some(report) = &v.income_report
    {
        data["income_report"] = serde_json::to_value(report).unwrap_or(Value::Null);
    }
    data
}

/// GET /api/v1/verify?verification_id=...
pub async fn get_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_| fetch_named(&deps.store, req);
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let v = visible(fetched?, &caller)?;
        Ok(ApiResponse::json(
            200,
            &json!({ "success": true, "data": render_verification(&v, now) }),
        ))
    })
    .await
}

/// DELETE /api/v1/verify?verification_id=...
pub async fn cancel_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |_| fetch_named(&deps.store, req);
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let mut current = visible(fetched?, &caller)?;
        let id = current.verification_id;
        // The conditional write settles races with the tenant and the expiry sweeper; on a lost
        // race the fresh state decides.
        for _ in 0..3 {
            let status = current.effective_status(now);
            if !status.is_open() {
                let shown = if current.cancelled_at.is_some() {
                    "already cancelled"
                } else {
                    status.as_str()
                };
                return Err(ApiError::NotCancellable { status: shown });
            }
            match deps
                .store
                .transition(&current, &Transition::Cancel, now)
                .await?
            {
                TransitionOutcome::Applied(_) => {
                    tracing::info!(verification_id = %id, "verification cancelled");
                    return Ok(ApiResponse::json(
                        200,
                        &json!({
                            "success": true,
                            "message": "Verification cancelled",
                            "data": { "verification_id": id, "status": "cancelled" },
                        }),
                    ));
                }
                TransitionOutcome::Conflict(Some(fresh)) => current = fresh,
                TransitionOutcome::Conflict(None) => {
                    return Err(ApiError::NotFound("Verification not found".into()));
                }
            }
        }
        tracing::error!(verification_id = %id, "cancel kept losing races");
        Err(ApiError::Internal)
    })
    .await
}

/// The list query of a request, for the caller's account and mode, as seen at `now`.
fn list_query(
    req: &ApiRequest,
    caller: &Caller,
    now: DateTime<Utc>,
    lifetime: chrono::Duration,
) -> Result<ListQuery, ApiError> {
    let limit = integer_param(req, "limit", DEFAULT_LIMIT, 1, Some(MAX_LIMIT))?;
    let offset = integer_param(req, "offset", 0, 0, None)?;
    if offset > MAX_OFFSET {
        return Err(ApiError::validation(
            "offset",
            "out_of_range",
            format!("offset must be at most {MAX_OFFSET}; filter by status to narrow the list"),
        ));
    }
    let status = match req.query.get("status").map(|s| s.trim()) {
        None | Some("") => None,
        Some(raw) => Some(Status::parse(raw).ok_or_else(|| {
            ApiError::validation(
                "status",
                "invalid",
                "status must be one of pending, in_progress, completed, expired, failed",
            )
        })?),
    };
    Ok(ListQuery {
        account_id: caller.account.account_id.clone(),
        mode: caller.mode(),
        status,
        offset,
        limit,
        expired_if_created_by: now - lifetime,
    })
}

/// GET /api/v1/verifications?limit=&offset=&status=
pub async fn list_verifications<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    // No prefetch: a page costs O(offset+limit) reads, so it starts only once the metering write
    // has allowed the request (a refused request costs O(1)).
    let prefetch = |_: ApiKeyRecord| async {};
    respond(deps, req, prefetch, |caller, (), now| async move {
        let query = list_query(req, &caller, now, deps.settings.verification_lifetime)?;
        let page = deps.store.list_verifications(&query).await?;
        let ListQuery { limit, offset, .. } = query;
        let items: Vec<Value> = page
            .items
            .iter()
            .map(|v| {
                json!({
                    "id": v.verification_id,
                    "tenant_email": v.tenant_email,
                    "tenant_name": v.tenant_name,
                    "property_address": v.property_address,
                    "monthly_rent": v.monthly_rent,
                    "status": v.effective_status(now).as_str(),
                    "created_at": format_ts(v.created_at),
                    "completed_at": v.completed_at.map(format_ts),
                })
            })
            .collect();
        Ok(ApiResponse::json(
            200,
            &json!({
                "success": true,
                "data": items,
                "pagination": { "limit": limit, "offset": offset, "total": page.total },
            }),
        ))
    })
    .await
}

/// GET /api/v1/usage
pub async fn get_usage<S: Store, C: Clock>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse {
    let req = &req;
    let prefetch = |key: ApiKeyRecord| async move {
        let month = usage_month(deps.clock.now());
        deps.store
            .owner_stats(&key.account_id, key.mode, &month)
            .await
    };
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let (stats, month) = fetched?;
        let rate = RateInfo::of(&caller.account, &caller.plan, now);
        let limit = caller.plan.verifications_per_month as u64;
        Ok(ApiResponse::json(
            200,
            &json!({
                "success": true,
                "data": {
                    "plan": caller.plan.name,
                    "verifications": {
                        "used_this_month": month.created,
                        "limit": limit,
                        "remaining": limit.saturating_sub(month.created),
                        "total_all_time": stats.total,
                        "completed_this_month": month.completed,
                    },
                    "api": {
                        "requests_limit": rate.limit,
                        "requests_remaining": rate.remaining,
                        "resets_at": format_ts(rate.reset),
                    },
                    "subscription": {
                        "status": caller.account.subscription_status.as_str(),
                        "current_period_end": format_ts(caller.account.current_period_end),
                    },
                }
            }),
        ))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_body_validation_collects_every_problem() {
        let none = crate::domain::webhook::LocalWebhookOrigins::default();
        let ok = validate_create(
            &json!({"tenant_email": " a.b+good@example.com ", "monthly_rent": 1500, "tenant_phone": "+1 (555) 010-9999"}),
            &none,
        )
        .unwrap();
        assert_eq!(ok.tenant_email, "a.b+good@example.com");
        assert_eq!(ok.monthly_rent, Some(1500.0));

        let err = validate_create(&json!({}), &none).unwrap_err();
        assert_eq!(err.details()[0].field, "tenant_email");
        assert_eq!(err.details()[0].code, "required");

        let err = validate_create(
            &json!({"tenant_email": "nope", "monthly_rent": "12", "webhook_url": "http://x.example.com", "tenant_phone": "12"}),
            &none,
        )
        .unwrap_err();
        let fields: Vec<&str> = err.details().iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "tenant_email",
                "tenant_phone",
                "monthly_rent",
                "webhook_url"
            ]
        );
        assert_eq!(err.status(), 400);
        // The message names fields, never their values.
        assert!(!err.to_string().contains("nope"));

        assert!(validate_create(&json!([1]), &none).is_err());
        let rent = |r: f64| {
            validate_create(&json!({"tenant_email": "a@b.co", "monthly_rent": r}), &none)
                .unwrap()
                .monthly_rent
        };
        assert_eq!(
            rent(1e-149),
            Some(0.0),
            "far below a cent: zero, not a DynamoDB underflow"
        );
        assert_eq!(rent(1500.456), Some(1500.46));
        assert!(rent(-0.0).unwrap().is_sign_positive());
        assert!(
            validate_create(
                &json!({"tenant_email": "a@b.co", "monthly_rent": -1}),
                &none
            )
            .is_err()
        );
    }

    #[test]
    fn email_rules() {
        for good in ["a@b.co", "first.last+tag@sub.example.org"] {
            assert!(is_valid_email(good), "{good}");
        }
        for bad in [
            "", "a", "a@b", "@b.co", "a@.co", "a b@c.co", "a@b..co", "a@b.co.", "<a@b.co>",
        ] {
            assert!(!is_valid_email(bad), "{bad}");
        }
    }
}
