//! The income report: the income rules applied to every source, totals, affordability,
//! stability and confidence.
//!
//! Money is computed in `f64` per source, rounded to whole cents once per source, and everything
//! after that (total, the income rule) is exact integer arithmetic on cents, so the total is
//! always the sum of the counted sources shown and the rule has no floating-point edge.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::affordability::format_money;
use crate::affordability::{Affordability, RentTerms, affordability, tenant_portion_cents};
use crate::income::rules::{Assessment, CountReason, Counted, ExclusionReason, assess, net_figure};
use crate::income::streams::{Member, Stream, group};
use crate::income::variable_pay::PayParts;
use crate::income::{
    AmountsBasis, PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod,
    normalise_category,
};
use crate::stability::{Stability, overall_stability, source_stability};

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
    /// A regular source's base pay a month, at its current rate; `monthly_income` is base plus
    /// variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_monthly_income: Option<f64>,
    /// A regular source's bonus, commission and overtime a month: its average when it recurred,
    /// else 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable_monthly_income: Option<f64>,
    /// Every sighting of this income, the one whose amounts make the figure first: a job seen by
    /// payroll and by the bank is one source with two sightings.
    #[serde(default)]
    pub sightings: Vec<Sighting>,
}

/// One method's sighting of an income source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sighting {
    pub method: VerificationMethod,
    /// The payer's name as that method gives it.
    pub name: String,
    /// The pays of the source this sighting holds.
    pub payment_count: u32,
}

