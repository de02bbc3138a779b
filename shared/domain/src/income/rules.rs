//! The one set of income rules: whether an income stream (`income::streams`) counts towards
//! current monthly income, and at what figure. Every provider's data goes through [`assess`],
//! once per stream; `docs/income-report.md` states the same rules in words.
//!
//! A stream's figure comes from its level sighting (the most authoritative: payroll, then a
//! document that may count, then the bank); its recency from its most recent sighting of any
//! method; its cadence from its pay dates (`income::cadence`), the provider's tag a hint. In
//! order, a stream is:
//! 1. **not income** when its category is one of [`NOT_INCOME_CATEGORIES`];
//! 2. **ended** when a provider states its employment ended;
//! 3. an **award in force** when its source states ongoing income (a benefit award letter): it
//!    counts at the award in force on the as-of date and is never ended by silence;
//! 4. **no payments** when nothing was paid inside the data window;
//! 5. a **one-off** when it paid once and states no recurring pay (a pay rate with a cadence);
//! 6. **ended** when its last sighting is more than 1.5 periods of its cadence and
//!    [`POSTING_ALLOWANCE_DAYS`] before the as-of date (irregular: 45 days);
//! 7. for irregular money: **person to person** when it is a payment app's transfer;
//!    **insufficient history** with fewer than [`IRREGULAR_MIN_PAYMENTS`] payments in
//!    [`IRREGULAR_MIN_MONTHS`] calendar months; else counted at its total over the months from
//!    its first payment to the as-of date (at least one);
//! 8. for a regular stream, counted: base pay at its recent level (the mean base pay of the 90
//!    days to the as-of date, or of its last two pays when fewer fall there, times the cadence's
//!    periods per month; a single pay with stated pay counts at that pay), plus variable pay at
//!    its average when it recurred (`income::variable_pay`); a single variable pay is listed.
//!
//! Everything looks back at most 12 months.

use chrono::{Datelike, Duration, NaiveDate};
use serde::{Deserialize, Serialize};

use super::cadence::{Cadence, measure};
use super::payer::person_to_person;
use super::streams::Stream;
use super::variable_pay::{self, PayParts, RECURS_AFTER};
use super::{
    AmountsBasis, DAYS_PER_MONTH, EmploymentStatus, NOT_INCOME_CATEGORIES, PayFrequency, Payment,
    ProviderIncome, is_income_category, normalise_category, window_payments,
};
use crate::affordability::{cents_of, format_money};

/// The recent level is the mean payment of this many days up to the as-of date.
pub const RECENT_DAYS: i64 = 90;
/// The 12-month figure, and the irregular average, look back this many days.
pub const YEAR_DAYS: i64 = 365;
/// A regular stream has ended after this many periods of its cadence without a sighting...
pub const ENDED_AFTER_PERIODS: f64 = 1.5;
/// ...and this many days more, for a pay that posts late.
pub const POSTING_ALLOWANCE_DAYS: i64 = 5;
/// An irregular stream has ended after this many days without a payment.
pub const IRREGULAR_ENDED_AFTER_DAYS: i64 = 45;
/// Irregular money counts with at least this many payments...
pub const IRREGULAR_MIN_PAYMENTS: usize = 3;
/// ...in at least this many calendar months.
pub const IRREGULAR_MIN_MONTHS: usize = 2;
/// A counted figure this far (as a share) from the 12-month figure is marked `recent_level`.
pub const ADJUSTED_SHARE: f64 = 0.02;

/// Why a counted source is not simply its 12-month figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountReason {
    /// The current pay differs from the 12-month figure (a raise, a cut, a new job).
    RecentLevel,
    /// One pay seen, or an award: the pay the source states, at its cadence.
    StatedPay,
}

