//! Property-based tests of the income rules: the spec of "sightings first, then streams".
//!
//! A generated tenant has jobs, monthly benefits and one-off deposits whose monthly income is
//! known by construction. Each job is seen by one or more methods (bank deposits, payroll, pay
//! stubs), laid out the way the providers hand them over. The report built from those sightings
//! must find the known income whatever the methods, the payer names, the account splits and the
//! order of the sources. Many of these properties fail against the rules before the rewrite: they
//! state what the rewrite must do, and are not to be weakened to pass.

use std::ops::RangeInclusive;

use chrono::{Duration, Months, NaiveDate};
use proptest::array::{uniform2, uniform3};
use proptest::prelude::*;
use proptest::sample::{Index, select, subsequence};

use super::{
    EmploymentStatus, PayFrequency, Payment, ProviderIncome, ProviderIncomeSource,
    VerificationMethod,
};
use crate::domain::report::{IncomeReport, build_report, to_cents};

/// Employers of the generated jobs: distinct, sharing no word a payer match could latch onto.
const EMPLOYERS: [&str; 8] = [
    "Acme Corporation",
    "Riverside Medical Center",
    "Blue Harbor Logistics",
    "Northwind Traders",
    "Summit Dental Group",
    "Greenleaf Grocers",
    "Cedar Valley Schools",
    "Brightline Staffing",
];

/// How banks name a deposit made by a payroll processor: nothing in it names the employer.
const PROCESSORS: [&str; 4] = [
    "GUSTO PAY 240913",
    "ADP WAGE PAY",
    "PAYCHEX EIB PAYROLL",
    "PAYLOCITY DIR DEP",
];

/// How banks name a payroll deposit that names no one at all.
const GENERIC_PAYER: &str = "PAYROLL DIR DEP PPD";

/// Payers of monthly benefits and pensions.
const BENEFIT_PAYERS: [&str; 4] = [
    "SSA TREAS 310 XXSOC SEC",
    "CALPERS RETIREMENT",
    "STATE DISABILITY INS",
    "VA BENEFITS",
];

/// Payers of one-off deposits.
const ONE_OFF_PAYERS: [&str; 5] = [
    "ZELLE FROM J RIVERA",
    "ATM CASH DEPOSIT",
    "EBAY MARKETPLACE",
    "MOBILE CHECK DEPOSIT",
    "VENMO CASHOUT",
];

/// Pay dates are laid out this many periods back, then cut at the start of the job's history
/// (12 months of weekly pay is 53 dates at most).
const MAX_PAYS: usize = 60;

/// Order keys drawn per tenant; more than the most sources a tenant has (3 jobs of 4 sources,
/// 2 benefits, 2 one-offs).
const ORDER_KEYS: usize = 16;

/// 1000 cases, unless `PROPTEST_CASES` says otherwise (a quick local run, or a longer soak).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

fn latest_as_of() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 13).expect("a valid date")
}

