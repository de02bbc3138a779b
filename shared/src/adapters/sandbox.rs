//! The sandbox income provider: deterministic scenarios, like the sandbox users of bank-data
//! providers. Test-mode keys always use it. Live keys use it only in the local stack, which builds
//! that in code (`LiveProvider::local_sandbox`); no deployed environment can select it, and its
//! reports say `local_sandbox: true`.
//!
//! The scenario comes from the tenant's choice on the page, or else from a tag in the local part of
//! the tenant's e-mail address (`jane+lowincome@example.com`):
//!
//! | scenario    | income                                                                    |
//! |-------------|---------------------------------------------------------------------------|
//! | `good`      | salary, biweekly 2,400.00 (5,200.00 a month), 12 months of history        |
//! | `lowincome` | part-time wages, weekly 350.00 (1,516.67 a month)                         |
//! | `gig`       | salary semi-monthly 1,500.00, gig work ~850.00/month with no pay cycle, rental 600.00 monthly |
//! | `voucher`   | SSI 967.00 monthly and child support 350.00 monthly (1,317.00); create it with `rent_subsidy_monthly` |
//! | `declining` | salary biweekly, 2,200.00 until six paychecks ago, then 1,400.00 (trend declining) |
//! | `irregular` | delivery-app payouts at uneven times and amounts over seven months (regularity irregular) |
//! | `fail`      | the provider cannot read any income: the verification fails               |
//! | `outage`    | the provider is down: the tenant is asked to try again (nothing changes)  |

use chrono::{Datelike, Duration, NaiveDate};

use crate::domain::Verification;
use crate::domain::report::{
    PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};
use crate::domain::stability::{DAYS_PER_MONTH, Payment};
use crate::ports::{ConnectStep, IncomeProvider, ProviderError};

pub const SCENARIOS: [(&str, &str); 8] = [
    ("good", "Salaried, comfortably above 3x rent"),
    ("lowincome", "Part-time wages, below 3x rent"),
    ("gig", "Salary plus gig work and rental income"),
    ("voucher", "SSI and child support, with a housing voucher"),
    ("declining", "Salary whose hours were cut three months ago"),
    (
        "irregular",
        "Gig earner paid at irregular times and amounts",
    ),
    ("fail", "Bank connection with no readable income"),
    ("outage", "Provider temporarily unavailable"),
];

/// The scenario tagged in an e-mail address (`name+tag@domain`), if it is a known one.
pub fn scenario_from_email(email: &str) -> Option<&'static str> {
    let local = email.split('@').next()?;
    let tag = local.split_once('+')?.1.to_ascii_lowercase();
    SCENARIOS.iter().map(|(s, _)| *s).find(|s| *s == tag)
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SandboxProvider;

/// `n` payment dates on the cycle of `freq`, the last one on or before `last`, oldest first.
/// Monthly pays on the 1st; semi-monthly on the 15th and the month's last day.
fn cycle_dates(freq: PayFrequency, last: NaiveDate, n: usize) -> Vec<NaiveDate> {
    let month_back = |i: usize| {
        last.with_day(1)
            .and_then(|first| first.checked_sub_months(chrono::Months::new(i as u32)))
            .expect("a date in range")
    };
    let mut dates: Vec<NaiveDate> = match freq {
        PayFrequency::Weekly => (0..n)
            .map(|i| last - Duration::days(7 * i as i64))
            .collect(),
        PayFrequency::Biweekly => (0..n)
            .map(|i| last - Duration::days(14 * i as i64))
            .collect(),
        PayFrequency::Daily => (0..n).map(|i| last - Duration::days(i as i64)).collect(),
        PayFrequency::Monthly | PayFrequency::Unknown => (0..n).map(month_back).collect(),
        PayFrequency::SemiMonthly => (0..n + 2)
            .flat_map(|i| {
                let month = month_back(i);
                let month_end = month_back(i)
                    .checked_add_months(chrono::Months::new(1))
                    .expect("a date in range")
                    - Duration::days(1);
                [month_end, month.with_day(15).expect("the 15th exists")]
            })
            .filter(|d| *d <= last)
            .take(n)
            .collect(),
    };
    dates.reverse();
    dates
}

