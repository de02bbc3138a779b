//! The JSON Plaid is sent and answers, as serde types: what the calls share, the report's
//! items, sources and deposits the income mapping reads, and Plaid's error body.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Deserializer, Serialize};

// Requests.

/// Every request body: the credentials next to the endpoint's own fields.
#[derive(Serialize)]
pub(super) struct Authenticated<'a, T: Serialize> {
    pub(super) client_id: &'a str,
    pub(super) secret: &'a str,
    #[serde(flatten)]
    pub(super) request: &'a T,
}

#[derive(Serialize)]
pub(super) struct LinkUser<'a> {
    pub(super) client_user_id: &'a str,
}

// Responses: only the fields used; Plaid adds fields freely.

/// `/user/remove` with the new User APIs' `user_id`: the user and every Item made for it.
#[derive(Serialize)]
pub(super) struct UserRemoveRequest<'a> {
    pub(super) user_id: &'a str,
}

/// Plaid answers only its `request_id`.
#[derive(Deserialize)]
pub(super) struct UserRemoveResponse {}

#[derive(Deserialize)]
pub(super) struct LinkTokenCreateResponse {
    pub(super) link_token: String,
}

#[derive(Deserialize)]
pub(super) struct BankIncomeGetResponse {
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) bank_income: Vec<BankIncomeReport>,
}

#[derive(Deserialize)]
pub(super) struct BankIncomeReport {
    /// When Plaid built the report: the end of its data window.
    #[serde(default)]
    pub(super) generated_time: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) items: Vec<BankIncomeItem>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) warnings: Vec<BankIncomeWarning>,
}

#[derive(Deserialize)]
pub(super) struct BankIncomeItem {
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) bank_income_accounts: Vec<BankIncomeAccount>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) bank_income_sources: Vec<BankIncomeSource>,
    #[serde(default)]
    pub(super) institution_name: Option<String>,
    /// When Plaid last read this Item: the window's end when the report has no time.
    #[serde(default)]
    pub(super) last_updated_time: Option<DateTime<Utc>>,
}

#[derive(Deserialize)]
pub(super) struct BankIncomeAccount {
    pub(super) account_id: String,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) official_name: Option<String>,
    /// The account number's last digits, to recognise transfers from the tenant's own accounts.
    #[serde(default)]
    pub(super) mask: Option<String>,
}

#[derive(Deserialize, Default)]
pub(super) struct BankIncomeSource {
    #[serde(default)]
    pub(super) account_id: Option<String>,
    #[serde(default)]
    pub(super) income_description: Option<String>,
    #[serde(default)]
    pub(super) income_category: Option<String>,
    #[serde(default)]
    pub(super) pay_frequency: Option<String>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) historical_summary: Vec<HistoricalSummary>,
}

/// One month of a source's history.
#[derive(Deserialize)]
pub(super) struct HistoricalSummary {
    /// The deposits of that month: the source's dated payments.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub(super) transactions: Vec<HistoricalTransaction>,
}

/// One deposit in a month of a source's history. Plaid reports income deposits as positive.
#[derive(Deserialize, Default)]
pub(super) struct HistoricalTransaction {
    #[serde(default)]
    pub(super) date: Option<NaiveDate>,
    #[serde(default)]
    pub(super) amount: Option<f64>,
}

#[derive(Deserialize)]
pub(super) struct BankIncomeWarning {
    #[serde(default)]
    pub(super) warning_code: Option<String>,
}

/// Plaid's error body, without `error_message` / `display_message` (see the module docs).
#[derive(Deserialize)]
pub(super) struct PlaidErrorBody {
    #[serde(default)]
    pub(super) error_type: Option<String>,
    #[serde(default)]
    pub(super) error_code: Option<String>,
    #[serde(default)]
    pub(super) request_id: Option<String>,
}

/// Plaid sends `null` for some empty lists; treat it like an absent or empty list.
pub(super) fn null_as_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}
