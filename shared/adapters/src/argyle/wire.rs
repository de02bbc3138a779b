//! The JSON Argyle is sent and answers (API v2), as serde types: only the fields this adapter
//! reads; Argyle adds fields freely ("implementations should accommodate additional fields").

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

// Requests.

/// `POST /v2/users`: no personal data, only our own reference.
#[derive(Serialize)]
pub(super) struct UserCreateRequest<'a> {
    pub(super) external_id: &'a str,
}

/// `POST /v2/user-tokens`.
#[derive(Serialize)]
pub(super) struct UserTokenRequest<'a> {
    pub(super) user: &'a str,
}

// Responses.

#[derive(Deserialize)]
pub(super) struct UserCreateResponse {
    pub(super) id: String,
}

/// `GET /v2/users/{id}`: only our reference is read.
#[derive(Deserialize)]
pub(super) struct User {
    #[serde(default)]
    pub(super) external_id: Option<String>,
}

/// A webhook's message: `event`, and `data` naming the account and the user
/// (https://docs.argyle.com/api-reference/paystubs-webhooks).
#[derive(Deserialize)]
pub(super) struct WebhookMessage {
    #[serde(default)]
    pub(super) event: String,
    #[serde(default)]
    pub(super) data: Option<WebhookData>,
}

#[derive(Deserialize)]
pub(super) struct WebhookData {
    #[serde(default)]
    pub(super) user: Option<String>,
}

/// The v2 reference answers `user_token`; the v1 (legacy) reference answered `access` (and
/// `refresh`). Either is read.
#[derive(Deserialize)]
pub(super) struct UserTokenResponse {
    #[serde(default, alias = "access")]
    pub(super) user_token: Option<String>,
}

/// A list answer. The v2 reference's pages disagree: most show `{next, previous, results}`,
/// the employments page a bare array. Both are read; `next` is followed (see `client`).
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Page<T> {
    Paged {
        #[serde(default)]
        next: Option<String>,
        #[serde(default = "Vec::new", deserialize_with = "null_as_empty")]
        results: Vec<T>,
    },
    Bare(Vec<T>),
}

#[derive(Deserialize)]
pub(super) struct Account {
    pub(super) id: String,
    #[serde(default)]
    pub(super) connection: Option<Connection>,
    #[serde(default)]
    pub(super) availability: Option<Availability>,
    /// When Argyle last read the payroll account: the end of the data window.
    #[serde(default)]
    pub(super) scanned_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub(super) updated_at: Option<DateTime<Utc>>,
}

#[derive(Deserialize)]
pub(super) struct Connection {
    /// `connected`, `connecting` or `error`.
    #[serde(default)]
    pub(super) status: Option<String>,
    /// Set with `error`: `account_disabled`, `auth_required`, `invalid_credentials`, ...
    #[serde(default)]
    pub(super) error_code: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Availability {
    #[serde(default)]
    pub(super) paystubs: Option<Sync>,
    /// Set only for a gig platform's account, null for any other: how its gigs sync.
    #[serde(default)]
    pub(super) gigs: Option<Sync>,
}

#[derive(Deserialize)]
pub(super) struct Sync {
    /// `synced` once every pay stub is in; `in_progress` while Argyle still reads them;
    /// `sync_failed` when it could not. Absent before the first read began.
    #[serde(default)]
    pub(super) status: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Employment {
    pub(super) id: String,
    #[serde(default)]
    pub(super) account: Option<String>,
    #[serde(default)]
    pub(super) employer: Option<String>,
    /// `active` or `inactive`.
    #[serde(default)]
    pub(super) employment_status: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Identity {
    #[serde(default)]
    pub(super) account: Option<String>,
    #[serde(default)]
    pub(super) employment: Option<String>,
    #[serde(default)]
    pub(super) employer: Option<String>,
    /// `active`, `inactive` or `terminated`.
    #[serde(default)]
    pub(super) employment_status: Option<String>,
    /// When the job ended, if it did.
    #[serde(default)]
    pub(super) termination_datetime: Option<DateTime<Utc>>,
    /// `full-time`, `part-time`, `contractor`, ...
    #[serde(default)]
    pub(super) employment_type: Option<String>,
    #[serde(default)]
    pub(super) base_pay: Option<BasePay>,
    /// `weekly`, `biweekly`, `semimonthly`, `monthly`.
    #[serde(default)]
    pub(super) pay_cycle: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct BasePay {
    #[serde(default)]
    pub(super) amount: Option<String>,
    /// `hourly`, `weekly`, `biweekly`, `semimonthly`, `monthly`, `annual`, `salary`.
    #[serde(default)]
    pub(super) period: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Paystub {
    #[serde(default)]
    pub(super) account: Option<String>,
    #[serde(default)]
    pub(super) employment: Option<String>,
    #[serde(default)]
    pub(super) employer: Option<String>,
    /// `completed` for a paid stub.
    #[serde(default)]
    pub(super) status: Option<String>,
    /// The payment date.
    #[serde(default)]
    pub(super) paystub_date: Option<DateTime<Utc>>,
    /// Decimal strings, as Argyle sends money.
    #[serde(default)]
    pub(super) gross_pay: Option<String>,
    #[serde(default)]
    pub(super) net_pay: Option<String>,
    /// The gross pay's lines, each typed (`base`, `overtime`, `commission`, `bonus`, ...).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) gross_pay_list: Vec<GrossPayLine>,
}

#[derive(Deserialize)]
pub(super) struct GrossPayLine {
    #[serde(default, rename = "type")]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) amount: Option<String>,
}

/// One gig assignment (https://docs.argyle.com/api-reference/gigs/list-all-gigs): only the
/// fields the income mapping reads.
#[derive(Deserialize)]
pub(super) struct Gig {
    #[serde(default)]
    pub(super) account: Option<String>,
    #[serde(default)]
    pub(super) employer: Option<String>,
    /// `scheduled`, `in_progress`, `completed` or `cancelled`.
    #[serde(default)]
    pub(super) status: Option<String>,
    #[serde(default)]
    pub(super) start_datetime: Option<DateTime<Utc>>,
    #[serde(default)]
    pub(super) end_datetime: Option<DateTime<Utc>>,
    #[serde(default)]
    pub(super) income: Option<GigIncome>,
}

/// A gig's earnings, decimal strings: `total` is `pay` + `tips` + `bonus` + `other`.
#[derive(Deserialize)]
pub(super) struct GigIncome {
    #[serde(default)]
    pub(super) total: Option<String>,
    #[serde(default)]
    pub(super) bonus: Option<String>,
}

/// Argyle sends `null` for some empty lists.
pub(super) fn null_as_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}
