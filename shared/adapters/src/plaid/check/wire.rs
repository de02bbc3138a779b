//! The JSON of the Plaid Check calls: requests, the consumer's identity, and the parts of the
//! Income Insights report read beside the Bank Income mapping (Plaid's forecasts).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::plaid::wire::{LinkUser, null_as_empty};

/// Who the consumer is, as Plaid Check requires it at `/user/create`
/// (`consumer_report_user_identity`). `Debug` shows no value.
#[derive(Clone, Serialize)]
pub struct ConsumerIdentity {
    pub first_name: String,
    pub last_name: String,
    pub emails: Vec<String>,
    pub phone_numbers: Vec<String>,
    pub date_of_birth: NaiveDate,
    pub primary_address: ConsumerAddress,
}

#[derive(Clone, Serialize)]
pub struct ConsumerAddress {
    pub street: String,
    pub city: String,
    /// The state, as two letters.
    pub region: String,
    pub postal_code: String,
    /// `US`: Plaid Check serves US consumers only.
    pub country: String,
}

impl std::fmt::Debug for ConsumerIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConsumerIdentity(<redacted>)")
    }
}

impl std::fmt::Debug for ConsumerAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConsumerAddress(<redacted>)")
    }
}

#[derive(Serialize)]
pub(super) struct UserCreateRequest<'a> {
    pub(super) client_user_id: &'a str,
    pub(super) consumer_report_user_identity: &'a ConsumerIdentity,
}

/// The new User APIs answer a `user_id` (https://plaid.com/docs/api/users/user-apis/).
#[derive(Deserialize)]
pub(super) struct UserCreateResponse {
    #[serde(default)]
    pub(super) user_id: Option<String>,
}

#[derive(Serialize)]
pub(super) struct LinkTokenCreateRequest<'a> {
    pub(super) client_name: &'a str,
    pub(super) language: &'a str,
    pub(super) country_codes: [&'a str; 1],
    pub(super) user: LinkUser<'a>,
    pub(super) user_id: &'a str,
    pub(super) products: [&'a str; 2],
    pub(super) consumer_report_permissible_purpose: &'a str,
    pub(super) cra_options: CraOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) webhook: Option<String>,
}

#[derive(Serialize)]
pub(super) struct CraOptions {
    pub(super) days_requested: u32,
}

#[derive(Serialize)]
pub(super) struct IncomeInsightsGetRequest<'a> {
    pub(super) user_id: &'a str,
}

/// The report, read twice: as Bank Income's report (the same items, sources and deposits) and
/// for Plaid's forecasts.
#[derive(Deserialize)]
pub(super) struct IncomeInsightsGetResponse {
    pub(super) report: IncomeInsightsReport,
}

pub(super) struct IncomeInsightsReport {
    pub(super) base: crate::plaid::wire::BankIncomeReport,
    pub(super) forecasts: ForecastView,
}

impl<'de> Deserialize<'de> for IncomeInsightsReport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let forecasts = ForecastView::deserialize(&value).map_err(serde::de::Error::custom)?;
        let base = crate::plaid::wire::BankIncomeReport::deserialize(value)
            .map_err(serde::de::Error::custom)?;
        Ok(IncomeInsightsReport { base, forecasts })
    }
}

#[derive(Deserialize)]
pub(super) struct ForecastView {
    #[serde(default, deserialize_with = "null_as_empty")]
    items: Vec<ForecastItem>,
}

#[derive(Deserialize)]
struct ForecastItem {
    #[serde(default, deserialize_with = "null_as_empty")]
    bank_income_sources: Vec<ForecastSource>,
}

#[derive(Deserialize)]
struct ForecastSource {
    #[serde(default)]
    forecasted_average_monthly_income: Option<f64>,
    #[serde(default, deserialize_with = "null_as_empty")]
    historical_summary: Vec<ForecastMonth>,
}

#[derive(Deserialize)]
struct ForecastMonth {
    #[serde(default, deserialize_with = "null_as_empty")]
    transactions: Vec<ForecastTransaction>,
}

#[derive(Deserialize)]
struct ForecastTransaction {
    #[serde(default)]
    date: Option<NaiveDate>,
    #[serde(default)]
    amount: Option<f64>,
}

/// Plaid's forecast of each source that the Bank Income mapping keeps, in its order: the mapping
/// keeps, item by item, the sources with at least one dated positive deposit.
pub(super) fn forecasts_in_mapping_order(view: &ForecastView) -> Vec<Option<f64>> {
    view.items
        .iter()
        .flat_map(|item| item.bank_income_sources.iter())
        .filter(|s| {
            s.historical_summary
                .iter()
                .flat_map(|m| m.transactions.iter())
                .any(|t| t.date.is_some() && t.amount.is_some_and(|a| a.is_finite() && a > 0.0))
        })
        .map(|s| {
            s.forecasted_average_monthly_income
                .filter(|f| f.is_finite() && *f >= 0.0)
        })
        .collect()
}
