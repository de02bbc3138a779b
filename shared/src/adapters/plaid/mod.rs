//! Plaid Bank Income adapter of the `IncomeProvider` port.
//!
//! The flow, as Plaid's Income product defines it:
//!
//! 1. `create_user` (at the tenant's consent): `/user/create`, one Plaid user per attempt
//!    (`client_user_id` is the verification id plus a random suffix, never personal data). The
//!    handle `"{client_user_id} {user_token}"` is stored with the consent in one write.
//! 2. `begin` (every connect page): `/link/token/create` for that user and the
//!    `income_verification` product, restricted to bank income over the last 365 days. A fresh
//!    link token per page: tokens expire after four hours, so a stored one would strand a tenant
//!    who comes back (after `PRODUCT_NOT_READY`, or the next day).
//! 3. `fetch_income`: `/credit/bank_income/get` with that user token; every bank income source of
//!    the most recent report (all its Items) becomes one [`ProviderIncomeSource`]: name from
//!    `income_description` (else the account and institution), category through
//!    [`normalise_category`], method `Bank`, no provider confidence.
//!
//! # Amounts
//!
//! Plaid gives each source a `total_amount` over an observed window, `start_date..=end_date` (first
//! and last deposit); without those dates the window is the extent of the source's
//! `historical_summary` months, and without that the report's `days_requested`.
//!
//! - **Regular** (`WEEKLY`, `BIWEEKLY`, `SEMI_MONTHLY`, `MONTHLY`, `DAILY`): the window from the
//!   first to the last deposit holds `round(days / period) + 1` pay periods, `period` being the
//!   average period length (`365.25 / 12` days divided by the frequency's periods per month).
//!   `amount_per_period = total_amount / periods`, so a missed paycheck lowers the figure instead
//!   of being averaged away. `months_of_history = periods / periods_per_month`, rounded, at least 1
//!   (each deposit pays for one period: 26 biweekly paychecks are 12 months). Without dates the
//!   period count is `transaction_count` (at least 1).
//! - **Irregular** (`UNKNOWN` or no `pay_frequency`, e.g. gig payouts): `pay_frequency` is None and
//!   `amount_per_period` is the monthly average `total_amount / months`, `months` being the
//!   inclusive window length in days divided by `365.25 / 12`, at least 1 (a source seen for one
//!   week counts as one month rather than being scaled up to a monthly rate).
//!   `months_of_history` is `months`, rounded.
//!
//! Sources without a positive total are left out. A report with warnings and no usable source is
//! refused (Plaid could not read the accounts; that is not "no income").
//!
//! # Errors
//!
//! Plaid answers `{error_type, error_code, error_message, request_id}` with a 4xx or 5xx status.
//! Only the type, the code and the request id ever reach a [`ProviderError`] or a log line: Plaid's
//! free-text `error_message` can echo request fields (client id, tokens), so it is dropped.
//!
//! - `Unavailable` (the tenant may try again): 5xx, 429, 408; `PRODUCT_NOT_READY` (the report is
//!   still being generated) and `VERIFICATION_STATUS_PENDING_APPROVAL`; error types `API_ERROR`,
//!   `RATE_LIMIT_EXCEEDED`, `INSTITUTION_ERROR`; timeouts, connection failures, redirects,
//!   malformed or unrecognisable answers. Also the service's own configuration errors
//!   (`INVALID_API_KEYS`, `UNAUTHORIZED_ENVIRONMENT`, `PRODUCT_NOT_ENABLED`, ...): they are not
//!   the tenant's doing and an operator can fix them, so they must not fail the verification;
//!   they are logged at error level.
//! - `Rejected` (the verification fails): any other 4xx with a Plaid error body (`INVALID_INPUT`,
//!   `INVALID_REQUEST`, `ITEM_ERROR` such as `ITEM_LOGIN_REQUIRED`, `INCOME_VERIFICATION_ERROR`,
//!   ...), no report for the user, or a report Plaid could not fill.