fn dollars(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// Net pay of `gross` cents at a net share of `share_bp` basis points, rounded to the cent.
fn net_of(gross: i64, share_bp: i64) -> i64 {
    (gross * share_bp + 5_000) / 10_000
}

/// A well-mixed number from a seed and a position (splitmix64), so that one `u64` of the input
/// stands for a whole sequence of lags or shares and shrinks to 0 as one value.
fn mix(seed: u64, i: usize) -> u64 {
    let mut z = seed.wrapping_add((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

// ------------------------------------------------------------------------------------------
// The model: a tenant whose income is known by construction.
// ------------------------------------------------------------------------------------------

/// Which methods see a job: the five ways a job reaches the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sightings {
    BankOnly,
    PayrollOnly,
    PayrollAndBank,
    StubsAndBank,
    PayrollStubsAndBank,
}

impl Sightings {
    fn bank(self) -> bool {
        self != Sightings::PayrollOnly
    }

    fn payroll(self) -> bool {
        matches!(
            self,
            Sightings::PayrollOnly | Sightings::PayrollAndBank | Sightings::PayrollStubsAndBank
        )
    }

    fn stubs(self) -> bool {
        matches!(
            self,
            Sightings::StubsAndBank | Sightings::PayrollStubsAndBank
        )
    }

    /// Whether a sighting states gross pay: then the job's known level is gross.
    fn states_gross(self) -> bool {
        self.payroll() || self.stubs()
    }

    /// The same sightings with the bank's among them, for a property about bank deposits.
    fn with_bank(self) -> Self {
        match self {
            Sightings::PayrollOnly => Sightings::PayrollAndBank,
            other => other,
        }
    }
}

/// The name a bank gives a job's deposits.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Payer {
    /// The employer's name followed by " PAYROLL".
    Employer,
    /// The payroll processor's name.
    Processor(&'static str),
    /// Words that name no one.
    Generic,
}

/// Where the parts of a split deposit land.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SplitKind {
    /// Two bank sources of the same name: one account each.
    TwoAccounts,
    /// Two credits on the same day in one bank source.
    SameDayCredits,
}

/// The share of each deposit the first part takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shares {
    /// 80% to one part, 20% to the other: the common direct-deposit split.
    EightyTwenty,
    /// A share of 5% to 95% drawn afresh for every deposit.
    Random { seed: u64 },
}

impl Shares {
    /// The first part's share of the `i`-th deposit, in basis points.
    fn basis_points(self, i: usize) -> i64 {
        match self {
            Shares::EightyTwenty => 8_000,
            Shares::Random { seed } => 500 + (mix(seed, i) % 9_001) as i64,
        }
    }
}

/// How each bank deposit of a job is split on arrival, cents exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Split {
    kind: SplitKind,
    shares: Shares,
}

/// One job of the tenant and the sightings of it.
#[derive(Debug, Clone)]
struct Job {
    employer: &'static str,
    frequency: PayFrequency,
    /// Gross pay per period; payroll and stubs state it as the pay rate.
    gross_cents: i64,
    /// Net pay per period: what the bank receives, and what payroll and stubs state beside gross.
    net_cents: i64,
    history_months: u32,
    /// How many days before the as-of date the last pay date falls, modulo the period (weekly 7,
    /// biweekly 14, monthly 28); semi-monthly pays on the last 15th or month's end.
    last_pay_back: i64,
    sightings: Sightings,
    payer: Payer,
    /// How many of the last pays the tenant's stubs show (1 to 4).
    stubs: usize,
    /// The days each deposit posts after its pay date (0 to 3), as one seed: 0 posts on the day.
    lag_seed: u64,
    split: Option<Split>,
}

impl Job {
    /// Every pay date of the job's history, oldest first; the last within one period before
    /// `as_of`.
    fn pay_dates(&self, as_of: NaiveDate) -> Vec<NaiveDate> {
        let back = |period: i64| as_of - Duration::days(self.last_pay_back % period);
        let last = match self.frequency {
            PayFrequency::Weekly => back(7),
            PayFrequency::Biweekly => back(14),
            PayFrequency::Monthly => back(28),
            // Paid on the 15th and the month's end: the last of those up to the as-of date (daily
            // pay is never drawn).
            PayFrequency::SemiMonthly | PayFrequency::Daily => as_of,
        };
        let start = as_of
            .checked_sub_months(Months::new(self.history_months))
            .expect("a date a year back");
        self.frequency
            .dates_back(last, MAX_PAYS)
            .into_iter()
            .filter(|d| *d > start)
            .collect()
    }

    /// The monthly income the tenant has from this job: gross when a payroll or stub sighting
    /// states it, else the net the bank sees.
    fn known_monthly_cents(&self) -> f64 {
        let per_period = if self.sightings.states_gross() {
            self.gross_cents
        } else {
            self.net_cents
        };
        per_period as f64 * self.frequency.periods_per_month()
    }

    /// The monthly gap between gross and net pay, in whole cents.
    fn monthly_gap_cents(&self) -> i64 {
        ((self.gross_cents - self.net_cents) as f64 * self.frequency.periods_per_month()).round()
            as i64
    }