/// A source paid on a cycle: `amount(i)` for the i-th payment (oldest first). The amount per
/// period is the average payment, as a bank-income provider reports it.
fn paid_on_cycle(
    name: &str,
    category: &str,
    freq: PayFrequency,
    last: NaiveDate,
    n: usize,
    amount: impl Fn(usize) -> f64,
) -> ProviderIncomeSource {
    let payments: Vec<Payment> = cycle_dates(freq, last, n)
        .into_iter()
        .enumerate()
        .map(|(i, date)| Payment {
            date,
            amount: amount(i),
        })
        .collect();
    let total: f64 = payments.iter().map(|p| p.amount).sum();
    ProviderIncomeSource {
        name: name.into(),
        category: category.into(),
        pay_frequency: Some(freq),
        amount_per_period: total / n as f64,
        months_of_history: (n as f64 / freq.periods_per_month()).round() as u32,
        payments,
    }
}

/// A source without a pay cycle: payouts after the given gaps (days), the last on `last`; the
/// amount per period is the monthly average over the observed window.
fn paid_irregularly(
    name: &str,
    category: &str,
    last: NaiveDate,
    payouts: &[(i64, f64)],
) -> ProviderIncomeSource {
    let span: i64 = payouts.iter().skip(1).map(|(gap, _)| gap).sum();
    let mut date = last - Duration::days(span);
    let mut payments = Vec::new();
    for (i, (gap, amount)) in payouts.iter().enumerate() {
        if i > 0 {
            date += Duration::days(*gap);
        }
        payments.push(Payment {
            date,
            amount: *amount,
        });
    }
    let total: f64 = payments.iter().map(|p| p.amount).sum();
    let months = ((span + 1) as f64 / DAYS_PER_MONTH).max(1.0);
    ProviderIncomeSource {
        name: name.into(),
        category: category.into(),
        pay_frequency: None,
        amount_per_period: total / months,
        months_of_history: months.round() as u32,
        payments,
    }
}

/// Rideshare payouts: four a month on the 3rd, 9th, 18th and 26th, 850.00 a month in all.
fn monthly_payouts(months: usize) -> Vec<(i64, f64)> {
    let amounts = [180.0, 260.0, 150.0, 260.0];
    let days = [3i64, 9, 18, 26];
    let mut out = Vec::new();
    let mut previous: Option<i64> = None;
    for m in 0..months {
        for (k, day) in days.iter().enumerate() {
            let absolute = m as i64 * 30 + day;
            out.push((absolute - previous.unwrap_or(absolute), amounts[k]));
            previous = Some(absolute);
        }
    }
    out
}

/// Payouts of an irregular gig earner: uneven gaps (days) and amounts, seven months.
const IRREGULAR_PAYOUTS: [(i64, f64); 24] = [
    (0, 212.40),
    (3, 88.10),
    (12, 341.75),
    (2, 64.00),
    (19, 420.30),
    (1, 55.25),
    (9, 190.00),
    (14, 275.60),
    (4, 38.90),
    (21, 510.00),
    (2, 120.45),
    (6, 98.70),
    (17, 365.20),
    (3, 72.15),
    (11, 240.00),
    (25, 610.80),
    (1, 45.35),
    (8, 160.90),
    (13, 298.40),
    (5, 84.60),
    (16, 402.25),
    (2, 66.80),
    (10, 215.70),
    (7, 133.30),
];