pub mod config;

use std::fmt;

use chrono::NaiveDate;
use reqwest::{StatusCode, header, redirect};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

use crate::adapters::plaid::config::parse_base_url;
pub use crate::adapters::plaid::config::{DEFAULT_TIMEOUT, PlaidConfig, PlaidConfigError};
use crate::domain::Verification;
use crate::domain::report::{
    PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod, normalise_category,
};
use crate::ports::{ConnectStep, IncomeProvider, ProviderError};

/// The API version the response shapes below were written against. Pinned per request so a change
/// of the default version in the Plaid dashboard cannot silently change what we parse.
const PLAID_VERSION: &str = "2020-09-14";
const CLIENT_NAME: &str = "Tenant Income Verification";
/// How much bank history Plaid analyses for income (its maximum for bank income is 730 days).
const DAYS_REQUESTED: u32 = 365;
/// Average month length in days, so that 12 months make a (Julian) year.
const DAYS_PER_MONTH: f64 = 365.25 / 12.0;
/// Income source names come from bank transaction descriptions; they are shown in the report.
const MAX_NAME_CHARS: usize = 100;

/// The Plaid Bank Income implementation of [`IncomeProvider`]. Build it once per cold start: it
/// holds one HTTP client (connection pool, TLS session cache).
pub struct PlaidIncomeProvider {
    http: reqwest::Client,
    base_url: String,
    client_id: String,
    secret: String,
}

impl fmt::Debug for PlaidIncomeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaidIncomeProvider")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl PlaidIncomeProvider {
    pub fn new(config: PlaidConfig) -> Result<Self, PlaidConfigError> {
        let (base_url, plain_http) = parse_base_url(&config.base_url)?;
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            // Plaid never redirects its API; following one could send the secret elsewhere.
            .redirect(redirect::Policy::none())
            .https_only(!plain_http)
            .build()
            .map_err(|_| PlaidConfigError::Client)?;
        Ok(PlaidIncomeProvider {
            http,
            base_url,
            client_id: config.client_id,
            secret: config.secret,
        })
    }

    /// One Plaid call: POST JSON with the credentials in the body, JSON back.
    async fn call<Req: Serialize, Resp: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        request: &Req,
    ) -> Result<Resp, ProviderError> {
        let body = serde_json::to_vec(&Authenticated {
            client_id: &self.client_id,
            secret: &self.secret,
            request,
        })
        .map_err(|_| unavailable(endpoint, "the request could not be encoded"))?;
        let response = self
            .http
            .post(format!("{}{endpoint}", self.base_url))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json")
            .header("Plaid-Version", PLAID_VERSION)
            .body(body)
            .send()
            .await
            .map_err(|e| transport_error(endpoint, &e))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| transport_error(endpoint, &e))?;
        if !status.is_success() {
            return Err(plaid_error(endpoint, status, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            // The serde message can quote values from the body (tokens); line and column suffice.
            tracing::warn!(
                endpoint,
                line = e.line(),
                column = e.column(),
                "malformed answer from Plaid"
            );
            unavailable(endpoint, "malformed answer")
        })
    }
}

impl IncomeProvider for PlaidIncomeProvider {
    async fn create_user(
        &self,
        verification: &Verification,
    ) -> Result<Option<String>, ProviderError> {
        // Plaid refuses a second /user/create for a client_user_id and never hands a user token
        // out again, so a user created by an attempt whose store write then failed would block
        // every retry. Each attempt gets its own id (the verification id plus a random suffix).
        let client_user_id = format!(
            "{}-{:08x}",
            verification.verification_id,
            rand::random::<u32>()
        );
        let created: UserCreateResponse = self
            .call(
                "/user/create",
                &UserCreateRequest {
                    client_user_id: &client_user_id,
                },
            )
            .await?;
        // Clients enabled for Plaid's newer user APIs get only a user_id back; this adapter
        // speaks the user_token flow of Bank Income.
        let user_token = created
            .user_token
            .filter(|t| !t.trim().is_empty() && !t.contains(' '))
            .ok_or_else(|| unavailable("/user/create", "no user_token in the answer"))?;
        Ok(Some(format!("{client_user_id} {user_token}")))
    }