    fn bank_name(&self) -> String {
        match self.payer {
            Payer::Employer => format!("{} PAYROLL", self.employer.to_uppercase()),
            Payer::Processor(name) => name.to_string(),
            Payer::Generic => GENERIC_PAYER.to_string(),
        }
    }

    /// The net pays the bank window holds. A bank posts one employer's ACH credits at a steady
    /// lag (0 to 2 days here), and now and then a day later (a holiday): 0 to 3 days in all.
    fn deposits(&self, tenant: &Tenant) -> Vec<Payment> {
        self.pay_dates(tenant.as_of)
            .into_iter()
            .enumerate()
            .map(|(i, date)| {
                let lag = if self.lag_seed == 0 {
                    0
                } else {
                    (self.lag_seed % 3) as i64 + i64::from(mix(self.lag_seed, i).is_multiple_of(5))
                };
                Payment {
                    date: date + Duration::days(lag),
                    amount: dollars(self.net_cents),
                }
            })
            .filter(|p| tenant.in_bank_window(p.date))
            .collect()
    }

    /// The sources the providers hand over for this job: payroll's, the stubs', the bank's.
    fn sources(&self, tenant: &Tenant) -> Vec<ProviderIncomeSource> {
        let dates = self.pay_dates(tenant.as_of);
        let mut sources = Vec::new();
        if self.sightings.payroll() {
            sources.push(self.stated(
                &dates,
                VerificationMethod::Payroll,
                Some(EmploymentStatus::Active),
            ));
        }
        if self.sightings.stubs() {
            let first = dates.len().saturating_sub(self.stubs);
            sources.push(self.stated(&dates[first..], VerificationMethod::Document, None));
        }
        if self.sightings.bank() {
            sources.extend(self.bank_sources(tenant));
        }
        sources
    }

    /// A payroll or stub sighting: gross payments, net pay beside them, the stated pay rate.
    fn stated(
        &self,
        dates: &[NaiveDate],
        method: VerificationMethod,
        employment_status: Option<EmploymentStatus>,
    ) -> ProviderIncomeSource {
        let paid = |cents: i64| {
            dates
                .iter()
                .map(|&date| Payment {
                    date,
                    amount: dollars(cents),
                })
                .collect()
        };
        ProviderIncomeSource {
            name: self.employer.to_string(),
            category: "SALARY".into(),
            method: Some(method),
            pay_frequency: Some(self.frequency),
            pay_rate: Some(dollars(self.gross_cents)),
            employment_status,
            payments: paid(self.gross_cents),
            net_payments: paid(self.net_cents),
            ..ProviderIncomeSource::default()
        }
    }

    /// The bank's sighting: the deposits under the payer's name, split as the job says. The bank
    /// states no rate; it tags the frequency it sees, as Plaid's Bank Income does per source, and
    /// the rules still measure the cadence from the dates (the tag only decides what too few
    /// dates cannot).
    fn bank_sources(&self, tenant: &Tenant) -> Vec<ProviderIncomeSource> {
        let deposits = self.deposits(tenant);
        let source = |payments| ProviderIncomeSource {
            pay_frequency: Some(self.frequency),
            ..bank_source(&self.bank_name(), "SALARY", payments)
        };
        let Some(split) = self.split else {
            return vec![source(deposits)];
        };
        let (first, second): (Vec<Payment>, Vec<Payment>) = deposits
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let part = net_of(self.net_cents, split.shares.basis_points(i));
                let rest = self.net_cents - part;
                let at = |cents| Payment {
                    date: p.date,
                    amount: dollars(cents),
                };
                (at(part), at(rest))
            })
            .unzip();
        match split.kind {
            SplitKind::TwoAccounts => vec![source(first), source(second)],
            SplitKind::SameDayCredits => {
                let mut both: Vec<Payment> = first.into_iter().chain(second).collect();
                both.sort_by_key(|p| p.date);
                vec![source(both)]
            }
        }
    }
}

