//! The income report: the income rules applied to every source, totals, affordability,
//! stability and confidence.
//!
//! Money is computed in `f64` per source, rounded to whole cents once per source, and everything
//! after that (total, the income rule) is exact integer arithmetic on cents, so the total is
//! always the sum of the counted sources shown and the rule has no floating-point edge.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::domain::affordability::{Affordability, RentTerms, affordability, tenant_portion_cents};
use crate::domain::income::overlap::{Duplicate, count_once};
use crate::domain::income::rules::{
    Assessment, CountReason, ExclusionReason, assess, window_payments,
};
use crate::domain::income::{
    AmountsBasis, PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod,
    normalise_category,
};
use crate::domain::stability::{Stability, overall_stability, source_stability};

pub mod confidence;

pub use confidence::ConfidenceFactor;

/// A counted source: its figure and how it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IncomeSource {
    pub name: String,
    pub income_category: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pay_frequency: Option<PayFrequency>,
    pub monthly_income: f64,
    pub method: VerificationMethod,
    /// How `monthly_income` was reached, in words.
    pub basis: String,
    /// The same rule over the 12 months to the as-of date.
    pub twelve_month_average: f64,
    /// Set when the figure is not simply the 12-month figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<CountReason>,
    pub payment_count: u32,
    pub last_payment_date: NaiveDate,
    /// How steady this source is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<Stability>,
    /// Whether `monthly_income` is before (`gross`) or after (`net`) taxes and deductions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts_basis: Option<AmountsBasis>,
    /// The same rule over the net pay the provider states beside gross pay (payroll, stubs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_monthly_income: Option<f64>,
    /// The provider's own forecast of this source's monthly income, beside the rules' figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_forecast_monthly_income: Option<f64>,
}

/// A source listed but not counted, with what was seen of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludedSource {
    pub name: String,
    pub income_category: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pay_frequency: Option<PayFrequency>,
    pub method: VerificationMethod,
    /// The total of its payments in the data window.
    pub observed_amount: f64,
    pub payment_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_payment_date: Option<NaiveDate>,
    pub reason: ExclusionReason,
    /// Why it is not counted, in words the tenant and the landlord read.
    pub explanation: String,
    /// For a `duplicate`: the name of the counted source it duplicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
}

/// The income report of the contract, with additive fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IncomeReport {
    pub total_monthly_income: f64,
    /// The counted sources: their `monthly_income` values add up to the total.
    pub income_sources: Vec<IncomeSource>,
    /// The method behind most of the counted income.
    pub verification_method: VerificationMethod,
    pub confidence_score: f64,
    /// tenant's portion (rent less any subsidy) / total_monthly_income, 4 decimals; null
    /// without rent or without income.
    pub rent_to_income_ratio: Option<f64>,
    /// income >= 3 x the tenant's portion of the rent; null without rent.
    pub passes_3x_rule: Option<bool>,
    /// The end of the provider's data window: every figure is as of this date.
    pub as_of: NaiveDate,
    /// Sources seen and not counted, each with its reason.
    #[serde(default)]
    pub excluded_sources: Vec<ExcludedSource>,
    /// What lowered the confidence score from 1, each as a multiplier.
    #[serde(default)]
    pub confidence_factors: Vec<ConfidenceFactor>,
    /// `net` for bank deposits, `gross` for payroll or document figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts_basis: Option<AmountsBasis>,
    /// The landlord's income multiple applied to the tenant's portion; absent without rent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affordability: Option<Affordability>,
    /// Stability of the counted income; absent without counted sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<Stability>,
    /// Every method the tenant tried, with how it ended and when, oldest first: why the final
    /// method was used. Empty when the first method succeeded without routing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<crate::domain::methods::MethodAttempt>,
    /// Every method that saw a source of this report, counted or not, in the order first seen;
    /// `verification_method` is the one behind most of the counted income.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods_used: Vec<VerificationMethod>,
    /// The provider's own forecast of the monthly income of every source it forecast (Plaid
    /// Check), beside `total_monthly_income`; absent when the provider gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_forecast_monthly_income: Option<f64>,
    /// Present (true) only in the local stack, on a live verification whose income came from the
    /// sandbox scenarios there: invented data, never a deployed stack's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_sandbox: Option<bool>,
    /// The uploaded documents behind a `document` report, each with its verdict and checks
    /// (`docs/documents.md`); absent for a bank or payroll connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<crate::documents::record::ReportDocument>>,
    /// True when a person should look at the documents: one is `edited`, or counted income rests
    /// on an `undetermined` one. Absent without documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_review: Option<bool>,
    /// The landlord's review of the documents (POST /api/v1/verify/review), once recorded: one
    /// per report. Absent before, and without documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_review: Option<crate::documents::review::DocumentReview>,
}

