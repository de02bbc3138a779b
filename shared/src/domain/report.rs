//! The income report (design §4): monthly normalisation, totals, affordability and confidence.
//!
//! Money is computed in `f64` per source, rounded to whole cents once per source, and everything
//! after that (total, 3x rule) is exact integer arithmetic on cents, so the total is always the sum
//! of the sources shown and the 3x rule has no floating-point edge.

use serde::{Deserialize, Serialize};

use crate::domain::affordability::{Affordability, RentTerms, affordability, tenant_portion_cents};
use crate::domain::stability::{
    Payment, Stability, last_payment, overall_stability, source_stability,
};

/// How often a source pays. Irregular sources have none (`pay_frequency` absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PayFrequency {
    Weekly,
    Biweekly,
    SemiMonthly,
    Monthly,
    Daily,
    Unknown,
}

impl PayFrequency {
    /// Pay periods per month: weekly 52/12, biweekly 26/12, semi-monthly 2, daily 365/12.
    pub fn periods_per_month(self) -> f64 {
        match self {
            PayFrequency::Weekly => 52.0 / 12.0,
            PayFrequency::Biweekly => 26.0 / 12.0,
            PayFrequency::SemiMonthly => 2.0,
            PayFrequency::Monthly => 1.0,
            PayFrequency::Daily => 365.0 / 12.0,
            // An unknown cycle is reported by providers as a monthly average already.
            PayFrequency::Unknown => 1.0,
        }
    }

    /// Whether the source pays on a known cycle (counts towards regularity in the confidence).
    pub fn is_regular(self) -> bool {
        !matches!(self, PayFrequency::Unknown)
    }
}

/// How the income was verified. The full set, also named in the OpenAPI file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationMethod {
    Bank,
    Payroll,
    Document,
}

/// Whether the amounts are before (`gross`) or after (`net`) taxes and deductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AmountsBasis {
    Net,
    Gross,
}

impl VerificationMethod {
    /// Bank deposits are what reached the account (net); payroll and documents state gross pay.
    pub fn amounts_basis(self) -> AmountsBasis {
        match self {
            VerificationMethod::Bank => AmountsBasis::Net,
            VerificationMethod::Payroll | VerificationMethod::Document => AmountsBasis::Gross,
        }
    }

    fn base_confidence(self) -> f64 {
        match self {
            VerificationMethod::Payroll => 0.95,
            VerificationMethod::Bank => 0.90,
            VerificationMethod::Document => 0.70,
        }
    }
}

/// The bank-income category vocabulary (design §4), plus SELF_EMPLOYMENT accepted from providers.
pub const INCOME_CATEGORIES: &[&str] = &[
    "SALARY",
    "UNEMPLOYMENT",
    "CASH",
    "GIG_ECONOMY",
    "RENTAL",
    "CHILD_SUPPORT",
    "MILITARY",
    "RETIREMENT",
    "LONG_TERM_DISABILITY",
    "BANK_INTEREST",
    "CASH_DEPOSIT",
    "TRANSFER_FROM_APPLICATION",
    "TAX_REFUND",
    "BENEFIT_OTHER",
    "OTHER",
    "SELF_EMPLOYMENT",
];

/// Maps a provider's category onto the vocabulary; anything unknown becomes OTHER.
pub fn normalise_category(raw: &str) -> String {
    let upper = raw.trim().to_ascii_uppercase();
    if INCOME_CATEGORIES.contains(&upper.as_str()) {
        upper
    } else {
        "OTHER".to_string()
    }
}

/// One income stream as an income provider reports it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProviderIncomeSource {
    pub name: String,
    pub category: String,
    /// None for irregular income (gig work, cash deposits).
    pub pay_frequency: Option<PayFrequency>,
    /// Amount per pay period; for irregular sources, the average per month.
    pub amount_per_period: f64,
    /// How many months of history back this source.
    pub months_of_history: u32,
    /// The dated payments behind the figures, when the provider gives them (stability).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub payments: Vec<Payment>,
}