/// Why a source is listed but not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionReason {
    OneOff,
    Ended,
    NotIncome,
    NoPayments,
    /// The same income as a counted source of another method (`income::streams`): counted once.
    Duplicate,
    /// Irregular money with too short a history to rely on.
    InsufficientHistory,
    /// Transfers from a person through a payment app, without a schedule of their own.
    PersonToPerson,
    /// A single bonus, commission or overtime pay: variable pay counts only when it recurs.
    VariablePayNotRecurring,
}

/// A counted stream's figures, in cents.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub monthly_cents: i64,
    pub twelve_month_cents: i64,
    pub basis: String,
    pub reason: Option<CountReason>,
    /// The measured cadence; None for irregular money.
    pub frequency: Option<PayFrequency>,
    /// A regular stream's base and variable parts of `monthly_cents`.
    pub parts: Option<(i64, i64)>,
    /// A single variable pay, set aside: listed, not counted.
    pub single_variable: Option<PayParts>,
}

/// A stream that is not counted, with what was seen of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Excluded {
    pub reason: ExclusionReason,
    pub observed_cents: i64,
    pub explanation: String,
    /// The measured cadence, when one was found.
    pub frequency: Option<PayFrequency>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Assessment {
    Counted(Counted),
    Excluded(Excluded),
}

fn total_cents(payments: &[Payment]) -> i64 {
    payments.iter().map(|p| cents_of(p.amount)).sum()
}

fn since<T: Copy>(
    items: &[T],
    date: impl Fn(&T) -> NaiveDate,
    as_of: NaiveDate,
    days: i64,
) -> Vec<T> {
    let start = as_of - Duration::days(days);
    items.iter().copied().filter(|p| date(p) > start).collect()
}

/// The rules applied to one stream of `income`.
pub fn assess(stream: &Stream, income: &ProviderIncome) -> Assessment {
    let as_of = income.as_of;
    let level = stream.level();
    let source = &income.sources[level.source];
    let category = normalise_category(&source.category);
    let payments = &level.payments;
    let timeline = stream.timeline();
    let cadence = measure(&timeline, source.pay_frequency);
    let excluded = |reason, explanation: String| {
        Assessment::Excluded(Excluded {
            reason,
            observed_cents: total_cents(payments),
            explanation,
            frequency: cadence.frequency(),
        })
    };
    if !is_income_category(&category) {
        debug_assert!(NOT_INCOME_CATEGORIES.contains(&category.as_str()));
        let what = match category.as_str() {
            "TAX_REFUND" => "a tax refund is a repayment of tax, not income",
            "TRANSFER_OWN_ACCOUNTS" => "money moved between the tenant's own accounts",
            _ => "loan proceeds are borrowed money, not income",
        };
        return excluded(ExclusionReason::NotIncome, format!("Not income: {what}."));
    }
    let ended_as_stated = (stream.members.iter())
        .any(|m| income.sources[m.source].employment_status == Some(EmploymentStatus::Ended));
    if ended_as_stated {
        return excluded(
            ExclusionReason::Ended,
            "Not counted: the provider states this employment has ended.".into(),
        );
    }
    if source.ongoing {
        return award_in_force(payments, source.pay_frequency, as_of).unwrap_or_else(|| {
            excluded(
                ExclusionReason::NoPayments,
                format!("Not counted: no award in force on {as_of}."),
            )
        });
    }
    let Some(last_seen) = stream.last_seen() else {
        return excluded(
            ExclusionReason::NoPayments,
            format!("Not counted: no payment in the data window up to {as_of}."),
        );
    };
    let stated = source
        .pay_rate
        .filter(|r| r.is_finite() && *r > 0.0)
        .zip(cadence.frequency());
    if timeline.len() == 1 && stated.is_none() {
        return excluded(
            ExclusionReason::OneOff,
            format!(
                "Not counted: a single payment of {} on {last_seen}, with no recurring pay stated.",
                format_money(total_cents(payments)),
            ),
        );
    }
    let (allowed_gap, gap_words) = match cadence.frequency() {
        Some(f) => (
            f.period_days() * ENDED_AFTER_PERIODS + POSTING_ALLOWANCE_DAYS as f64,
            format!(
                "1.5 pay periods ({}) and {POSTING_ALLOWANCE_DAYS} days",
                f.words()
            ),
        ),
        None => (IRREGULAR_ENDED_AFTER_DAYS as f64, "45 days".to_string()),
    };
    let gap = (as_of - last_seen).num_days();
    if gap as f64 > allowed_gap {
        return excluded(
            ExclusionReason::Ended,
            format!(
                "Not counted: last paid on {last_seen}, {gap} days before {as_of}, more than {gap_words}."
            ),
        );
    }
    match cadence {
        Cadence::Regular {
            frequency,
            measured,
        } => {
            if person_to_person(&category, &source.name) && !measured {
                return excluded(ExclusionReason::PersonToPerson, person_to_person_words());
            }
            let variable = window_payments(&source.variable_payments, as_of);
            let rate = stated.filter(|_| payments.len() == 1).map(|(r, _)| r);
            Assessment::Counted(regular(
                payments, &variable, frequency, rate, &timeline, as_of,
            ))
        }
        Cadence::Irregular => {
            if person_to_person(&category, &source.name) {
                return excluded(ExclusionReason::PersonToPerson, person_to_person_words());
            }
            let year = since(payments, |p| p.date, as_of, YEAR_DAYS);
            let mut months: Vec<(i32, u32)> = year
                .iter()
                .map(|p| (p.date.year(), p.date.month()))
                .collect();
            months.dedup();
            if year.len() < IRREGULAR_MIN_PAYMENTS || months.len() < IRREGULAR_MIN_MONTHS {
                return excluded(
                    ExclusionReason::InsufficientHistory,
                    format!(
                        "Not counted: {} payment(s) in {} calendar month(s) without a regular schedule; \
                         irregular income counts with at least {IRREGULAR_MIN_PAYMENTS} payments in \
                         {IRREGULAR_MIN_MONTHS} calendar months.",
                        year.len(),
                        months.len()
                    ),
                );
            }
            Assessment::Counted(irregular(&year, as_of))
        }
    }
}