fn bank_source(name: &str, category: &str, payments: Vec<Payment>) -> ProviderIncomeSource {
    ProviderIncomeSource {
        name: name.to_string(),
        category: category.to_string(),
        method: Some(VerificationMethod::Bank),
        payments,
        ..ProviderIncomeSource::default()
    }
}

/// A benefit or pension: the same amount every month, net = gross, seen by the bank only.
#[derive(Debug, Clone)]
struct Benefit {
    payer: &'static str,
    category: &'static str,
    amount_cents: i64,
    /// Days before the as-of date of the last payment (0 to 27).
    last_paid_back: i64,
}

impl Benefit {
    fn source(&self, tenant: &Tenant) -> ProviderIncomeSource {
        let last = tenant.as_of - Duration::days(self.last_paid_back);
        let payments = PayFrequency::Monthly
            .dates_back(last, 13)
            .into_iter()
            .filter(|d| tenant.in_bank_window(*d))
            .map(|date| Payment {
                date,
                amount: dollars(self.amount_cents),
            })
            .collect();
        bank_source(self.payer, self.category, payments)
    }
}

/// A single deposit from a payer seen nowhere else: money in, not income.
#[derive(Debug, Clone)]
struct OneOff {
    payer: &'static str,
    category: &'static str,
    amount_cents: i64,
    /// Days before the as-of date, modulo the bank window.
    paid_back: i64,
}

impl OneOff {
    fn source(&self, tenant: &Tenant) -> ProviderIncomeSource {
        let date = tenant.as_of - Duration::days(self.paid_back % tenant.bank_days);
        let payment = Payment {
            date,
            amount: dollars(self.amount_cents),
        };
        bank_source(self.payer, self.category, vec![payment])
    }
}

/// A tenant: jobs, benefits and one-offs, one bank window, and the order of the sources.
#[derive(Debug, Clone)]
struct Tenant {
    as_of: NaiveDate,
    /// The bank's data window: the deposits of the last this many days.
    bank_days: i64,
    jobs: Vec<Job>,
    benefits: Vec<Benefit>,
    one_offs: Vec<OneOff>,
    /// A sort key per source: the providers' order carries no meaning.
    order: Vec<u16>,
}

impl Tenant {
    fn in_bank_window(&self, date: NaiveDate) -> bool {
        date > self.as_of - Duration::days(self.bank_days) && date <= self.as_of
    }

    /// What the providers hand over, in the drawn order.
    fn income(&self) -> ProviderIncome {
        let sources = (self.jobs.iter().flat_map(|j| j.sources(self)))
            .chain(self.benefits.iter().map(|b| b.source(self)))
            .chain(self.one_offs.iter().map(|o| o.source(self)));
        let mut keyed: Vec<(u16, ProviderIncomeSource)> = sources
            .enumerate()
            .map(|(i, s)| (self.order.get(i).copied().unwrap_or(0), s))
            .collect();
        keyed.sort_by_key(|(key, _)| *key);
        ProviderIncome {
            sources: keyed.into_iter().map(|(_, s)| s).collect(),
            ..ProviderIncome::empty(VerificationMethod::Bank, self.as_of)
        }
    }

    /// The tenant's monthly income by construction, in cents: the jobs' and the benefits'.
    fn known_monthly_cents(&self) -> f64 {
        let jobs: f64 = self.jobs.iter().map(Job::known_monthly_cents).sum();
        let benefits: i64 = self.benefits.iter().map(|b| b.amount_cents).sum();
        jobs + benefits as f64
    }

    /// The report of this tenant; with `PROPS_DUMP` set, its input is printed as JSON first, so
    /// a shrunk case can be replayed with `admin income-report --payments`.
    fn report(&self) -> IncomeReport {
        let income = self.income();
        if std::env::var_os("PROPS_DUMP").is_some() {
            eprintln!("{}", serde_json::to_string(&income).unwrap_or_default());
        }
        build_report(&income, None)
    }

