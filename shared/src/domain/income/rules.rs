//! The one set of income rules: whether a source counts towards current monthly income, and at
//! what figure. Every provider's data goes through [`assess`]; `docs/income-report.md` states
//! the same rules in words.
//!
//! In order, a source is:
//! 1. **not income** when its category is one of [`NOT_INCOME_CATEGORIES`];
//! 2. **ended** when the provider states its employment ended;
//! 3. **no payments** when nothing was paid inside the data window;
//! 4. a **one-off** when it paid once and states no recurring pay (a pay rate with a frequency);
//! 5. **ended** when its last payment is more than 1.5 pay periods (irregular: 45 days) before
//!    the as-of date;
//! 6. otherwise **counted**: a regular source at its recent level (the mean payment of the 90
//!    days to the as-of date, or of its last two payments when fewer than two fall there, times
//!    its periods per month; a single payment with stated pay counts at that pay); an irregular
//!    source at its total over the months from its first payment to the as-of date (at least
//!    one month). Both look back at most 12 months.

use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};

use crate::domain::affordability::{cents_of, format_money};
use crate::domain::income::{
    DAYS_PER_MONTH, EmploymentStatus, NOT_INCOME_CATEGORIES, PayFrequency, Payment,
    ProviderIncomeSource, is_income_category,
};

/// The recent level is the mean payment of this many days up to the as-of date.
pub const RECENT_DAYS: i64 = 90;
/// The 12-month figure, and the irregular average, look back this many days.
pub const YEAR_DAYS: i64 = 365;
/// A regular source has ended after this many pay periods without a payment.
pub const ENDED_AFTER_PERIODS: f64 = 1.5;
/// An irregular source has ended after this many days without a payment.
pub const IRREGULAR_ENDED_AFTER_DAYS: i64 = 45;
/// A counted figure this far (as a share) from the 12-month figure is marked `recent_level`.
pub const ADJUSTED_SHARE: f64 = 0.02;

/// Why a counted source is not simply its 12-month figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountReason {
    /// The current pay differs from the 12-month figure (a raise, a cut, a new job).
    RecentLevel,
    /// One payment seen: the pay rate the provider states, at its frequency.
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
    /// The same income as a counted source of another method (`income::overlap`): counted once.
    Duplicate,
}

/// A counted source's figures, in cents.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub monthly_cents: i64,
    pub twelve_month_cents: i64,
    pub basis: String,
    pub reason: Option<CountReason>,
}

/// A source that is not counted, with what was seen of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Excluded {
    pub reason: ExclusionReason,
    pub observed_cents: i64,
    pub explanation: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Assessment {
    Counted(Counted),
    Excluded(Excluded),
}

/// The payments the rules look at: inside the window (on or before `as_of`), positive, oldest
/// first.
pub fn window_payments(source: &ProviderIncomeSource, as_of: NaiveDate) -> Vec<Payment> {
    let mut payments: Vec<Payment> = source
        .payments
        .iter()
        .copied()
        .filter(|p| p.amount.is_finite() && p.amount > 0.0 && p.date <= as_of)
        .collect();
    payments.sort_by_key(|p| p.date);
    payments
}

fn total_cents(payments: &[Payment]) -> i64 {
    payments.iter().map(|p| cents_of(p.amount)).sum()
}

fn mean(payments: &[Payment]) -> f64 {
    payments.iter().map(|p| p.amount).sum::<f64>() / payments.len().max(1) as f64
}

fn since(payments: &[Payment], as_of: NaiveDate, days: i64) -> Vec<Payment> {
    let start = as_of - Duration::days(days);
    payments
        .iter()
        .copied()
        .filter(|p| p.date > start)
        .collect()
}