    async fn begin(
        &self,
        verification: &Verification,
        provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        // Link tokens live four hours and serve one Link session: every page gets a fresh one for
        // the verification's stored user, so a tenant coming back later is never stuck.
        let Some((client_user_id, user_token)) =
            provider_user.and_then(|h| parse_handle(verification, h))
        else {
            return Err(unavailable(
                "/link/token/create",
                "no Plaid user for this verification",
            ));
        };
        let link: LinkTokenCreateResponse = self
            .call(
                "/link/token/create",
                &LinkTokenCreateRequest {
                    client_name: CLIENT_NAME,
                    language: "en",
                    country_codes: ["US"],
                    user: LinkUser {
                        client_user_id: &client_user_id,
                    },
                    user_token,
                    products: ["income_verification"],
                    income_verification: IncomeVerificationOptions {
                        income_source_types: ["bank"],
                        bank_income: BankIncomeOptions {
                            days_requested: DAYS_REQUESTED,
                        },
                    },
                },
            )
            .await?;
        if link.link_token.trim().is_empty() {
            return Err(unavailable("/link/token/create", "empty link_token"));
        }
        Ok(ConnectStep::Widget {
            link_token: link.link_token,
        })
    }

    async fn fetch_income(
        &self,
        verification: &Verification,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        let Some((_, user_token)) = parse_handle(verification, connection) else {
            return Err(ProviderError::Rejected(
                "Plaid: no user to fetch bank income for".into(),
            ));
        };
        let response: BankIncomeGetResponse = self
            .call(
                "/credit/bank_income/get",
                &BankIncomeGetRequest {
                    user_token,
                    options: BankIncomeGetOptions { count: 1 },
                },
            )
            .await?;
        income_from_report(response)
    }
}

/// The stored handle of a Plaid user: `"{client_user_id} {user_token}"`. A bare user token (stored
/// before the handle had two parts) belongs to the client_user_id that was the verification id.
fn parse_handle<'a>(verification: &Verification, handle: &'a str) -> Option<(String, &'a str)> {
    let handle = handle.trim();
    let (client_user_id, user_token) = match handle.split_once(' ') {
        Some((id, token)) => (id.to_string(), token.trim()),
        None => (verification.verification_id.to_string(), handle),
    };
    (!client_user_id.is_empty() && !user_token.is_empty()).then_some((client_user_id, user_token))
}

// ---- Requests -------------------------------------------------------------------------------

/// Every request body: the credentials next to the endpoint's own fields.
#[derive(Serialize)]
struct Authenticated<'a, T: Serialize> {
    client_id: &'a str,
    secret: &'a str,
    #[serde(flatten)]
    request: &'a T,
}

#[derive(Serialize)]
struct UserCreateRequest<'a> {
    client_user_id: &'a str,
}

#[derive(Serialize)]
struct LinkTokenCreateRequest<'a> {
    client_name: &'a str,
    language: &'a str,
    country_codes: [&'a str; 1],
    user: LinkUser<'a>,
    user_token: &'a str,
    products: [&'a str; 1],
    income_verification: IncomeVerificationOptions,
}

#[derive(Serialize)]
struct LinkUser<'a> {
    client_user_id: &'a str,
}

#[derive(Serialize)]
struct IncomeVerificationOptions {
    income_source_types: [&'static str; 1],
    bank_income: BankIncomeOptions,
}

#[derive(Serialize)]
struct BankIncomeOptions {
    days_requested: u32,
}

#[derive(Serialize)]
struct BankIncomeGetRequest<'a> {
    user_token: &'a str,
    options: BankIncomeGetOptions,
}

#[derive(Serialize)]
struct BankIncomeGetOptions {
    /// Only the most recent report.
    count: u32,
}