    /// A processor name no job but job `j` has on its deposits, picked by `pick`: two jobs
    /// share a bank name only when it is generic.
    fn free_processor(&self, j: usize, pick: Index) -> &'static str {
        let taken: Vec<&Payer> = (self.jobs.iter().enumerate())
            .filter(|(k, _)| *k != j)
            .map(|(_, job)| &job.payer)
            .collect();
        let free: Vec<&'static str> = PROCESSORS
            .into_iter()
            .filter(|p| !taken.contains(&&Payer::Processor(p)))
            .collect();
        free[pick.index(free.len())]
    }

    /// The same tenant with job `j` changed by `change`.
    fn with_job(&self, j: usize, change: impl FnOnce(&mut Job)) -> Tenant {
        let mut tenant = self.clone();
        change(&mut tenant.jobs[j]);
        tenant
    }
}

/// How the total moved from one tenant's report to a variant's.
struct Change {
    cents: i64,
    /// Both reports' sources, for a failure's message.
    reports: String,
}

impl Change {
    fn between(before: &Tenant, after: &Tenant) -> Change {
        let (before, after) = (before.report(), after.report());
        Change {
            cents: to_cents(after.total_monthly_income) - to_cents(before.total_monthly_income),
            reports: format!("before:\n{}\nafter:\n{}", summary(&before), summary(&after)),
        }
    }
}

/// What the report counted and set aside, one line each, for a failure's message.
fn summary(report: &IncomeReport) -> String {
    let counted = report.income_sources.iter().map(|s| {
        format!(
            "  counted {:?} {:?}: {:.2} ({})",
            s.method, s.name, s.monthly_income, s.basis
        )
    });
    let excluded = report
        .excluded_sources
        .iter()
        .map(|s| format!("  excluded {:?} {:?}: {:?}", s.method, s.name, s.reason));
    counted.chain(excluded).collect::<Vec<_>>().join("\n")
}

// ------------------------------------------------------------------------------------------
// Generators.
// ------------------------------------------------------------------------------------------

/// The end of the data window: up to a year before 2026-11-13 (where shrinking goes), so pay
/// dates meet every weekday, month length and month's end.
fn as_of() -> impl Strategy<Value = NaiveDate> {
    (0i64..=365).prop_map(|back| latest_as_of() - Duration::days(back))
}

/// The four cycles employers pay on; daily pay is gig money, not a job.
fn frequency() -> impl Strategy<Value = PayFrequency> {
    select(
        [
            PayFrequency::Weekly,
            PayFrequency::Biweekly,
            PayFrequency::SemiMonthly,
            PayFrequency::Monthly,
        ]
        .to_vec(),
    )
}

/// Gross pay per period of 400.00 to 5,000.00 in whole cents, and the net after taxes and
/// deductions at a share of 62% to 88%, rounded to the cent: the range real pay stubs show.
fn gross_and_net() -> impl Strategy<Value = (i64, i64)> {
    (40_000i64..=500_000, 6_200i64..=8_800).prop_map(|(gross, share)| (gross, net_of(gross, share)))
}

/// The five ways a job is seen, equally likely: the rules must reach one figure for the job
/// whichever methods the tenant connected.
fn sightings() -> impl Strategy<Value = Sightings> {
    use Sightings::*;
    select(
        [
            BankOnly,
            PayrollOnly,
            PayrollAndBank,
            StubsAndBank,
            PayrollStubsAndBank,
        ]
        .to_vec(),
    )
}

/// A bank names a payroll deposit after the employer, after its payroll processor, or with
/// words that name no one: the rules may use the name as support only, never need it. Which
/// processor is settled when the job is named (`jobs`).
fn payer() -> impl Strategy<Value = Payer> {
    prop_oneof![
        Just(Payer::Employer),
        Just(Payer::Processor(PROCESSORS[0])),
        Just(Payer::Generic),
    ]
}

