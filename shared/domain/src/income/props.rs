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
use crate::report::{IncomeReport, build_report, to_cents};

mod generators;
mod names;
mod properties;

use names::*;

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