/// The sightings in words, the one that makes the figure first: `payroll: "Acme Corp", 26
/// pays; bank: "ACME CORP PAYROLL", 7 pays`. The PDF and the tenant's copy print this.
pub fn sightings_words(sightings: &[Sighting]) -> String {
    sightings
        .iter()
        .map(|s| {
            format!(
                "{}: \"{}\", {} pay{}",
                s.method.words(),
                s.name,
                s.payment_count,
                if s.payment_count == 1 { "" } else { "s" }
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
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
    /// Every sighting of this income, when more than one method or account saw it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sightings: Vec<Sighting>,
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
    pub attempts: Vec<crate::methods::MethodAttempt>,
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
    /// The documents whose income counts only once the landlord accepts them, and the total it
    /// would then be; absent when none waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awaiting_review: Option<AwaitingReview>,
    /// 1 when the report is made; one more each time it is computed again (the landlord's
    /// acceptance of its documents).
    #[serde(default = "first_revision")]
    pub revision: u32,
}

/// The documents of a report whose income awaits the landlord's acceptance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AwaitingReview {
    /// Their names ("Document 2"), in upload order.
    pub documents: Vec<String>,
    /// `total_monthly_income` once they are accepted.
    pub total_monthly_income_if_accepted: f64,
}

fn first_revision() -> u32 {
    1
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
pub const MORE_THAN_ONE_METHOD: &str = "The income was verified by more than one method. Pays \
seen by two methods, matched by their dates and amounts, are one source counted once: at \
payroll's figures, else the documents', else the bank's.";

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

/// Builds the report from the provider's data and the verification's rent terms. The sightings
/// are grouped into income streams first (`income::streams`), so a job seen by two methods, or
/// paid in parts, is one stream; the income rules (`income::rules`) then run once per stream.
/// Only counted streams make the total, the affordability figures and the stability. Each
/// counted source lists its sightings; the sightings whose amounts did not make the figure are
/// also listed as `duplicate`, naming the one counted.
pub fn build_report_with(income: &ProviderIncome, terms: &RentTerms) -> IncomeReport {
    let as_of = income.as_of;
    let mut counted = Vec::new();
    let mut excluded = Vec::new();
    let mut duplicates = Vec::new();
    let mut weighted_stability = Vec::new();
    for stream in group(income) {
        let level = stream.level();
        let source = &income.sources[level.source];
        let category = normalise_category(&source.category);
        let sightings = sightings(&stream, income);
        let last_seen = stream.last_seen();
        match assess(&stream, income) {
            Assessment::Counted(c) => {
                let timeline = longest_run(&stream);
                let stability = source_stability(&timeline, c.frequency, as_of);
                if let Some(st) = &stability {
                    weighted_stability.push((c.monthly_cents, st.clone()));
                }
                if let Some(single) = c.single_variable {
                    excluded.push(single_variable_entry(source, level.method, &c, single));
                }
                duplicates.extend(
                    stream.members[1..].iter().map(|m| {
                        duplicate_entry(&income.sources[m.source], m, source, level.method)
                    }),
                );
                let (base, variable) = c.parts.unzip();
                counted.push((
                    c.monthly_cents,
                    IncomeSource {
                        name: source.name.clone(),
                        income_category: category,
                        pay_frequency: c.frequency,
                        monthly_income: from_cents(c.monthly_cents),
                        method: level.method,
                        basis: c.basis.clone(),
                        twelve_month_average: from_cents(c.twelve_month_cents),
                        reason: c.reason,
                        payment_count: stream.timeline().len() as u32,
                        last_payment_date: last_seen.unwrap_or(as_of),
                        stability: stability.map(|s| s.stability),
                        amounts_basis: Some(source.basis(income.method)),
                        net_monthly_income: net_figure(&stream, income, &c).map(from_cents),
                        provider_forecast_monthly_income: source.provider_forecast_monthly,
                        base_monthly_income: base.map(from_cents),
                        variable_monthly_income: variable.map(from_cents),
                        sightings,
                    },
                ));
            }
            Assessment::Excluded(e) => excluded.push(ExcludedSource {
                name: source.name.clone(),
                income_category: category,
                pay_frequency: e.frequency,
                method: level.method,
                observed_amount: from_cents(e.observed_cents),
                payment_count: level.payments.len() as u32,
                last_payment_date: last_seen,
                reason: e.reason,
                explanation: e.explanation,
                duplicate_of: None,
                sightings: if sightings.len() > 1 {
                    sightings
                } else {
                    vec![]
                },
            }),
        }
    }
    excluded.extend(duplicates);
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
        provider_forecast_monthly_income: provider_forecast(income),
        local_sandbox: None,
        documents: None,
        needs_review: None,
        document_review: None,
        awaiting_review: None,
        revision: first_revision(),
    }
}

/// Each source's part in a stream, the level sighting first.
fn sightings(stream: &Stream, income: &ProviderIncome) -> Vec<Sighting> {
    (stream.members.iter())
        .map(|m| Sighting {
            method: m.method,
            name: income.sources[m.source].name.clone(),
            payment_count: m.payments.len() as u32,
        })
        .collect()
}

/// The member with the most pays: its dated amounts show how steady the stream is.
fn longest_run(stream: &Stream) -> Vec<crate::income::Payment> {
    (stream.members.iter())
        .max_by_key(|m| m.payments.len())
        .map(|m| m.payments.clone())
        .unwrap_or_default()
}

/// A sighting whose amounts did not make the figure, as the report lists it.
fn duplicate_entry(
    seen: &ProviderIncomeSource,
    member: &Member,
    kept: &ProviderIncomeSource,
    kept_method: VerificationMethod,
) -> ExcludedSource {
    ExcludedSource {
        name: seen.name.clone(),
        income_category: normalise_category(&seen.category),
        pay_frequency: None,
        method: member.method,
        observed_amount: from_cents(member.payments.iter().map(|p| to_cents(p.amount)).sum()),
        payment_count: member.payments.len() as u32,
        last_payment_date: member.payments.last().map(|p| p.date),
        reason: ExclusionReason::Duplicate,
        explanation: format!(
            "Not counted again: the same pay as \"{}\", seen through {}, which is counted once.",
            kept.name,
            kept_method.words()
        ),
        duplicate_of: Some(kept.name.clone()),
        sightings: vec![],
    }
}

/// A single bonus, commission or overtime pay, listed beside the stream it came with.
fn single_variable_entry(
    source: &ProviderIncomeSource,
    method: VerificationMethod,
    counted: &Counted,
    single: PayParts,
) -> ExcludedSource {
    let (variable, base) = (to_cents(single.variable), to_cents(single.base));
    let how = if single.stated {
        "stated as variable pay".to_string()
    } else {
        format!("above base pay of {}", format_money(base))
    };
    ExcludedSource {
        name: format!("{}: variable pay", source.name),
        income_category: normalise_category(&source.category),
        pay_frequency: counted.frequency,
        method,
        observed_amount: from_cents(variable),
        payment_count: 1,
        last_payment_date: Some(single.date),
        reason: ExclusionReason::VariablePayNotRecurring,
        explanation: format!(
            "Not counted: {} paid on {} {how}, once in 12 months. Bonus, commission and overtime \
             count only when they recur.",
            format_money(variable),
            single.date
        ),
        duplicate_of: None,
        sightings: vec![],
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
