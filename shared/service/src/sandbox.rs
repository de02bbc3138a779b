//! The sandbox income provider: deterministic scenarios, like the sandbox users of bank-data
//! providers. Test-mode keys always use it. Live keys use it only in the local stack, which builds
//! that in code (`LiveProvider::local_sandbox`); no deployed environment can select it, and its
//! reports say `local_sandbox: true`.
//!
//! The scenario comes from the tenant's choice on the page, or else from a tag in the local part of
//! the tenant's e-mail address (`jane+lowincome@example.com`).
//!
//! The sandbox hands over dated payments only, as a bank would show them; the domain's income
//! rules make every figure. The figures below are what those rules give:
//!
//! | scenario    | payments                                                                  | counted a month |
//! |-------------|---------------------------------------------------------------------------|-----------------|
//! | `good`      | salary, 26 biweekly paychecks of 2,400.00                                 | 5,200.00 |
//! | `lowincome` | part-time wages, 35 weekly payments of 350.00                             | 1,516.67 |
//! | `gig`       | salary semi-monthly 1,500.00, rideshare payouts four times a month for six months, garage rental 600.00 monthly | 4,482.00 |
//! | `voucher`   | SSI 967.00 and child support 350.00, monthly; create it with `rent_subsidy_monthly` | 1,317.00 |
//! | `declining` | salary biweekly, 19 paychecks of 2,200.00, then 7 of 1,400.00 after the hours were cut | 3,033.33 |
//! | `irregular` | delivery-app payouts at uneven times and amounts over seven months        | 726.93 |
//! | `oneoff`    | delivery-app payouts for six months beside one 4,000.00 cash deposit (not counted) | 1,200.00 |
//! | `ended`     | a biweekly salary that ended six months ago (not counted), weekly wages 450.00 since | 1,950.00 |
//! | `transfers` | salary biweekly 2,000.00 and monthly 1,000.00 moved in from the tenant's savings (not counted) | 4,333.33 |
//! | `samejob`   | the `payroll_active` job as a bank sees it: 24 semi-monthly deposits of its net pay 2,012.40 | 4,024.80 |
//! | `fail`      | the provider cannot read any income: the verification fails               | |
//! | `outage`    | the provider is down: the tenant is asked to try again (nothing changes)  | |
//!
//! The payroll method has its own scenarios (`payroll`), offered as the verification's methods
//! allow.

mod payroll;

use chrono::{Duration, NaiveDate};

use domain::Verification;
use domain::income::{
    PayFrequency, Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};
use ports::{ConnectStep, IncomeProvider, ProviderError};