prop_compose! {
    /// One active job, with 3 to 12 months of history whose last pay falls in the last period
    /// before the as-of date, so the job is current by any rule. Its employer and processor are
    /// settled by `jobs`, which keeps them distinct between jobs.
    fn job()(
        frequency in frequency(),
        (gross_cents, net_cents) in gross_and_net(),
        history_months in 3u32..=12,
        last_pay_back in 0i64..28,
        sightings in sightings(),
        payer in payer(),
        stubs in 1usize..=4,
        lag_seed in any::<u64>(),
    ) -> Job {
        Job {
            employer: EMPLOYERS[0],
            frequency,
            gross_cents,
            net_cents,
            history_months,
            last_pay_back,
            sightings,
            payer,
            stubs,
            lag_seed,
            split: None,
        }
    }
}

/// `count` jobs (at most 3) at distinct employers, each with a processor of its own, so two jobs
/// share a bank name only when it is generic. Three are always drawn and the first `count` kept:
/// without a dependent strategy, proptest shrinks the count and every job in place.
fn jobs(count: RangeInclusive<usize>) -> impl Strategy<Value = Vec<Job>> {
    (
        count,
        subsequence(EMPLOYERS.to_vec(), 3).prop_shuffle(),
        Just(PROCESSORS.to_vec()).prop_shuffle(),
        uniform3(job()),
    )
        .prop_map(|(count, employers, processors, jobs)| {
            (jobs.into_iter().zip(employers).zip(processors))
                .take(count)
                .map(|((job, employer), processor)| Job {
                    employer,
                    payer: match job.payer {
                        Payer::Processor(_) => Payer::Processor(processor),
                        other => other,
                    },
                    ..job
                })
                .collect()
        })
}

/// 0 to 2 monthly benefits from distinct payers: 150.00 to 2,500.00 a month, the last paid in the
/// last month, so each is current and regular.
fn benefits() -> impl Strategy<Value = Vec<Benefit>> {
    let benefit = (
        prop_oneof![Just("BENEFIT_OTHER"), Just("RETIREMENT")],
        15_000i64..=250_000,
        0i64..28,
    );
    (
        0usize..=2,
        subsequence(BENEFIT_PAYERS.to_vec(), 2).prop_shuffle(),
        uniform2(benefit),
    )
        .prop_map(|(count, payers, benefits)| {
            (payers.into_iter().zip(benefits))
                .take(count)
                .map(
                    |(payer, (category, amount_cents, last_paid_back))| Benefit {
                        payer,
                        category,
                        amount_cents,
                        last_paid_back,
                    },
                )
                .collect()
        })
}

/// `count` (at most 2) single deposits from distinct payers, of 20.00 to 5,000.00, anywhere in
/// the bank window: money the tenant received once, which is never monthly income.
fn one_offs(count: RangeInclusive<usize>) -> impl Strategy<Value = Vec<OneOff>> {
    let one_off = (
        prop_oneof![Just("OTHER"), Just("CASH_DEPOSIT")],
        2_000i64..=500_000,
        0i64..365,
    );
    (
        count,
        subsequence(ONE_OFF_PAYERS.to_vec(), 2).prop_shuffle(),
        uniform2(one_off),
    )
        .prop_map(|(count, payers, one_offs)| {
            (payers.into_iter().zip(one_offs))
                .take(count)
                .map(|(payer, (category, amount_cents, paid_back))| OneOff {
                    payer,
                    category,
                    amount_cents,
                    paid_back,
                })
                .collect()
        })
}

/// A tenant with `jobs` jobs, 0 to 2 benefits and `one_offs` one-offs, a bank window of the last
/// 90 to 365 days, and the sources in a random order.
fn tenant_with(
    jobs_count: RangeInclusive<usize>,
    one_offs_count: RangeInclusive<usize>,
) -> impl Strategy<Value = Tenant> {
    (
        as_of(),
        90i64..=365,
        jobs(jobs_count),
        benefits(),
        one_offs(one_offs_count),
        proptest::collection::vec(any::<u16>(), ORDER_KEYS),
    )
        .prop_map(
            |(as_of, bank_days, jobs, benefits, one_offs, order)| Tenant {
                as_of,
                bank_days,
                jobs,
                benefits,
                one_offs,
                order,
            },
        )
}

