//! Authentication of an API request in two halves: the key (format and checksum, offline: the
//! key names its account) and the metering of it on that account (the key listed there and not
//! revoked, plan, subscription, the daily allowance, the key's burst), plus the allowance as the
//! rate headers report it.

use chrono::{DateTime, Utc};

use crate::handlers::api::ApiDeps;
use crate::http::ApiRequest;
use domain::error::ApiError;
use domain::metering::{MeterRefusal, PresentedKey};
use domain::secrets::{key_id_for_hash, parse_api_key};
use domain::{Account, Mode, Plan, api_window_reset};
use ports::{Clock, MeterOutcome, MeterStore};

/// The caller, once authenticated and metered.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account: Account,
    pub key: PresentedKey,
    pub plan: Plan,
}

impl Caller {
    pub(crate) fn mode(&self) -> Mode {
        self.key.mode
    }
}

/// The API allowance as the headers and `/usage` report it.
#[derive(Debug, Clone)]
pub(crate) struct RateInfo {
    pub(crate) limit: u32,
    pub(crate) remaining: u32,
    pub(crate) reset: DateTime<Utc>,
}

impl RateInfo {
    pub(crate) fn of(account: &Account, plan: &Plan, now: DateTime<Utc>) -> Self {
        let used = if account.api_window.as_deref() == Some(domain::api_window(now).as_str()) {
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

fn unauthorized(code: &'static str, message: &str) -> ApiError {
    ApiError::Unauthorized {
        code,
        message: message.to_string(),
    }
}

/// First half of authentication: the key's format and checksum, offline. The key names its
/// account, which the metering write checks it against. No allowance is counted yet.
pub(super) fn resolve_key(req: &ApiRequest) -> Result<PresentedKey, ApiError> {
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
    Ok(PresentedKey {
        key_id: key_id_for_hash(&parsed.hash),
        key_hash: parsed.hash,
        account_id: parsed.account_id,
        mode: parsed.mode,
    })
}

/// A request a write carrying its own metering counted: its rate headers. None only for a plan
/// the configuration does not know.
pub(super) fn counted<S, C>(
    deps: &ApiDeps<S, C>,
    account: &Account,
    now: DateTime<Utc>,
) -> Option<RateInfo> {
    let plan = deps.settings.plans.get(&account.plan)?;
    tracing::Span::current().record("account_id", account.account_id.as_str());
    Some(RateInfo::of(account, plan, now))
}

/// Second half: the store reads the account and its usage, the domain's rule checks the key
/// (listed there, not revoked), plan, subscription and the key's burst, and one conditional write
/// counts the request against the daily allowance.
pub(super) async fn meter<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Result<(Caller, RateInfo), (ApiError, Option<RateInfo>)> {
    let plans = &deps.settings.plans;
    match deps
        .store
        .meter_api_request(&key, now, plans)
        .await
        .map_err(|e| (ApiError::from(e), None))?
    {
        MeterOutcome::Allowed(account) => {
            let plan = plans
                .get(&account.plan)
                .cloned()
                .ok_or((ApiError::Internal, None))?;
            let rate = RateInfo::of(&account, &plan, now);
            tracing::Span::current().record("account_id", account.account_id.as_str());
            Ok((Caller { account, key, plan }, rate))
        }
        MeterOutcome::Refused(refusal) => Err(refused(deps, refusal, now)),
    }
}

/// The answer to a request the account refused, whichever write metered it: the error and, once
/// the account is known, its rate headers.
pub(super) fn refused<S, C>(
    deps: &ApiDeps<S, C>,
    refusal: MeterRefusal,
    now: DateTime<Utc>,
) -> (ApiError, Option<RateInfo>) {
    let plan_of = |account: &Account| deps.settings.plans.get(&account.plan).cloned();
    match refusal {
        MeterRefusal::UnknownAccount => (
            unauthorized("invalid_api_key", "API key is not valid"),
            None,
        ),
        MeterRefusal::KeyRevoked => (
            unauthorized("api_key_revoked", "API key has been revoked"),
            None,
        ),
        MeterRefusal::NoApiAccess(account) => (
            ApiError::Forbidden {
                code: "plan_without_api_access",
                message: format!(
                    "The '{}' plan does not include API access; upgrade to use the API",
                    account.plan
                ),
            },
            None,
        ),
        MeterRefusal::SubscriptionInactive(account) => (
            ApiError::Forbidden {
                code: "subscription_inactive",
                message: format!(
                    "Subscription is {}; API access needs an active subscription",
                    account.subscription_status.as_str()
                ),
            },
            plan_of(&account).map(|p| RateInfo::of(&account, &p, now)),
        ),
        MeterRefusal::LimitExceeded(account) => {
            let rate = plan_of(&account).map(|p| RateInfo::of(&account, &p, now));
            let retry_after = (api_window_reset(now) - now).num_seconds().max(1) as u64;
            (
                ApiError::RateLimited { retry_after },
                rate.map(|r| RateInfo { remaining: 0, ..r }),
            )
        }
        // The day may have room: the headers say how much; only this key waits, a second or so.
        MeterRefusal::BurstExceeded(account, wait_ms) => (
            ApiError::KeyBurstExceeded {
                retry_after: wait_ms.div_ceil(1000).max(1),
            },
            plan_of(&account).map(|p| RateInfo::of(&account, &p, now)),
        ),
    }
}
