//! What every income provider hands the domain: each source's dated payments and, where the
//! provider states them, its pay rate, pay frequency and employment status. The income rules
//! (`income/rules.rs`) turn this into the figures of the report; no adapter does income
//! arithmetic.
//!
//! The same shape is the input of `admin income-report --payments FILE` (documented in
//! `docs/income-report.md`), so a report can be rebuilt from the raw data.

use chrono::{Datelike, Duration, Months, NaiveDate};
use serde::{Deserialize, Deserializer, Serialize};

pub mod cadence;
pub mod payer;
#[cfg(test)]
mod props;
pub mod rules;
pub mod streams;
pub mod variable_pay;

/// Days in an average month (12 make a Julian year).
pub const DAYS_PER_MONTH: f64 = 365.25 / 12.0;

/// How often a source pays. A source without one is irregular (gig payouts, cash deposits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PayFrequency {
    Weekly,
    Biweekly,
    SemiMonthly,
    Monthly,
    Daily,
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
        }
    }

    /// How often, in words ("every two weeks").
    pub fn words(self) -> &'static str {
        match self {
            PayFrequency::Weekly => "weekly",
            PayFrequency::Biweekly => "every two weeks",
            PayFrequency::SemiMonthly => "twice a month",
            PayFrequency::Monthly => "monthly",
            PayFrequency::Daily => "daily",
        }
    }

    /// The average length of one pay period, in days.
    pub fn period_days(self) -> f64 {
        DAYS_PER_MONTH / self.periods_per_month()
    }

    /// The wire name of a provider's frequency; `UNKNOWN` and anything unrecognised is None.
    pub fn parse(raw: &str) -> Option<PayFrequency> {
        match raw.trim().to_ascii_uppercase().as_str() {
            "WEEKLY" => Some(PayFrequency::Weekly),
            "BIWEEKLY" => Some(PayFrequency::Biweekly),
            "SEMI_MONTHLY" => Some(PayFrequency::SemiMonthly),
            "MONTHLY" => Some(PayFrequency::Monthly),
            "DAILY" => Some(PayFrequency::Daily),
            _ => None,
        }
    }

    /// `n` payment dates on this cycle, the last one on `last`, oldest first. Monthly pays on
    /// `last`'s day of the month (clamped to the month's end); semi-monthly on the 15th and the
    /// month's last day. Used by the sandbox and test fixtures to lay out payments.
    pub fn dates_back(self, last: NaiveDate, n: usize) -> Vec<NaiveDate> {
        let months_back = |i: usize| last.checked_sub_months(Months::new(i as u32));
        let mut dates: Vec<NaiveDate> = match self {
            PayFrequency::Weekly => (0..n)
                .map(|i| last - Duration::days(7 * i as i64))
                .collect(),
            PayFrequency::Biweekly => (0..n)
                .map(|i| last - Duration::days(14 * i as i64))
                .collect(),
            PayFrequency::Daily => (0..n).map(|i| last - Duration::days(i as i64)).collect(),
            PayFrequency::Monthly => (0..n).filter_map(months_back).collect(),
            PayFrequency::SemiMonthly => (0..n + 2)
                .filter_map(|i| last.with_day(1)?.checked_sub_months(Months::new(i as u32)))
                .flat_map(|first| {
                    let end = first
                        .checked_add_months(Months::new(1))
                        .map(|next| next - Duration::days(1));
                    [end, first.with_day(15)]
                })
                .flatten()
                .filter(|d| *d <= last)
                .take(n)
                .collect(),
        };
        dates.reverse();
        dates
    }
}

/// How the income was verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationMethod {
    #[default]
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
}

/// Whether the provider states the job as current or as ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmploymentStatus {
    Active,
    Ended,
}

/// One dated payment of an income source, as the provider saw it deposited (or paid).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    pub date: NaiveDate,
    pub amount: f64,
}

/// Income categories that are lawful income and count in full when recurring.
pub const COUNTED_CATEGORIES: &[&str] = &[
    "SALARY",
    "SELF_EMPLOYMENT",
    "GIG_ECONOMY",
    "UNEMPLOYMENT",
    "BENEFIT_OTHER",
    "LONG_TERM_DISABILITY",
    "RETIREMENT",
    "MILITARY",
    "CHILD_SUPPORT",
    "RENTAL",
    "BANK_INTEREST",
    "CASH",
    "CASH_DEPOSIT",
    "TRANSFER_FROM_APPLICATION",
    "OTHER",
];