fn person_to_person_words() -> String {
    "Not counted: transfers from a person through a payment app, without a regular schedule of \
     their own, are not income the report can rely on. A regular transfer, such as child support \
     paid monthly, counts."
        .into()
}

/// An award letter's amount in force on `as_of`: the latest award dated on or before it.
fn award_in_force(
    awards: &[Payment],
    frequency: Option<PayFrequency>,
    as_of: NaiveDate,
) -> Option<Assessment> {
    let award = awards.iter().rev().find(|p| p.date <= as_of)?;
    let f = frequency.unwrap_or(PayFrequency::Monthly);
    let monthly = cents_of(award.amount * f.periods_per_month());
    Some(Assessment::Counted(Counted {
        monthly_cents: monthly,
        twelve_month_cents: monthly,
        basis: format!(
            "award of {} {} in force since {}, stated as ongoing",
            format_money(cents_of(award.amount)),
            f.words(),
            award.date
        ),
        reason: Some(CountReason::StatedPay),
        frequency: Some(f),
        parts: None,
        single_variable: None,
    }))
}

/// A regular stream's figure: base pay at its recent level, variable pay when it recurred.
fn regular(
    payments: &[Payment],
    variable: &[Payment],
    f: PayFrequency,
    stated_rate: Option<f64>,
    timeline: &[NaiveDate],
    as_of: NaiveDate,
) -> Counted {
    let parts = variable_pay::split(payments, variable);
    let mean_base =
        |ps: &[PayParts]| ps.iter().map(|p| p.base).sum::<f64>() / ps.len().max(1) as f64;
    let recent = since(&parts, |p| p.date, as_of, RECENT_DAYS);
    let (per_period, basis) = match stated_rate {
        Some(rate) => (
            rate,
            format!(
                "stated pay of {} {}; one pay seen, on {}",
                format_money(cents_of(rate)),
                f.words(),
                payments[0].date
            ),
        ),
        None if recent.len() >= 2 => (
            mean_base(&recent),
            format!(
                "mean of {} payments in the {RECENT_DAYS} days to {as_of}: {} paid {}",
                recent.len(),
                format_money(cents_of(mean_base(&recent))),
                f.words()
            ),
        ),
        None => {
            let last = &parts[parts.len().saturating_sub(2)..];
            let dates: Vec<String> = last.iter().map(|p| p.date.to_string()).collect();
            (
                mean_base(last),
                format!(
                    "mean of the last {} payment(s) ({}): {} paid {}",
                    last.len(),
                    dates.join(" and "),
                    format_money(cents_of(mean_base(last))),
                    f.words()
                ),
            )
        }
    };
    let ppm = f.periods_per_month();
    let base_cents = cents_of(per_period * ppm);
    let year_variable = variable_pay::in_year(&parts, as_of);
    let (variable_cents, single_variable) = match year_variable.as_slice() {
        [] => (0, None),
        [one] if RECURS_AFTER > 1 => (0, Some(*one)),
        all => {
            let first_seen = timeline.first().copied().unwrap_or(as_of);
            let average = variable_pay::monthly_average(all, first_seen, f.period_days(), as_of);
            (cents_of(average), None)
        }
    };
    let basis = if variable_cents > 0 {
        format!(
            "{basis}; plus variable pay of {} a month, the average of {} pays above base pay",
            format_money(variable_cents),
            year_variable.len()
        )
    } else {
        basis
    };
    let year = since(&parts, |p| p.date, as_of, YEAR_DAYS);
    let twelve_month_cents = cents_of(mean_base(&year) * ppm) + variable_cents;
    let monthly_cents = base_cents + variable_cents;
    let reason = if stated_rate.is_some() {
        Some(CountReason::StatedPay)
    } else {
        adjusted(monthly_cents, twelve_month_cents)
    };
    Counted {
        monthly_cents,
        twelve_month_cents,
        basis,
        reason,
        frequency: Some(f),
        parts: Some((base_cents, variable_cents)),
        single_variable,
    }
}