/// What an income provider hands back for one tenant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderIncome {
    pub method: VerificationMethod,
    pub sources: Vec<ProviderIncomeSource>,
    /// The provider's own confidence in [0, 1], when it gives one.
    pub provider_confidence: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IncomeSource {
    pub name: String,
    pub income_category: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pay_frequency: Option<PayFrequency>,
    pub monthly_income: f64,
    /// How steady this source is; absent when the provider gave no dated payments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<Stability>,
}

/// The income report of contract §2.4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IncomeReport {
    pub total_monthly_income: f64,
    pub income_sources: Vec<IncomeSource>,
    pub verification_method: VerificationMethod,
    pub confidence_score: f64,
    /// tenant's portion (rent less any subsidy) / total_monthly_income, 4 decimals; null
    /// without rent or without income.
    pub rent_to_income_ratio: Option<f64>,
    /// income >= 3 x the tenant's portion of the rent; null without rent.
    pub passes_3x_rule: Option<bool>,
    /// `net` for bank deposits, `gross` for payroll or document figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts_basis: Option<AmountsBasis>,
    /// The landlord's income multiple applied to the tenant's portion; absent without rent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affordability: Option<Affordability>,
    /// Stability of the whole income; absent when the provider gave no dated payments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<Stability>,
    /// Present (true) only in the local stack, on a live verification whose income came from the
    /// sandbox scenarios there: invented data, never a deployed stack's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_sandbox: Option<bool>,
}

impl IncomeReport {
    #[doc(hidden)]
    pub fn empty_for_tests() -> Self {
        build_report(
            &ProviderIncome {
                method: VerificationMethod::Bank,
                sources: vec![],
                provider_confidence: None,
            },
            None,
        )
    }
}

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

/// Monthly amount of one source, in cents.
pub fn monthly_cents(source: &ProviderIncomeSource) -> i64 {
    let per_month = source
        .pay_frequency
        .map_or(1.0, PayFrequency::periods_per_month);
    to_cents(source.amount_per_period.max(0.0) * per_month)
}