/// Categories that are money in but not income: listed in the report, never counted.
pub const NOT_INCOME_CATEGORIES: &[&str] = &["TAX_REFUND", "TRANSFER_OWN_ACCOUNTS", "LOAN"];

/// Maps a provider's category onto the vocabulary; anything unknown becomes OTHER.
pub fn normalise_category(raw: &str) -> String {
    let upper = raw.trim().to_ascii_uppercase();
    if COUNTED_CATEGORIES.contains(&upper.as_str())
        || NOT_INCOME_CATEGORIES.contains(&upper.as_str())
    {
        upper
    } else {
        "OTHER".to_string()
    }
}

/// Whether a (normalised) category is income at all.
pub fn is_income_category(category: &str) -> bool {
    !NOT_INCOME_CATEGORIES.contains(&category)
}

/// One income stream as a provider reports it: what was paid, and what the provider states.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProviderIncomeSource {
    pub name: String,
    pub category: String,
    /// How this source was seen; absent means the report's method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<VerificationMethod>,
    /// None for irregular income; a provider's `UNKNOWN` reads as None.
    #[serde(
        default,
        deserialize_with = "frequency_or_irregular",
        skip_serializing_if = "Option::is_none"
    )]
    pub pay_frequency: Option<PayFrequency>,
    /// The pay per period the provider states (payroll, a pay stub), beside the payments seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pay_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub employment_status: Option<EmploymentStatus>,
    /// The dated payments inside the provider's data window.
    #[serde(default)]
    pub payments: Vec<Payment>,
    /// Whether `payments` are before or after taxes and deductions; absent means the method's
    /// (`VerificationMethod::amounts_basis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts_basis: Option<AmountsBasis>,
    /// The net pay of the same pay dates, when the provider states it beside gross `payments`
    /// (payroll, pay stubs): the report counts it by the same rules, beside the gross figure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub net_payments: Vec<Payment>,
    /// The variable part (bonus, commission, overtime) of gross `payments` of the same dates,
    /// when the provider breaks pay down (payroll earnings lines, a stub's earnings rows): the
    /// rules count it apart from base pay (`income::variable_pay`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variable_payments: Vec<Payment>,
    /// True when `payments` are awards in force from their dates on, not money received (a
    /// benefit award letter): the source counts at the award in force on the as-of date and is
    /// never ended by silence.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ongoing: bool,
    /// The provider's own forecast of this source's monthly income (Plaid Check's Income
    /// Insights), kept beside the rules' figure and never used to make it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_forecast_monthly: Option<f64>,
}

impl ProviderIncomeSource {
    /// Whether this source's `payments` are gross or net, given the report's method.
    pub fn basis(&self, report_method: VerificationMethod) -> AmountsBasis {
        self.amounts_basis
            .unwrap_or_else(|| self.method.unwrap_or(report_method).amounts_basis())
    }
}

/// The payments the rules look at: inside the window (on or before `as_of`), positive, oldest
/// first.
pub fn window_payments(payments: &[Payment], as_of: NaiveDate) -> Vec<Payment> {
    let mut payments: Vec<Payment> = payments
        .iter()
        .copied()
        .filter(|p| p.amount.is_finite() && p.amount > 0.0 && p.date <= as_of)
        .collect();
    payments.sort_by_key(|p| p.date);
    payments
}

/// What an income provider hands back for one tenant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderIncome {
    /// The end of the provider's data window: the report's figures are as of this date.
    pub as_of: NaiveDate,
    /// The method of sources that name none.
    #[serde(default)]
    pub method: VerificationMethod,
    pub sources: Vec<ProviderIncomeSource>,
    /// The provider's own confidence in [0, 1], when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_confidence: Option<f64>,
}

impl ProviderIncome {
    /// A provider's income data without sources, as of `as_of`.
    pub fn empty(method: VerificationMethod, as_of: NaiveDate) -> Self {
        ProviderIncome {
            as_of,
            method,
            sources: vec![],
            provider_confidence: None,
        }
    }
}

impl ProviderIncome {
    /// This income beside `held`, the income of methods read before: every source keeps its own
    /// method; the as-of date is the later of the two windows' ends; the provider's confidence
    /// the lower. The held income comes first, so its method is the one of sources naming none.
    pub fn joined(&self, held: Option<&ProviderIncome>) -> ProviderIncome {
        fn with_method(income: &ProviderIncome) -> impl Iterator<Item = ProviderIncomeSource> + '_ {
            income.sources.iter().map(|s| ProviderIncomeSource {
                method: Some(s.method.unwrap_or(income.method)),
                ..s.clone()
            })
        }
        let Some(held) = held else {
            return self.clone();
        };
        let confidence = match (held.provider_confidence, self.provider_confidence) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        ProviderIncome {
            as_of: held.as_of.max(self.as_of),
            method: held.method,
            sources: with_method(held).chain(with_method(self)).collect(),
            provider_confidence: confidence,
        }
    }
}