pub const SCENARIOS: [(&str, &str); 12] = [
    ("good", "Salaried, comfortably above 3x rent"),
    ("lowincome", "Part-time wages, below 3x rent"),
    ("gig", "Salary plus gig work and rental income"),
    ("voucher", "SSI and child support, with a housing voucher"),
    ("declining", "Salary whose hours were cut three months ago"),
    (
        "irregular",
        "Gig earner paid at irregular times and amounts",
    ),
    ("oneoff", "Gig work beside one large cash deposit"),
    ("ended", "A salary that ended, and current weekly wages"),
    (
        "transfers",
        "Salary plus transfers from the tenant's savings",
    ),
    (
        "samejob",
        "The payroll scenario's job, seen as bank deposits",
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

/// A source without a pay cycle: payouts after the given gaps (days), the last on `last`.
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
    ProviderIncomeSource {
        name: name.into(),
        category: category.into(),
        payments,
        ..Default::default()
    }
}

/// One payment on `date`.
fn paid_once(name: &str, category: &str, date: NaiveDate, amount: f64) -> ProviderIncomeSource {
    ProviderIncomeSource {
        name: name.into(),
        category: category.into(),
        payments: vec![Payment { date, amount }],
        ..Default::default()
    }
}

/// Rideshare payouts: four a month on the 3rd, 4th, 5th and 26th of 30-day months.
fn monthly_payouts(months: usize) -> Vec<(i64, f64)> {
    let amounts = [180.0, 260.0, 150.0, 260.0];
    // Uneven days: the rules measure no cycle in them, so the payouts stay irregular income.
    let days = [3i64, 4, 5, 26];
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

/// Delivery payouts cashed out in bursts, two a day or two apart every two weeks, for 26 weeks:
/// 27 payouts over the 182 days to the last one, which with the last three days before the
/// as-of date make 185 days (6.08 months). No cycle fits their dates, so they are irregular
/// income; they add up to 7,293.63, so the rules count 1,200.00 a month.
fn weekly_delivery_payouts() -> Vec<(i64, f64)> {
    let mut payouts: Vec<(i64, f64)> = (0..27)
        .map(|i| {
            let gap = match i {
                0 => 0,
                i if i % 4 == 1 => 1,
                i if i % 4 == 2 => 13,
                i if i % 4 == 3 => 2,
                _ => 12,
            };
            (gap, if i % 2 == 0 { 250.0 } else { 290.0 })
        })
        .collect();
    // 14 x 250 + 13 x 290 = 7,270.00; the last payout brings the total to 7,293.63.
    payouts[26].1 += 23.63;
    payouts
}

pub use payroll::PAYROLL_SCENARIOS;

/// Whether `name` is a sandbox scenario of any method.
pub fn is_scenario(name: &str) -> bool {
    SCENARIOS
        .iter()
        .chain(PAYROLL_SCENARIOS.iter())
        .any(|(k, _)| *k == name)
}

/// The scenarios a verification's tenant may pick: the bank ones and the payroll ones, as its
/// methods allow (in the order of its methods).
pub fn scenarios_for(methods: &[VerificationMethod]) -> Vec<(String, String)> {
    methods
        .iter()
        .flat_map(|m| match m {
            VerificationMethod::Bank => SCENARIOS.as_slice(),
            VerificationMethod::Payroll => PAYROLL_SCENARIOS.as_slice(),
            VerificationMethod::Document => &[],
        })
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The method a scenario stands for.
pub fn scenario_method(scenario: &str) -> VerificationMethod {
    if PAYROLL_SCENARIOS.iter().any(|(k, _)| *k == scenario) {
        VerificationMethod::Payroll
    } else {
        VerificationMethod::Bank
    }
}

/// The payments of one scenario, up to a few days before `as_of`, the end of its data window.
pub fn scenario_income(scenario: &str, as_of: NaiveDate) -> Result<ProviderIncome, ProviderError> {
    if let Some(income) = payroll::payroll_income(scenario, as_of) {
        return Ok(income);
    }
    let last = as_of - Duration::days(3);
    let sources = match scenario {
        "good" => vec![ProviderIncomeSource::on_cycle(
            "Acme Corporation payroll",
            "SALARY",
            PayFrequency::Biweekly,
            last,
            26,
            |_| 2400.0,
        )],
        "lowincome" => vec![ProviderIncomeSource::on_cycle(
            "Corner Cafe wages",
            "SALARY",
            PayFrequency::Weekly,
            last,
            35,
            |_| 350.0,
        )],
        "gig" => vec![
            ProviderIncomeSource::on_cycle(
                "City Library payroll",
                "SALARY",
                PayFrequency::SemiMonthly,
                last,
                24,
                |_| 1500.0,
            ),
            paid_irregularly(
                "Rideshare driver payouts",
                "GIG_ECONOMY",
                last,
                &monthly_payouts(6),
            ),
            ProviderIncomeSource::on_cycle(
                "Garage rental",
                "RENTAL",
                PayFrequency::Monthly,
                last,
                12,
                |_| 600.0,
            ),
        ],
        "voucher" => vec![
            ProviderIncomeSource::on_cycle(
                "Supplemental Security Income (SSI)",
                "BENEFIT_OTHER",
                PayFrequency::Monthly,
                last,
                12,
                |_| 967.0,
            ),
            ProviderIncomeSource::on_cycle(
                "Child support",
                "CHILD_SUPPORT",
                PayFrequency::Monthly,
                last,
                12,
                |_| 350.0,
            ),
        ],
        // 19 paychecks of 2,200.00, then seven of 1,400.00 since the hours were cut.
        "declining" => vec![ProviderIncomeSource::on_cycle(
            "Northside Warehouse payroll",
            "SALARY",
            PayFrequency::Biweekly,
            last,
            26,
            |i| if i < 19 { 2200.0 } else { 1400.0 },
        )],
        "irregular" => vec![paid_irregularly(
            "Delivery app payouts",
            "GIG_ECONOMY",
            last,
            &IRREGULAR_PAYOUTS,
        )],
        "oneoff" => vec![
            paid_irregularly(
                "Delivery app payouts",
                "GIG_ECONOMY",
                last,
                &weekly_delivery_payouts(),
            ),
            paid_once(
                "Cash deposit",
                "CASH_DEPOSIT",
                last - Duration::days(40),
                4000.0,
            ),
        ],
        // Paid every two weeks until six months ago; weekly wages at a new job since.
        "ended" => vec![
            ProviderIncomeSource::on_cycle(
                "Harbor Logistics payroll",
                "SALARY",
                PayFrequency::Biweekly,
                last - Duration::days(182),
                13,
                |_| 2400.0,
            ),
            ProviderIncomeSource::on_cycle(
                "Riverside Grocery wages",
                "SALARY",
                PayFrequency::Weekly,
                last,
                24,
                |_| 450.0,
            ),
        ],
        "transfers" => vec![
            ProviderIncomeSource::on_cycle(
                "Acme Corporation payroll",
                "SALARY",
                PayFrequency::Biweekly,
                last,
                26,
                |_| 2000.0,
            ),
            ProviderIncomeSource::on_cycle(
                "Transfer from savings",
                "TRANSFER_OWN_ACCOUNTS",
                PayFrequency::Monthly,
                last,
                12,
                |_| 1000.0,
            ),
        ],
        // The `payroll_active` job's net pay, deposited on its pay dates: a second method beside
        // it counts it once.
        "samejob" => vec![ProviderIncomeSource::on_cycle(
            "WHOLE GOODS MARKET PAYROLL DIR DEP",
            "SALARY",
            PayFrequency::SemiMonthly,
            last,
            24,
            |_| 2012.40,
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
        as_of,
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: Some(0.95),
    })
}

impl IncomeProvider for SandboxProvider {
    /// Every scenario of the methods the sandbox serves: which method's the tenant sees is the
    /// journey's to decide (`domain::journey`), and the page shows only those.
    async fn begin(
        &self,
        _verification: &Verification,
        _method: VerificationMethod,
        _provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        Ok(ConnectStep::ChooseScenario {
            scenarios: scenarios_for(&[VerificationMethod::Bank, VerificationMethod::Payroll]),
        })
    }

    async fn fetch_income(
        &self,
        verification: &Verification,
        _method: VerificationMethod,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        // The scenario names its method. Deterministic for a verification: the payments end just before it was created.
        scenario_income(connection, verification.created_at.date_naive())
    }

    fn simulated(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