// ---- Responses (only the fields used; Plaid adds fields freely) --------------------------------

#[derive(Deserialize)]
struct UserCreateResponse {
    #[serde(default)]
    user_token: Option<String>,
}

#[derive(Deserialize)]
struct LinkTokenCreateResponse {
    link_token: String,
}

#[derive(Deserialize)]
struct BankIncomeGetResponse {
    #[serde(default, deserialize_with = "null_as_empty")]
    bank_income: Vec<BankIncomeReport>,
}

#[derive(Deserialize)]
struct BankIncomeReport {
    #[serde(default)]
    days_requested: Option<u32>,
    #[serde(default, deserialize_with = "null_as_empty")]
    items: Vec<BankIncomeItem>,
    #[serde(default, deserialize_with = "null_as_empty")]
    warnings: Vec<BankIncomeWarning>,
}

#[derive(Deserialize)]
struct BankIncomeItem {
    #[serde(default, deserialize_with = "null_as_empty")]
    bank_income_accounts: Vec<BankIncomeAccount>,
    #[serde(default, deserialize_with = "null_as_empty")]
    bank_income_sources: Vec<BankIncomeSource>,
    #[serde(default)]
    institution_name: Option<String>,
}

#[derive(Deserialize)]
struct BankIncomeAccount {
    account_id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    official_name: Option<String>,
}

#[derive(Deserialize, Default)]
struct BankIncomeSource {
    #[serde(default)]
    account_id: Option<String>,
    #[serde(default)]
    income_description: Option<String>,
    #[serde(default)]
    income_category: Option<String>,
    #[serde(default)]
    start_date: Option<NaiveDate>,
    #[serde(default)]
    end_date: Option<NaiveDate>,
    #[serde(default)]
    pay_frequency: Option<String>,
    #[serde(default)]
    total_amount: Option<f64>,
    #[serde(default)]
    transaction_count: Option<u32>,
    #[serde(default, deserialize_with = "null_as_empty")]
    historical_summary: Vec<HistoricalSummary>,
}

/// One month of a source's history.
#[derive(Deserialize)]
struct HistoricalSummary {
    #[serde(default)]
    start_date: Option<NaiveDate>,
    #[serde(default)]
    end_date: Option<NaiveDate>,
}

#[derive(Deserialize)]
struct BankIncomeWarning {
    #[serde(default)]
    warning_code: Option<String>,
}

/// Plaid's error body, without `error_message` / `display_message` (see the module docs).
#[derive(Deserialize)]
struct PlaidErrorBody {
    #[serde(default)]
    error_type: Option<String>,
    #[serde(default)]
    error_code: Option<String>,
    #[serde(default)]
    request_id: Option<String>,
}

/// Plaid sends `null` for some empty lists; treat it like an absent or empty list.
fn null_as_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

// ---- Mapping ----------------------------------------------------------------------------------

fn income_from_report(response: BankIncomeGetResponse) -> Result<ProviderIncome, ProviderError> {
    // `options.count = 1`: the first report is the most recent one.
    let Some(report) = response.bank_income.into_iter().next() else {
        return Err(ProviderError::Rejected(
            "Plaid has no bank income report for this user".into(),
        ));
    };
    let days_requested = report
        .days_requested
        .filter(|d| *d > 0)
        .unwrap_or(DAYS_REQUESTED);
    let sources: Vec<ProviderIncomeSource> = report
        .items
        .iter()
        .flat_map(|item| {
            item.bank_income_sources
                .iter()
                .filter_map(move |source| map_source(source, item, days_requested))
        })
        .collect();
    let warnings: Vec<String> = report
        .warnings
        .iter()
        .map(|w| safe_token(w.warning_code.as_deref()))
        .collect();
    if !warnings.is_empty() {
        // An empty report with warnings means Plaid could not read the accounts, not that the
        // tenant has no income: reporting zero income would fail them unfairly.
        if sources.is_empty() {
            return Err(ProviderError::Rejected(format!(
                "Plaid could not read the connected accounts ({})",
                warnings.join(", ")
            )));
        }
        tracing::warn!(warnings = %warnings.join(","), "Plaid bank income report has warnings");
    }
    Ok(ProviderIncome {
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: None,
    })
}