impl ProviderIncomeSource {
    /// A source paying `amount` every period, `n` payments, the last on `last`: for fixtures.
    pub fn on_cycle(
        name: &str,
        category: &str,
        frequency: PayFrequency,
        last: NaiveDate,
        n: usize,
        amount: impl Fn(usize) -> f64,
    ) -> Self {
        let payments = frequency
            .dates_back(last, n)
            .into_iter()
            .enumerate()
            .map(|(i, date)| Payment {
                date,
                amount: amount(i),
            })
            .collect();
        ProviderIncomeSource {
            name: name.into(),
            category: category.into(),
            pay_frequency: Some(frequency),
            payments,
            ..Default::default()
        }
    }
}

impl ProviderIncomeSource {
    /// The same source with net pay of `net` stated beside each of its payments' dates: for
    /// fixtures of payroll and stubs.
    pub fn with_net(self, net: f64) -> Self {
        let net_payments = self
            .payments
            .iter()
            .map(|p| Payment {
                date: p.date,
                amount: net,
            })
            .collect();
        ProviderIncomeSource {
            net_payments,
            ..self
        }
    }
}

fn frequency_or_irregular<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<PayFrequency>, D::Error> {
    let raw = Option::<String>::deserialize(d)?;
    match raw {
        None => Ok(None),
        Some(s) if s.trim().eq_ignore_ascii_case("UNKNOWN") || s.trim().is_empty() => Ok(None),
        Some(s) => PayFrequency::parse(&s).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown pay frequency '{s}' (WEEKLY, BIWEEKLY, SEMI_MONTHLY, MONTHLY, DAILY or UNKNOWN)"
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn cycles_lay_out_dates_back_from_the_last() {
        let dates = PayFrequency::SemiMonthly.dates_back(d("2026-03-20"), 4);
        assert_eq!(
            dates,
            [
                d("2026-01-31"),
                d("2026-02-15"),
                d("2026-02-28"),
                d("2026-03-15")
            ]
        );
        let dates = PayFrequency::Monthly.dates_back(d("2026-03-31"), 2);
        assert_eq!(dates, [d("2026-02-28"), d("2026-03-31")]);
        let dates = PayFrequency::Biweekly.dates_back(d("2026-03-20"), 2);
        assert_eq!(dates, [d("2026-03-06"), d("2026-03-20")]);
    }

    #[test]
    fn categories_normalise_and_split_income_from_money_that_is_not() {
        assert_eq!(normalise_category(" salary "), "SALARY");
        assert_eq!(normalise_category("crypto staking"), "OTHER");
        for c in NOT_INCOME_CATEGORIES {
            assert_eq!(normalise_category(c), *c);
            assert!(!is_income_category(c));
        }
        assert!(COUNTED_CATEGORIES.iter().all(|c| is_income_category(c)));
    }

    #[test]
    fn the_documented_input_reads_with_its_optional_fields() {
        let income: ProviderIncome = serde_json::from_str(
            r#"{"as_of": "2026-11-13", "sources": [
                {"name": "Acme payroll", "category": "SALARY", "method": "bank",
                 "pay_frequency": "BIWEEKLY", "payments": [{"date": "2026-11-13", "amount": 2307.69}]},
                {"name": "Tips", "category": "CASH", "pay_frequency": "UNKNOWN", "payments": []},
                {"name": "Job", "category": "SALARY", "method": "payroll", "pay_rate": 1200.0,
                 "employment_status": "ended"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(income.as_of, d("2026-11-13"));
        assert_eq!(income.method, VerificationMethod::Bank);
        assert_eq!(
            income.sources[0].pay_frequency,
            Some(PayFrequency::Biweekly)
        );
        assert_eq!(income.sources[1].pay_frequency, None);
        assert_eq!(
            income.sources[2].employment_status,
            Some(EmploymentStatus::Ended)
        );
        let bad = serde_json::from_str::<ProviderIncome>(
            r#"{"as_of": "2026-11-13", "sources": [{"name": "x", "category": "SALARY", "pay_frequency": "FORTNIGHTLY"}]}"#,
        )
        .unwrap_err();
        assert!(bad.to_string().contains("FORTNIGHTLY"), "{bad}");
    }
}