impl IncomeReport {
    #[doc(hidden)]
    pub fn empty_for_tests() -> Self {
        let as_of = NaiveDate::from_ymd_opt(2026, 1, 1).expect("a valid date");
        build_report(
            &ProviderIncome::empty(VerificationMethod::Bank, as_of),
            None,
        )
    }
}

/// What a report of more than one method says of them, in the PDF and the tenant's copy.
pub const MORE_THAN_ONE_METHOD: &str = "The income was verified by more than one method. A job \
seen by two methods is counted once: payroll before documents before bank.";

/// Rounds a non-negative amount to whole cents (half away from zero).
pub fn to_cents(amount: f64) -> i64 {
    if !amount.is_finite() {
        return 0;
    }
    (amount * 100.0).round() as i64
}

fn from_cents(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// Builds the report from the provider's data and the verification's rent (no subsidy, the
/// default multiple).
pub fn build_report(income: &ProviderIncome, monthly_rent: Option<f64>) -> IncomeReport {
    build_report_with(income, &RentTerms::rent_only(monthly_rent))
}

/// Builds the report from the provider's data and the verification's rent terms, by the income
/// rules (`domain::income::rules`). Only counted sources make the total, the affordability
/// figures and the stability. A source seen by two methods counts once (`income::overlap`): the
/// sighting set aside is listed as a `duplicate`, naming the one counted.
pub fn build_report_with(income: &ProviderIncome, terms: &RentTerms) -> IncomeReport {
    let as_of = income.as_of;
    let (once, duplicates) = count_once(income);
    let mut counted = Vec::new();
    let mut excluded = Vec::new();
    let mut weighted_stability = Vec::new();
    for source in &once.sources {
        let category = normalise_category(&source.category);
        let method = source.method.unwrap_or(income.method);
        let payments = window_payments(source, as_of);
        let last_payment_date = payments.last().map(|p| p.date);
        match assess(source, &category, &payments, as_of) {
            Assessment::Counted(c) => {
                let stability = source_stability(&payments, source.pay_frequency, as_of);
                let net_monthly_income = net_monthly(source, income.method, &category, as_of);
                if let Some(st) = &stability {
                    weighted_stability.push((c.monthly_cents, st.clone()));
                }
                counted.push((
                    c.monthly_cents,
                    IncomeSource {
                        name: source.name.clone(),
                        income_category: category,
                        pay_frequency: source.pay_frequency,
                        monthly_income: from_cents(c.monthly_cents),
                        method,
                        basis: c.basis,
                        twelve_month_average: from_cents(c.twelve_month_cents),
                        reason: c.reason,
                        payment_count: payments.len() as u32,
                        last_payment_date: last_payment_date.unwrap_or(as_of),
                        stability: stability.map(|s| s.stability),
                        amounts_basis: Some(source.basis(income.method)),
                        net_monthly_income,
                        provider_forecast_monthly_income: source.provider_forecast_monthly,
                    },
                ));
            }
            Assessment::Excluded(e) => excluded.push(ExcludedSource {
                name: source.name.clone(),
                income_category: category,
                pay_frequency: source.pay_frequency,
                method,
                observed_amount: from_cents(e.observed_cents),
                payment_count: payments.len() as u32,
                last_payment_date,
                reason: e.reason,
                explanation: e.explanation,
                duplicate_of: None,
            }),
        }
    }
    excluded.extend(
        duplicates
            .iter()
            .map(|d| duplicate_entry(d, income.method, as_of)),
    );
    let total_cents: i64 = counted.iter().map(|(c, _)| *c).sum();
    let weighted: Vec<_> = weighted_stability.iter().map(|(c, s)| (*c, s)).collect();
    let stability = overall_stability(&weighted);
    let verification_method = main_method(&counted).unwrap_or(income.method);
    let income_sources: Vec<IncomeSource> = counted.into_iter().map(|(_, s)| s).collect();
    let (confidence_score, confidence_factors) = confidence::score(
        &income_sources,
        &excluded,
        stability.as_ref(),
        income.provider_confidence,
    );
    // With a subsidy the contract's two figures are about what the tenant pays: their portion.
    let (rent_to_income_ratio, passes_3x_rule) = match tenant_portion_cents(terms) {
        None => (None, None),
        Some(rent_cents) => {
            let ratio = (total_cents > 0)
                .then(|| ((rent_cents as f64 / total_cents as f64) * 10_000.0).round() / 10_000.0);
            let passes = total_cents > 0 && total_cents >= 3 * rent_cents;
            (ratio, Some(passes))
        }
    };
    IncomeReport {
        total_monthly_income: from_cents(total_cents),
        income_sources,
        verification_method,
        confidence_score,
        rent_to_income_ratio,
        passes_3x_rule,
        as_of,
        excluded_sources: excluded,
        confidence_factors,
        amounts_basis: Some(verification_method.amounts_basis()),
        affordability: affordability(terms, total_cents),
        stability,
        attempts: vec![],
        methods_used: methods_used(income),
        provider_forecast_monthly_income: provider_forecast(&once),
        local_sandbox: None,
        documents: None,
        needs_review: None,
        document_review: None,
    }
}

/// A sighting set aside by the double-count rule, as the report lists it.
fn duplicate_entry(
    d: &Duplicate,
    report_method: VerificationMethod,
    as_of: NaiveDate,
) -> ExcludedSource {
    let source = &d.dropped;
    let payments = window_payments(source, as_of);
    ExcludedSource {
        name: source.name.clone(),
        income_category: normalise_category(&source.category),
        pay_frequency: source.pay_frequency,
        method: source.method.unwrap_or(report_method),
        observed_amount: from_cents(payments.iter().map(|p| to_cents(p.amount)).sum()),
        payment_count: payments.len() as u32,
        last_payment_date: payments.last().map(|p| p.date),
        reason: ExclusionReason::Duplicate,
        explanation: format!(
            "Not counted again: the same pay as \"{}\", seen through {}, which is counted once.",
            d.kept,
            d.kept_method.words()
        ),
        duplicate_of: Some(d.kept.clone()),
    }
}

/// The methods of the sources, once each, in the order first seen.
fn methods_used(income: &ProviderIncome) -> Vec<VerificationMethod> {
    let mut used = Vec::new();
    for m in income
        .sources
        .iter()
        .map(|s| s.method.unwrap_or(income.method))
    {
        if !used.contains(&m) {
            used.push(m);
        }
    }
    used
}

/// The sum of the provider's forecasts, in whole cents, when it forecast any source.
fn provider_forecast(income: &ProviderIncome) -> Option<f64> {
    let forecasts: Vec<f64> = income
        .sources
        .iter()
        .filter_map(|s| s.provider_forecast_monthly)
        .filter(|f| f.is_finite() && *f >= 0.0)
        .collect();
    (!forecasts.is_empty()).then(|| from_cents(forecasts.iter().map(|f| to_cents(*f)).sum()))
}

/// The net figure of a source whose payments are gross and whose net pay is stated beside them:
/// the same rule over the net payments of the same dates.
fn net_monthly(
    source: &ProviderIncomeSource,
    report_method: VerificationMethod,
    category: &str,
    as_of: NaiveDate,
) -> Option<f64> {
    if source.net_payments.is_empty() || source.basis(report_method) == AmountsBasis::Net {
        return None;
    }
    let net = ProviderIncomeSource {
        payments: source.net_payments.clone(),
        net_payments: vec![],
        // A stated pay rate is gross: the net figure rests on the net payments alone.
        pay_rate: None,
        ..source.clone()
    };
    match assess(&net, category, &window_payments(&net, as_of), as_of) {
        Assessment::Counted(c) => Some(from_cents(c.monthly_cents)),
        Assessment::Excluded(_) => None,
    }
}

/// The method with the most counted income (the first seen on a tie); None without income.
fn main_method(counted: &[(i64, IncomeSource)]) -> Option<VerificationMethod> {
    let mut per_method: Vec<(VerificationMethod, i64)> = Vec::new();
    for (cents, source) in counted {
        match per_method.iter_mut().find(|(m, _)| *m == source.method) {
            Some((_, sum)) => *sum += cents,
            None => per_method.push((source.method, *cents)),
        }
    }
    per_method
        .iter()
        .filter(|(_, sum)| *sum > 0)
        .fold(
            None,
            |best: Option<(VerificationMethod, i64)>, &(m, sum)| match best {
                Some((_, top)) if top >= sum => best,
                _ => Some((m, sum)),
            },
        )
        .map(|(m, _)| m)
}

#[cfg(test)]
mod tests;