/// One Plaid bank income source as a [`ProviderIncomeSource`], by the rule of the module docs
/// ("Amounts"); None for a source without a positive total.
fn map_source(
    source: &BankIncomeSource,
    item: &BankIncomeItem,
    days_requested: u32,
) -> Option<ProviderIncomeSource> {
    let total = source.total_amount.filter(|t| t.is_finite() && *t > 0.0)?;
    let frequency = pay_frequency(source.pay_frequency.as_deref());
    let window_days = observed_span_days(source);
    let (amount_per_period, months) = match frequency {
        Some(f) => {
            let per_month = f.periods_per_month();
            let period_days = DAYS_PER_MONTH / per_month;
            let periods = match window_days {
                Some(span) => (span as f64 / period_days).round() + 1.0,
                None => f64::from(source.transaction_count.unwrap_or(0).max(1)),
            };
            (total / periods, periods / per_month)
        }
        None => {
            let inclusive_days =
                window_days.map_or(f64::from(days_requested), |span| span as f64 + 1.0);
            let months = (inclusive_days / DAYS_PER_MONTH).max(1.0);
            (total / months, months)
        }
    };
    Some(ProviderIncomeSource {
        name: source_name(source, item),
        category: normalise_category(source.income_category.as_deref().unwrap_or("OTHER")),
        pay_frequency: frequency,
        amount_per_period,
        months_of_history: (months.round() as u32).max(1),
    })
}

/// Days from the first to the last deposit (0 for a single one), or None when unknown.
fn observed_span_days(source: &BankIncomeSource) -> Option<i64> {
    let (start, end) = match (source.start_date, source.end_date) {
        (Some(s), Some(e)) => (s, e),
        _ => {
            let start = source
                .historical_summary
                .iter()
                .filter_map(|h| h.start_date)
                .min()?;
            let end = source
                .historical_summary
                .iter()
                .filter_map(|h| h.end_date)
                .max()?;
            (start, end)
        }
    };
    let span = (end - start).num_days();
    (span >= 0).then_some(span)
}

/// Plaid's pay frequencies; `UNKNOWN`, missing or unrecognised means irregular (None).
fn pay_frequency(raw: Option<&str>) -> Option<PayFrequency> {
    match raw?.trim().to_ascii_uppercase().as_str() {
        "WEEKLY" => Some(PayFrequency::Weekly),
        "BIWEEKLY" => Some(PayFrequency::Biweekly),
        "SEMI_MONTHLY" => Some(PayFrequency::SemiMonthly),
        "MONTHLY" => Some(PayFrequency::Monthly),
        "DAILY" => Some(PayFrequency::Daily),
        _ => None,
    }
}

/// The transaction description; without one, the account and institution it was paid into.
fn source_name(source: &BankIncomeSource, item: &BankIncomeItem) -> String {
    let clean = |s: &str| {
        s.trim()
            .trim_matches(|c| matches!(c, '"' | '\u{201c}' | '\u{201d}'))
            .trim()
            .to_string()
    };
    let description = source
        .income_description
        .as_deref()
        .map(clean)
        .filter(|d| !d.is_empty());
    let name = description.unwrap_or_else(|| {
        let account = source.account_id.as_deref().and_then(|id| {
            item.bank_income_accounts
                .iter()
                .find(|a| a.account_id == id)
                .and_then(|a| a.name.as_deref().or(a.official_name.as_deref()))
                .map(clean)
                .filter(|n| !n.is_empty())
        });
        let institution = item
            .institution_name
            .as_deref()
            .map(clean)
            .filter(|n| !n.is_empty());
        match (institution, account) {
            (Some(i), Some(a)) => format!("Deposits to {a} at {i}"),
            (None, Some(a)) => format!("Deposits to {a}"),
            (Some(i), None) => format!("Deposits at {i}"),
            (None, None) => "Bank deposits".to_string(),
        }
    });
    name.chars().take(MAX_NAME_CHARS).collect()
}