/// The figures of one scenario, with payments up to a few days before `as_of`.
pub fn scenario_income(scenario: &str, as_of: NaiveDate) -> Result<ProviderIncome, ProviderError> {
    let last = as_of - Duration::days(3);
    let sources = match scenario {
        "good" => vec![paid_on_cycle(
            "Acme Corporation payroll",
            "SALARY",
            PayFrequency::Biweekly,
            last,
            26,
            |_| 2400.0,
        )],
        "lowincome" => vec![paid_on_cycle(
            "Corner Cafe wages",
            "SALARY",
            PayFrequency::Weekly,
            last,
            35,
            |_| 350.0,
        )],
        "gig" => vec![
            paid_on_cycle(
                "City Library payroll",
                "SALARY",
                PayFrequency::SemiMonthly,
                last,
                24,
                |_| 1500.0,
            ),
            ProviderIncomeSource {
                // Six months of payouts averaging 850.00 a month.
                amount_per_period: 850.0,
                months_of_history: 6,
                ..paid_irregularly(
                    "Rideshare driver payouts",
                    "GIG_ECONOMY",
                    last,
                    &monthly_payouts(6),
                )
            },
            paid_on_cycle(
                "Garage rental",
                "RENTAL",
                PayFrequency::Monthly,
                last,
                12,
                |_| 600.0,
            ),
        ],
        "voucher" => vec![
            paid_on_cycle(
                "Supplemental Security Income (SSI)",
                "BENEFIT_OTHER",
                PayFrequency::Monthly,
                last,
                12,
                |_| 967.0,
            ),
            paid_on_cycle(
                "Child support",
                "CHILD_SUPPORT",
                PayFrequency::Monthly,
                last,
                12,
                |_| 350.0,
            ),
        ],
        // 20 paychecks of 2,200.00, then six of 1,400.00 after the hours were cut.
        "declining" => vec![paid_on_cycle(
            "Northside Warehouse payroll",
            "SALARY",
            PayFrequency::Biweekly,
            last,
            26,
            |i| if i < 20 { 2200.0 } else { 1400.0 },
        )],
        "irregular" => vec![paid_irregularly(
            "Delivery app payouts",
            "GIG_ECONOMY",
            last,
            &IRREGULAR_PAYOUTS,
        )],
        "fail" => {
            return Err(ProviderError::Rejected(
                "no income could be read from the connected accounts".into(),
            ));
        }
        "outage" => return Err(ProviderError::Unavailable("sandbox outage scenario".into())),
        _ => return Err(ProviderError::Rejected("unknown sandbox scenario".into())),
    };
    Ok(ProviderIncome {
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: Some(0.95),
    })
}