/// The tenant of the brief: 1 to 3 jobs, 0 to 2 benefits, 0 to 2 one-offs.
fn tenant() -> impl Strategy<Value = Tenant> {
    tenant_with(1..=3, 0..=2)
}

/// A tenant and the position of one of its jobs, for a property that changes that job.
fn tenant_and_job() -> impl Strategy<Value = (Tenant, usize)> {
    (tenant(), any::<Index>()).prop_map(|(tenant, job)| {
        let j = job.index(tenant.jobs.len());
        (tenant, j)
    })
}

/// A tenant whose first two jobs are paid the same net on the same dates (same cycle, same last
/// pay date, same deposit lags), both seen by the bank and the first also by payroll. Only the
/// payer name, if that, tells their deposits apart; the twin's gross follows from its own net
/// share, so the two jobs still differ.
fn twin_jobs_tenant() -> impl Strategy<Value = Tenant> {
    (tenant_with(2..=3, 0..=2), 6_200i64..=8_800).prop_map(|(mut tenant, twin_share)| {
        let first = tenant.jobs[0].clone();
        let twin = &mut tenant.jobs[1];
        twin.frequency = first.frequency;
        twin.history_months = first.history_months;
        twin.last_pay_back = first.last_pay_back;
        twin.lag_seed = first.lag_seed;
        twin.net_cents = first.net_cents;
        twin.gross_cents = (first.net_cents * 10_000 + twin_share / 2) / twin_share;
        twin.sightings = Sightings::BankOnly;
        tenant.jobs[0].sightings = Sightings::PayrollAndBank;
        tenant
    })
}

/// A second sighting added to a job's: the methods before and after.
fn added_sighting() -> impl Strategy<Value = (Sightings, Sightings)> {
    prop_oneof![
        Just((Sightings::BankOnly, Sightings::PayrollAndBank)),
        Just((Sightings::BankOnly, Sightings::StubsAndBank)),
        Just((Sightings::PayrollOnly, Sightings::PayrollAndBank)),
        Just((Sightings::PayrollAndBank, Sightings::PayrollStubsAndBank)),
        Just((Sightings::StubsAndBank, Sightings::PayrollStubsAndBank)),
    ]
}

/// A new bank name for a job: a processor no other job's deposits carry (None: generic words).
fn renamed_payer() -> impl Strategy<Value = Option<Index>> {
    proptest::option::of(any::<Index>())
}

/// A split of every deposit of a job: across two accounts or into two same-day credits, at
/// 80/20 or at a random share per deposit.
fn split() -> impl Strategy<Value = Split> {
    let kind = prop_oneof![
        Just(SplitKind::TwoAccounts),
        Just(SplitKind::SameDayCredits)
    ];
    let shares = prop_oneof![
        Just(Shares::EightyTwenty),
        any::<u64>().prop_map(|seed| Shares::Random { seed }),
    ];
    (kind, shares).prop_map(|(kind, shares)| Split { kind, shares })
}

/// Whether the report's total is within 1% of the tenant's known monthly income.
fn assert_total_within_one_percent(
    tenant: &Tenant,
    report: &IncomeReport,
) -> Result<(), TestCaseError> {
    let known = tenant.known_monthly_cents();
    let total = to_cents(report.total_monthly_income) as f64;
    prop_assert!(
        (total - known).abs() <= 0.01 * known,
        "total {:.2} against known {:.2}\n{}",
        total / 100.0,
        known / 100.0,
        summary(report)
    );
    Ok(())
}