// ---- Errors -----------------------------------------------------------------------------------

/// What a Plaid error means for the verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Disposition {
    /// Transient: Plaid, the bank or the report is not ready; the tenant may try again.
    Retry,
    /// Our own configuration (keys, environment, product access). Not the tenant's doing, so the
    /// verification must not fail for it; it is logged as an error for the operator instead.
    Operator,
    /// About this tenant's user, Item or data: retrying cannot help, the verification fails.
    Refuse,
}

/// Error codes that point at the service's Plaid account rather than at the tenant.
const OPERATOR_CODES: &[&str] = &[
    "INVALID_API_KEYS",
    "UNAUTHORIZED_ENVIRONMENT",
    "UNAUTHORIZED_ROUTE_ACCESS",
    "INVALID_PRODUCT",
    "PRODUCT_NOT_ENABLED",
    "DIRECT_INTEGRATION_NOT_ENABLED",
];

/// The table of the module docs ("Errors"): status first (5xx, 429 and 408 are always transient),
/// then Plaid's code, then its type.
fn disposition(status: StatusCode, error_type: &str, error_code: &str) -> Disposition {
    if status.is_server_error()
        || status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
    {
        return Disposition::Retry;
    }
    if matches!(
        error_code,
        "PRODUCT_NOT_READY" | "VERIFICATION_STATUS_PENDING_APPROVAL"
    ) || matches!(
        error_type,
        "API_ERROR" | "RATE_LIMIT_EXCEEDED" | "INSTITUTION_ERROR"
    ) {
        return Disposition::Retry;
    }
    if OPERATOR_CODES.contains(&error_code) {
        return Disposition::Operator;
    }
    if status.is_client_error() {
        Disposition::Refuse
    } else {
        // 1xx/3xx: nothing Plaid documents; treat it as a glitch.
        Disposition::Retry
    }
}

/// A non-2xx answer. Without a recognisable Plaid error body (a proxy's HTML page, a truncated
/// body) nothing is known about the tenant, so the tenant may retry.
fn plaid_error(endpoint: &'static str, status: StatusCode, body: &[u8]) -> ProviderError {
    let parsed = serde_json::from_slice::<PlaidErrorBody>(body)
        .ok()
        .filter(|e| e.error_code.is_some() || e.error_type.is_some());
    let Some(error) = parsed else {
        tracing::warn!(
            endpoint,
            status = status.as_u16(),
            "Plaid error without an error body"
        );
        return unavailable(
            endpoint,
            &format!("HTTP {} without an error body", status.as_u16()),
        );
    };
    let error_type = safe_token(error.error_type.as_deref());
    let error_code = safe_token(error.error_code.as_deref());
    let request_id = safe_token(error.request_id.as_deref());
    let text = format!(
        "Plaid {endpoint}: {error_type}/{error_code} (HTTP {}, request {request_id})",
        status.as_u16()
    );
    let disposition = disposition(status, &error_type, &error_code);
    let status = status.as_u16();
    match disposition {
        Disposition::Retry => {
            tracing::warn!(endpoint, status, %error_type, %error_code, %request_id,
                "Plaid: transient error");
            ProviderError::Unavailable(text)
        }
        Disposition::Operator => {
            tracing::error!(endpoint, status, %error_type, %error_code, %request_id,
                "Plaid refuses the service's own configuration");
            ProviderError::Unavailable(text)
        }
        Disposition::Refuse => {
            tracing::info!(endpoint, status, %error_type, %error_code, %request_id,
                "Plaid: refused for this user");
            ProviderError::Rejected(text)
        }
    }
}