/// Confidence in [0, 1], two decimals:
/// `base(method) * (0.6 + 0.25 * history + 0.15 * regularity) * provider`, where
/// `history` is the income-weighted months of history capped at 12, divided by 12;
/// `regularity` is the share of income from sources with a known pay cycle;
/// `provider` is the provider's own confidence (1 when it gives none);
/// base is payroll 0.95, bank 0.90, document 0.70. No income means 0.
pub fn confidence_score(income: &ProviderIncome) -> f64 {
    let weights: Vec<(i64, &ProviderIncomeSource)> = income
        .sources
        .iter()
        .map(|s| (monthly_cents(s), s))
        .collect();
    let total: i64 = weights.iter().map(|(c, _)| *c).sum();
    if total <= 0 {
        return 0.0;
    }
    let total = total as f64;
    let history: f64 = weights
        .iter()
        .map(|(c, s)| *c as f64 / total * (s.months_of_history.min(12) as f64 / 12.0))
        .sum();
    let regularity: f64 = weights
        .iter()
        .filter(|(_, s)| s.pay_frequency.is_some_and(PayFrequency::is_regular))
        .map(|(c, _)| *c as f64 / total)
        .sum();
    let provider = income.provider_confidence.unwrap_or(1.0).clamp(0.0, 1.0);
    let score =
        income.method.base_confidence() * (0.6 + 0.25 * history + 0.15 * regularity) * provider;
    (score.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

/// Builds the report from the provider's figures and the verification's rent (no subsidy, the
/// default multiple).
pub fn build_report(income: &ProviderIncome, monthly_rent: Option<f64>) -> IncomeReport {
    build_report_with(income, &RentTerms::rent_only(monthly_rent))
}

/// Builds the report from the provider's figures and the verification's rent terms. Every
/// source counts at its full amount whatever its category (benefits, child support, gig work...).
pub fn build_report_with(income: &ProviderIncome, terms: &RentTerms) -> IncomeReport {
    let mut total_cents = 0i64;
    let report_last = last_payment(
        &income
            .sources
            .iter()
            .map(|s| s.payments.as_slice())
            .collect::<Vec<_>>(),
    );
    let mut stabilities = Vec::new();
    let income_sources = income
        .sources
        .iter()
        .map(|s| {
            let cents = monthly_cents(s);
            total_cents += cents;
            let stability =
                report_last.and_then(|last| source_stability(&s.payments, s.pay_frequency, last));
            let shown = stability.as_ref().map(|st| st.stability.clone());
            if let Some(st) = stability {
                stabilities.push((cents, st));
            }
            IncomeSource {
                name: s.name.clone(),
                income_category: normalise_category(&s.category),
                pay_frequency: s.pay_frequency,
                monthly_income: from_cents(cents),
                stability: shown,
            }
        })
        .collect();
    let weighted: Vec<_> = stabilities.iter().map(|(c, s)| (*c, s)).collect();
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
        verification_method: income.method,
        confidence_score: confidence_score(income),
        rent_to_income_ratio,
        passes_3x_rule,
        amounts_basis: Some(income.method.amounts_basis()),
        affordability: affordability(terms, total_cents),
        stability: overall_stability(&weighted),
        local_sandbox: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn source(freq: Option<PayFrequency>, amount: f64) -> ProviderIncomeSource {
        ProviderIncomeSource {
            name: "Acme".into(),
            category: "salary".into(),
            pay_frequency: freq,
            amount_per_period: amount,
            months_of_history: 12,
            payments: vec![],
        }
    }

    fn income(sources: Vec<ProviderIncomeSource>) -> ProviderIncome {
        ProviderIncome {
            method: VerificationMethod::Bank,
            sources,
            provider_confidence: None,
        }
    }

    #[test]
    fn normalises_by_frequency() {
        let r = build_report(
            &income(vec![
                source(Some(PayFrequency::Biweekly), 2000.0),
                source(Some(PayFrequency::Weekly), 300.0),
                source(None, 812.345),
            ]),
            Some(1500.0),
        );
        let monthly: Vec<f64> = r.income_sources.iter().map(|s| s.monthly_income).collect();
        assert_eq!(monthly, vec![4333.33, 1300.0, 812.35]);
        assert_eq!(r.total_monthly_income, 6445.68);
        assert_eq!(r.income_sources[0].income_category, "SALARY");
        assert_eq!(r.rent_to_income_ratio, Some(0.2327));
        assert_eq!(r.passes_3x_rule, Some(true));
    }

    #[test]
    fn no_rent_means_null_affordability_and_zero_income_fails() {
        let r = build_report(
            &income(vec![source(Some(PayFrequency::Monthly), 3000.0)]),
            None,
        );
        assert_eq!((r.rent_to_income_ratio, r.passes_3x_rule), (None, None));
        let r = build_report(&income(vec![]), Some(1000.0));
        assert_eq!(
            (r.rent_to_income_ratio, r.passes_3x_rule),
            (None, Some(false))
        );
        assert_eq!(r.confidence_score, 0.0);
    }

    #[test]
    fn confidence_rewards_history_and_regularity() {
        let steady = confidence_score(&income(vec![source(Some(PayFrequency::Monthly), 3000.0)]));
        let gig = confidence_score(&income(vec![ProviderIncomeSource {
            months_of_history: 3,
            ..source(None, 3000.0)
        }]));
        assert_eq!(steady, 0.9);
        assert!(gig < steady, "{gig} < {steady}");
    }

    #[test]
    fn every_lawful_category_counts_in_full() {
        // Benefits, SSI/SSDI, child support, pensions, housing assistance, gig work: no category
        // is dropped or discounted.
        let sources: Vec<ProviderIncomeSource> = INCOME_CATEGORIES
            .iter()
            .map(|c| ProviderIncomeSource {
                category: c.to_string(),
                ..source(Some(PayFrequency::Monthly), 100.0)
            })
            .collect();
        let r = build_report(&income(sources), None);
        assert_eq!(r.income_sources.len(), INCOME_CATEGORIES.len());
        assert!(r.income_sources.iter().all(|s| s.monthly_income == 100.0));
        assert_eq!(
            r.total_monthly_income,
            100.0 * INCOME_CATEGORIES.len() as f64
        );
        assert_eq!(r.amounts_basis, Some(AmountsBasis::Net));
        let payroll = ProviderIncome {
            method: VerificationMethod::Payroll,
            ..income(vec![])
        };
        assert_eq!(
            build_report(&payroll, None).amounts_basis,
            Some(AmountsBasis::Gross)
        );
    }

    #[test]
    fn a_subsidy_moves_the_contract_figures_to_the_tenants_portion() {
        let paid = income(vec![source(Some(PayFrequency::Monthly), 2000.0)]);
        let plain = build_report(&paid, Some(1000.0));
        assert_eq!(
            (plain.rent_to_income_ratio, plain.passes_3x_rule),
            (Some(0.5), Some(false))
        );
        let a = plain.affordability.unwrap();
        assert_eq!(
            (a.tenant_portion, a.income_multiple, a.income_required),
            (1000.0, 3.0, 3000.0)
        );
        let terms = RentTerms {
            monthly_rent: Some(1000.0),
            rent_subsidy_monthly: Some(400.0),
            income_multiple: Some(3.5),
        };
        let r = build_report_with(&paid, &terms);
        assert_eq!(
            (r.rent_to_income_ratio, r.passes_3x_rule),
            (Some(0.3), Some(true))
        );
        let a = r.affordability.unwrap();
        assert_eq!((a.tenant_portion, a.income_required), (600.0, 2100.0));
        assert!(!a.meets_requirement, "2,000 < 3.5 x 600");
        assert_eq!(build_report(&paid, None).affordability, None);
    }

    proptest! {
        #[test]
        fn total_is_the_sum_of_sources(amounts in proptest::collection::vec(0.0f64..50_000.0, 0..6)) {
            let sources = amounts.iter().map(|a| source(Some(PayFrequency::Biweekly), *a)).collect();
            let r = build_report(&income(sources), Some(1000.0));
            let sum_cents: i64 = r.income_sources.iter().map(|s| to_cents(s.monthly_income)).sum();
            prop_assert_eq!(to_cents(r.total_monthly_income), sum_cents);
            for s in &r.income_sources {
                // Every amount is a whole number of cents.
                prop_assert!((s.monthly_income * 100.0 - (s.monthly_income * 100.0).round()).abs() < 1e-6);
            }
        }

        #[test]
        fn exactly_three_times_rent_passes(rent_cents in 1i64..1_000_000) {
            let rent = rent_cents as f64 / 100.0;
            let exact = build_report(&income(vec![source(Some(PayFrequency::Monthly), 3.0 * rent)]), Some(rent));
            prop_assert_eq!(exact.passes_3x_rule, Some(true));
            let short = build_report(&income(vec![source(Some(PayFrequency::Monthly), (3 * rent_cents - 1) as f64 / 100.0)]), Some(rent));
            prop_assert_eq!(short.passes_3x_rule, Some(false));
        }

        #[test]
        fn ratio_is_rent_over_income_to_four_places(income_c in 1i64..10_000_000, rent_c in 0i64..1_000_000) {
            let r = build_report(&income(vec![source(Some(PayFrequency::Monthly), income_c as f64 / 100.0)]), Some(rent_c as f64 / 100.0));
            let ratio = r.rent_to_income_ratio.unwrap();
            prop_assert!((ratio - rent_c as f64 / income_c as f64).abs() <= 0.00005 + 1e-12);
            prop_assert!((ratio * 10_000.0 - (ratio * 10_000.0).round()).abs() < 1e-6);
            prop_assert!((0.0..=1.0).contains(&r.confidence_score));
        }
    }
}