fn irregular(year: &[Payment], as_of: NaiveDate) -> Counted {
    // Not empty: the irregular history rule kept at least three payments.
    let first = year.first().map_or(as_of, |p| p.date);
    let total = total_cents(year);
    let months = ((as_of - first).num_days() as f64 / DAYS_PER_MONTH).max(1.0);
    let monthly_cents = (total as f64 / months).round() as i64;
    Counted {
        monthly_cents,
        twelve_month_cents: monthly_cents,
        basis: format!(
            "{} paid in {} payments from {first} to {as_of}, over {months:.1} months, without a regular schedule",
            format_money(total),
            year.len()
        ),
        reason: None,
        frequency: None,
        parts: None,
        single_variable: None,
    }
}

/// The net figure of a counted stream whose level amounts are gross and whose source states net
/// pay beside them (payroll, stubs): the same rule over the net pays of the same dates. None for
/// a net stream, an award, or a stream without stated net pay.
pub fn net_figure(stream: &Stream, income: &ProviderIncome, counted: &Counted) -> Option<i64> {
    let source = &income.sources[stream.level().source];
    let net = window_payments(&source.net_payments, income.as_of);
    if net.is_empty() || source.ongoing || source.basis(income.method) == AmountsBasis::Net {
        return None;
    }
    let as_of = income.as_of;
    Some(match counted.frequency {
        Some(f) => regular(&net, &[], f, None, &stream.timeline(), as_of).monthly_cents,
        None => irregular(&since(&net, |p| p.date, as_of, YEAR_DAYS), as_of).monthly_cents,
    })
}

fn adjusted(monthly_cents: i64, twelve_month_cents: i64) -> Option<CountReason> {
    let differs = (monthly_cents - twelve_month_cents).abs() as f64
        > ADJUSTED_SHARE * twelve_month_cents as f64;
    differs.then_some(CountReason::RecentLevel)
}

#[cfg(test)]
mod tests;