/// Network-level failures. reqwest's own text is not used: it carries the URL and nested causes.
fn transport_error(endpoint: &'static str, error: &reqwest::Error) -> ProviderError {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the answer could not be read"
    } else if error.is_redirect() || error.status().is_some_and(|s| s.is_redirection()) {
        "unexpected redirect"
    } else {
        "request failed"
    };
    tracing::warn!(endpoint, what, "Plaid call failed");
    unavailable(endpoint, what)
}

fn unavailable(endpoint: &str, what: &str) -> ProviderError {
    ProviderError::Unavailable(format!("Plaid {endpoint}: {what}"))
}

/// Plaid's codes and request ids are short upper-case or alphanumeric tokens; anything else (which
/// could carry user data) is replaced.
fn safe_token(raw: Option<&str>) -> String {
    match raw.map(str::trim) {
        Some(s)
            if !s.is_empty()
                && s.len() <= 64
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            s.to_string()
        }
        _ => "UNKNOWN".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> Option<NaiveDate> {
        Some(s.parse().unwrap())
    }

    fn item() -> BankIncomeItem {
        BankIncomeItem {
            bank_income_accounts: vec![BankIncomeAccount {
                account_id: "acc-1".into(),
                name: Some("Plaid Checking".into()),
                official_name: None,
            }],
            bank_income_sources: vec![],
            institution_name: Some("Citizens Bank".into()),
        }
    }

    fn source(freq: Option<&str>, total: f64, start: &str, end: &str) -> BankIncomeSource {
        BankIncomeSource {
            account_id: Some("acc-1".into()),
            income_description: Some("ACME PAYROLL".into()),
            income_category: Some("SALARY".into()),
            start_date: date(start),
            end_date: date(end),
            pay_frequency: freq.map(String::from),
            total_amount: Some(total),
            ..Default::default()
        }
    }

    #[test]
    fn regular_sources_divide_by_the_paychecks_in_the_window() {
        // 26 biweekly paychecks, 350 days from first to last.
        let s = map_source(
            &source(Some("BIWEEKLY"), 26.0 * 2000.0, "2025-01-03", "2025-12-19"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!(s.pay_frequency, Some(PayFrequency::Biweekly));
        assert!((s.amount_per_period - 2000.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 12);
        // One monthly deposit: one period, one month.
        let s = map_source(
            &source(Some("MONTHLY"), 1500.0, "2025-06-01", "2025-06-01"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!((s.amount_per_period, s.months_of_history), (1500.0, 1));
        // Semi-monthly, 24 deposits from Jan 15 to Dec 31.
        let s = map_source(
            &source(
                Some("SEMI_MONTHLY"),
                24.0 * 900.0,
                "2025-01-15",
                "2025-12-31",
            ),
            &item(),
            365,
        )
        .unwrap();
        assert!((s.amount_per_period - 900.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 12);
    }

    #[test]
    fn irregular_sources_average_per_month() {
        // 91 days inclusive is ~2.99 months.
        let s = map_source(
            &source(Some("UNKNOWN"), 3000.0, "2025-01-01", "2025-04-01"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!(s.pay_frequency, None);
        assert!((s.amount_per_period - 3000.0 * DAYS_PER_MONTH / 91.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 3);
        // A single deposit counts as one month, not scaled up to a monthly rate.
        let s = map_source(
            &source(None, 400.0, "2025-03-10", "2025-03-10"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!((s.amount_per_period, s.months_of_history), (400.0, 1));
        // No dates at all: the report's window.
        let mut undated = source(None, 1200.0, "2025-01-01", "2025-01-01");
        undated.start_date = None;
        undated.end_date = None;
        let s = map_source(&undated, &item(), 365).unwrap();
        assert!((s.amount_per_period - 1200.0 * DAYS_PER_MONTH / 365.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 12);
    }

    #[test]
    fn dates_fall_back_to_the_monthly_history() {
        let mut s = source(None, 600.0, "2025-01-01", "2025-01-01");
        s.start_date = None;
        s.historical_summary = vec![
            HistoricalSummary {
                start_date: date("2025-01-01"),
                end_date: date("2025-01-31"),
            },
            HistoricalSummary {
                start_date: date("2025-02-01"),
                end_date: date("2025-02-28"),
            },
        ];
        assert_eq!(observed_span_days(&s), Some(58));
    }

    #[test]
    fn sources_without_a_positive_total_are_skipped() {
        for total in [0.0, -50.0, f64::NAN] {
            let s = source(Some("MONTHLY"), total, "2025-01-01", "2025-03-01");
            assert!(map_source(&s, &item(), 365).is_none());
        }
    }

    #[test]
    fn names_fall_back_to_account_and_institution() {
        let mut s = source(None, 100.0, "2025-01-01", "2025-01-01");
        s.income_description = Some(" \u{201c}PLAID_INC_DIRECT_DEP_PPD\u{201d} ".into());
        assert_eq!(source_name(&s, &item()), "PLAID_INC_DIRECT_DEP_PPD");
        s.income_description = None;
        assert_eq!(
            source_name(&s, &item()),
            "Deposits to Plaid Checking at Citizens Bank"
        );
        s.account_id = Some("other".into());
        assert_eq!(source_name(&s, &item()), "Deposits at Citizens Bank");
        s.income_description = Some("X".repeat(500));
        assert_eq!(source_name(&s, &item()).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn frequencies_and_categories() {
        assert_eq!(
            pay_frequency(Some("SEMI_MONTHLY")),
            Some(PayFrequency::SemiMonthly)
        );
        assert_eq!(pay_frequency(Some("DAILY")), Some(PayFrequency::Daily));
        assert_eq!(pay_frequency(Some("UNKNOWN")), None);
        assert_eq!(pay_frequency(Some("FORTNIGHTLY")), None);
        assert_eq!(pay_frequency(None), None);
        let mut s = source(None, 100.0, "2025-01-01", "2025-01-01");
        s.income_category = Some("CRYPTO_STAKING".into());
        assert_eq!(map_source(&s, &item(), 365).unwrap().category, "OTHER");
        s.income_category = None;
        assert_eq!(map_source(&s, &item(), 365).unwrap().category, "OTHER");
    }

    #[test]
    fn error_dispositions() {
        let bad = StatusCode::BAD_REQUEST;
        use Disposition::*;
        assert_eq!(disposition(bad, "ITEM_ERROR", "PRODUCT_NOT_READY"), Retry);
        assert_eq!(
            disposition(bad, "ITEM_ERROR", "ITEM_LOGIN_REQUIRED"),
            Refuse
        );
        assert_eq!(
            disposition(bad, "INVALID_INPUT", "INVALID_API_KEYS"),
            Operator
        );
        assert_eq!(disposition(bad, "INVALID_INPUT", "INVALID_FIELD"), Refuse);
        assert_eq!(
            disposition(
                bad,
                "INCOME_VERIFICATION_ERROR",
                "INCOME_VERIFICATION_NOT_FOUND"
            ),
            Refuse
        );
        assert_eq!(
            disposition(
                StatusCode::TOO_MANY_REQUESTS,
                "RATE_LIMIT_EXCEEDED",
                "RATE_LIMIT"
            ),
            Retry
        );
        assert_eq!(
            disposition(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INCOME_VERIFICATION_ERROR",
                "INCOME_VERIFICATION_FAILED"
            ),
            Retry
        );
        assert_eq!(
            disposition(bad, "INSTITUTION_ERROR", "INSTITUTION_DOWN"),
            Retry
        );
    }

    #[test]
    fn only_plain_tokens_pass() {
        assert_eq!(safe_token(Some("PRODUCT_NOT_READY")), "PRODUCT_NOT_READY");
        assert_eq!(safe_token(Some("jane@example.com")), "UNKNOWN");
        assert_eq!(safe_token(Some("a b")), "UNKNOWN");
        assert_eq!(safe_token(None), "UNKNOWN");
    }
}