// ------------------------------------------------------------------------------------------
// The properties.
// ------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// The rules find the tenant's monthly income: every job once, at gross where a payroll or
    /// stub sighting states it, every benefit, and no one-off.
    #[test]
    fn the_total_is_within_one_percent_of_the_known_income(tenant in tenant()) {
        assert_total_within_one_percent(&tenant, &tenant.report())?;
    }

    /// Two jobs paid the same net on the same dates are still two jobs: grouping by dates and
    /// amounts must not fold one into the other, nor into the other's payroll.
    #[test]
    fn two_distinct_jobs_are_never_merged(tenant in twin_jobs_tenant()) {
        let report = tenant.report();
        assert_total_within_one_percent(&tenant, &report)?;
        prop_assert!(
            report.income_sources.len() >= tenant.jobs.len(),
            "{} counted sources for {} jobs\n{}",
            report.income_sources.len(),
            tenant.jobs.len(),
            summary(&report)
        );
    }

    /// Seeing a job a second time adds no income: at most the level moves from net to gross.
    #[test]
    fn a_second_sighting_raises_the_total_by_at_most_the_gross_net_gap(
        (tenant, j) in tenant_and_job(),
        (before, after) in added_sighting(),
    ) {
        let once = tenant.with_job(j, |job| job.sightings = before);
        let twice = tenant.with_job(j, |job| job.sightings = after);
        let change = Change::between(&once, &twice);
        let gap = tenant.jobs[j].monthly_gap_cents();
        prop_assert!(
            change.cents <= gap + 1,
            "job {j} seen by {before:?} then {after:?}: the total rose by {:.2}, the gap is {:.2}\n{}",
            dollars(change.cents),
            dollars(gap),
            change.reports
        );
    }

    /// The payer name on a deposit is support only: a deposit named after the payroll processor,
    /// or naming no one, counts as the one named after the employer.
    #[test]
    fn the_bank_payer_name_never_changes_the_total(
        (tenant, j) in tenant_and_job(),
        processor in renamed_payer(),
    ) {
        let named = tenant.with_job(j, |job| {
            job.sightings = job.sightings.with_bank();
            job.payer = Payer::Employer;
        });
        let payer = match processor {
            Some(pick) => Payer::Processor(tenant.free_processor(j, pick)),
            None => Payer::Generic,
        };
        let renamed = named.with_job(j, |job| job.payer = payer);
        let change = Change::between(&named, &renamed);
        prop_assert!(
            change.cents == 0,
            "job {j} renamed from {:?} to {:?}: the total moved by {:.2}\n{}",
            named.jobs[j].bank_name(),
            renamed.jobs[j].bank_name(),
            dollars(change.cents),
            change.reports
        );
    }

    /// A pay split across two accounts, or into two credits on one day, is one pay: the parts
    /// are summed before anything else.
    #[test]
    fn splitting_a_deposit_changes_the_total_by_at_most_a_cent_per_pay(
        (tenant, j) in tenant_and_job(),
        split in split(),
    ) {
        let whole = tenant.with_job(j, |job| job.sightings = job.sightings.with_bank());
        let parted = whole.with_job(j, |job| job.split = Some(split));
        let pays = whole.jobs[j].deposits(&whole).len() as i64;
        let change = Change::between(&whole, &parted);
        prop_assert!(
            change.cents.abs() <= pays,
            "job {j} split {split:?} over {pays} deposits: the total moved by {:.2}\n{}",
            dollars(change.cents),
            change.reports
        );
    }

    /// A one-off is not monthly income, so taking it away never takes income away.
    #[test]
    fn removing_a_one_off_never_lowers_the_total(
        tenant in tenant_with(1..=3, 1..=2),
        one_off in any::<Index>(),
    ) {
        let k = one_off.index(tenant.one_offs.len());
        let mut without = tenant.clone();
        without.one_offs.remove(k);
        let change = Change::between(&tenant, &without);
        prop_assert!(
            change.cents >= 0,
            "removing one-off {k}: the total moved by {:.2}\n{}",
            dollars(change.cents),
            change.reports
        );
    }

    /// The total is what the report shows: the sum of the counted sources, to the cent.
    #[test]
    fn the_counted_sources_add_up_to_the_total(tenant in tenant()) {
        let report = tenant.report();
        let sum: i64 = report.income_sources.iter().map(|s| to_cents(s.monthly_income)).sum();
        prop_assert_eq!(sum, to_cents(report.total_monthly_income), "{}", summary(&report));
    }
}