/// The rules applied to one source whose normalised category is `category`, over its
/// `payments` as `window_payments` selects them (the caller keeps them for the report's counts).
pub fn assess(
    source: &ProviderIncomeSource,
    category: &str,
    payments: &[Payment],
    as_of: NaiveDate,
) -> Assessment {
    let observed_cents = total_cents(payments);
    let excluded = |reason, explanation: String| {
        Assessment::Excluded(Excluded {
            reason,
            observed_cents,
            explanation,
        })
    };
    if !is_income_category(category) {
        debug_assert!(NOT_INCOME_CATEGORIES.contains(&category));
        let what = match category {
            "TAX_REFUND" => "a tax refund is a repayment of tax, not income",
            "TRANSFER_OWN_ACCOUNTS" => "money moved between the tenant's own accounts",
            _ => "loan proceeds are borrowed money, not income",
        };
        return excluded(ExclusionReason::NotIncome, format!("Not income: {what}."));
    }
    if source.employment_status == Some(EmploymentStatus::Ended) {
        return excluded(
            ExclusionReason::Ended,
            "Not counted: the provider states this employment has ended.".into(),
        );
    }
    let Some(last) = payments.last().copied() else {
        return excluded(
            ExclusionReason::NoPayments,
            format!("Not counted: no payment in the data window up to {as_of}."),
        );
    };
    let stated = source
        .pay_rate
        .filter(|r| r.is_finite() && *r > 0.0)
        .zip(source.pay_frequency);
    if payments.len() == 1 && stated.is_none() {
        return excluded(
            ExclusionReason::OneOff,
            format!(
                "Not counted: a single payment of {} on {}, with no recurring pay stated.",
                format_money(observed_cents),
                last.date
            ),
        );
    }
    let (allowed_gap, gap_words) = match source.pay_frequency {
        Some(f) => (
            f.period_days() * ENDED_AFTER_PERIODS,
            format!("1.5 pay periods ({})", f.words()),
        ),
        None => (IRREGULAR_ENDED_AFTER_DAYS as f64, "45 days".to_string()),
    };
    let gap = (as_of - last.date).num_days();
    if gap as f64 > allowed_gap {
        return excluded(
            ExclusionReason::Ended,
            format!(
                "Not counted: last paid on {}, {gap} days before {as_of}, more than {gap_words}.",
                last.date
            ),
        );
    }
    let counted = match (source.pay_frequency, stated) {
        (Some(f), Some((rate, _))) if payments.len() == 1 => {
            let monthly = cents_of(rate * f.periods_per_month());
            Counted {
                monthly_cents: monthly,
                twelve_month_cents: monthly,
                basis: format!(
                    "stated pay of {} {}; one payment seen, on {}",
                    format_money(cents_of(rate)),
                    f.words(),
                    last.date
                ),
                reason: Some(CountReason::StatedPay),
            }
        }
        (Some(f), _) => regular(payments, f, as_of),
        (None, _) => irregular(payments, as_of),
    };
    Assessment::Counted(counted)
}

fn regular(payments: &[Payment], f: PayFrequency, as_of: NaiveDate) -> Counted {
    let recent = since(payments, as_of, RECENT_DAYS);
    let (per_period, basis) = if recent.len() >= 2 {
        (
            mean(&recent),
            format!(
                "mean of {} payments in the {RECENT_DAYS} days to {as_of}",
                recent.len()
            ),
        )
    } else {
        let last_two = &payments[payments.len() - 2..];
        (
            mean(last_two),
            format!(
                "mean of the last 2 payments ({} and {})",
                last_two[0].date, last_two[1].date
            ),
        )
    };
    let monthly_cents = cents_of(per_period * f.periods_per_month());
    let year = since(payments, as_of, YEAR_DAYS);
    let twelve_month_cents = cents_of(mean(&year) * f.periods_per_month());
    let basis = format!(
        "{basis}: {} paid {}",
        format_money(cents_of(per_period)),
        f.words()
    );
    Counted {
        monthly_cents,
        twelve_month_cents,
        reason: adjusted(monthly_cents, twelve_month_cents),
        basis,
    }
}

fn irregular(payments: &[Payment], as_of: NaiveDate) -> Counted {
    let year = since(payments, as_of, YEAR_DAYS);
    // Not empty: the last payment is within 45 days of `as_of`.
    let first = year.first().map_or(as_of, |p| p.date);
    let total = total_cents(&year);
    let months = ((as_of - first).num_days() as f64 / DAYS_PER_MONTH).max(1.0);
    let monthly_cents = (total as f64 / months).round() as i64;
    Counted {
        monthly_cents,
        twelve_month_cents: monthly_cents,
        basis: format!(
            "{} paid in {} payments from {first} to {as_of}, over {months:.1} months",
            format_money(total),
            year.len()
        ),
        reason: None,
    }
}

fn adjusted(monthly_cents: i64, twelve_month_cents: i64) -> Option<CountReason> {
    let differs = (monthly_cents - twelve_month_cents).abs() as f64
        > ADJUSTED_SHARE * twelve_month_cents as f64;
    differs.then_some(CountReason::RecentLevel)
}

#[cfg(test)]
mod tests;