impl IncomeProvider for SandboxProvider {
    async fn begin(
        &self,
        _verification: &Verification,
        _provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        Ok(ConnectStep::ChooseScenario {
            scenarios: SCENARIOS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
    }

    async fn fetch_income(
        &self,
        verification: &Verification,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        // Deterministic for a verification: the payments end just before it was created.
        scenario_income(connection, verification.created_at.date_naive())
    }

    fn simulated(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::affordability::RentTerms;
    use crate::domain::report::{IncomeReport, build_report_with};
    use crate::domain::stability::{RegularityLabel, TrendLabel};

    #[test]
    fn tags_pick_scenarios() {
        assert_eq!(scenario_from_email("jane+good@example.com"), Some("good"));
        assert_eq!(
            scenario_from_email("Jane+LowIncome@example.com"),
            Some("lowincome")
        );
        assert_eq!(scenario_from_email("jane+other@example.com"), None);
        assert_eq!(scenario_from_email("jane@example.com"), None);
    }

    fn as_of() -> NaiveDate {
        "2026-11-20".parse().unwrap()
    }

    fn report(scenario: &str, terms: &RentTerms) -> IncomeReport {
        build_report_with(&scenario_income(scenario, as_of()).unwrap(), terms)
    }

    #[test]
    fn scenarios_give_the_documented_reports() {
        let rent = RentTerms::rent_only(Some(1500.0));
        let good = report("good", &rent);
        assert_eq!(good.total_monthly_income, 5200.0);
        assert_eq!(good.passes_3x_rule, Some(true));
        let low = report("lowincome", &rent);
        assert_eq!(low.total_monthly_income, 1516.67);
        assert_eq!(low.passes_3x_rule, Some(false));
        let gig = report("gig", &rent);
        assert_eq!(gig.total_monthly_income, 4450.0);
        assert_eq!(gig.income_sources[1].pay_frequency, None);
        assert_eq!(gig.income_sources[1].income_category, "GIG_ECONOMY");
        assert!(matches!(
            scenario_income("fail", as_of()),
            Err(ProviderError::Rejected(_))
        ));
        assert!(matches!(
            scenario_income("outage", as_of()),
            Err(ProviderError::Unavailable(_))
        ));
        // Every payment lies on or before the last one, a few days before the verification.
        for (scenario, _) in SCENARIOS
            .iter()
            .filter(|(s, _)| !["fail", "outage"].contains(s))
        {
            let income = scenario_income(scenario, as_of()).unwrap();
            for s in &income.sources {
                assert!(
                    s.payments
                        .iter()
                        .all(|p| p.date <= as_of() - Duration::days(3))
                );
                assert!(!s.payments.is_empty(), "{scenario}");
            }
            let r = build_report_with(&income, &rent);
            let stability = r.stability.expect("dated payments give stability");
            let last = stability.last_payment_date;
            assert!(last > as_of() - Duration::days(35) && last <= as_of() - Duration::days(3));
        }
    }

    #[test]
    fn the_voucher_holder_meets_the_rule_on_their_portion() {
        let terms = RentTerms {
            monthly_rent: Some(1400.0),
            rent_subsidy_monthly: Some(1000.0),
            income_multiple: None,
        };
        let r = report("voucher", &terms);
        assert_eq!(r.total_monthly_income, 1317.0);
        let a = r.affordability.unwrap();
        assert_eq!((a.tenant_portion, a.income_required), (400.0, 1200.0));
        assert!(a.meets_requirement);
        assert_eq!(r.passes_3x_rule, Some(true));
        assert_eq!(r.rent_to_income_ratio, Some(0.3037));
        // Without the subsidy the same income fails 3x the rent.
        assert_eq!(
            report("voucher", &RentTerms::rent_only(Some(1400.0))).passes_3x_rule,
            Some(false)
        );
        let categories: Vec<&str> = r
            .income_sources
            .iter()
            .map(|s| s.income_category.as_str())
            .collect();
        assert_eq!(categories, ["BENEFIT_OTHER", "CHILD_SUPPORT"]);
        let st = r.stability.unwrap();
        assert_eq!(st.regularity.label, RegularityLabel::Regular);
        assert_eq!(st.trend.label, TrendLabel::Stable);
        assert_eq!(st.months_observed, 12);
    }

    #[test]
    fn declining_and_irregular_scenarios_show_it() {
        let rent = RentTerms::rent_only(Some(1500.0));
        let declining = report("declining", &rent);
        let trend = &declining.income_sources[0]
            .stability
            .as_ref()
            .unwrap()
            .trend;
        assert_eq!(trend.label, TrendLabel::Declining);
        assert!(trend.change_percent.unwrap() <= -25.0, "{trend:?}");
        assert_eq!(
            declining.stability.unwrap().trend.label,
            TrendLabel::Declining
        );
        let irregular = report("irregular", &rent);
        let st = irregular.stability.unwrap();
        assert_eq!(st.regularity.label, RegularityLabel::Irregular);
        assert_eq!(irregular.income_sources[0].pay_frequency, None);
        assert_eq!(st.months_observed, 7);
    }

    #[test]
    fn semi_monthly_pays_on_the_15th_and_the_last_day() {
        let d = |s: &str| s.parse::<NaiveDate>().unwrap();
        let dates = cycle_dates(PayFrequency::SemiMonthly, d("2026-03-20"), 4);
        assert_eq!(
            dates,
            [
                d("2026-01-31"),
                d("2026-02-15"),
                d("2026-02-28"),
                d("2026-03-15")
            ]
        );
        let dates = cycle_dates(PayFrequency::Monthly, d("2026-03-20"), 2);
        assert_eq!(dates, [d("2026-02-01"), d("2026-03-01")]);
    }
}
