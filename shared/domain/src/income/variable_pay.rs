//! Base and variable pay. A bonus, a commission or an overtime week is not the pay a tenant can
//! count on every period, so the rules count base pay at its current rate and variable pay at its
//! average, and only when it recurs.
//!
//! Each pay is split into base and variable:
//! - by the provider's breakdown, where it gives one (`variable_payments`: payroll earnings
//!   lines, a stub's earnings rows), on the same dates;
//! - else a pay more than [`SPIKE_RATIO`] times each of its neighbours (the pays before and after
//!   it, those that exist) is base at its neighbours' mean and variable above it.
//!
//! Variable pay recurs when at least [`RECURS_AFTER`] pays in the twelve months to the as-of date
//! carry some; it then counts at its monthly average over those months (or over the months the
//! stream was seen in them, when fewer). A single one is listed, not counted.

use chrono::{Duration, NaiveDate};

use super::{DAYS_PER_MONTH, Payment};

/// A pay this many times each of its neighbours is base pay plus a variable part.
pub const SPIKE_RATIO: f64 = 1.5;
/// Variable pay counts when this many pays in the twelve months carry some.
pub const RECURS_AFTER: usize = 2;
/// The months variable pay is averaged over, at most.
pub const AVERAGE_MONTHS: f64 = 12.0;

/// One pay split into its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PayParts {
    pub date: NaiveDate,
    pub base: f64,
    pub variable: f64,
    /// True when the provider stated the split; false when a spike was split here.
    pub stated: bool,
}

/// `pays` (oldest first) split into base and variable, by `breakdown` where it has entries.
pub fn split(pays: &[Payment], breakdown: &[Payment]) -> Vec<PayParts> {
    if !breakdown.is_empty() {
        return pays
            .iter()
            .map(|p| {
                let stated: f64 = (breakdown.iter())
                    .filter(|b| b.date == p.date && b.amount.is_finite() && b.amount > 0.0)
                    .map(|b| b.amount)
                    .sum();
                let variable = stated.clamp(0.0, p.amount);
                PayParts {
                    date: p.date,
                    base: p.amount - variable,
                    variable,
                    stated: true,
                }
            })
            .collect();
    }
    (0..pays.len())
        .map(|i| {
            let neighbours: Vec<f64> = [i.checked_sub(1), Some(i + 1)]
                .into_iter()
                .flatten()
                .filter_map(|k| pays.get(k).map(|p| p.amount))
                .collect();
            let p = pays[i];
            let spike =
                !neighbours.is_empty() && neighbours.iter().all(|n| p.amount > SPIKE_RATIO * n);
            let base = if spike {
                neighbours.iter().sum::<f64>() / neighbours.len() as f64
            } else {
                p.amount
            };
            PayParts {
                date: p.date,
                base,
                variable: p.amount - base,
                stated: false,
            }
        })
        .collect()
}

/// The variable pay of `parts` in the twelve months to `as_of`.
pub fn in_year(parts: &[PayParts], as_of: NaiveDate) -> Vec<PayParts> {
    let start = as_of - Duration::days(365);
    parts
        .iter()
        .copied()
        .filter(|p| p.date > start && p.variable >= 0.005)
        .collect()
}

/// The monthly average of `variable` (the year's variable pays), over the twelve months or the
/// months since `first_seen` plus one period of `period_days`, whichever is shorter (at least one).
pub fn monthly_average(
    variable: &[PayParts],
    first_seen: NaiveDate,
    period_days: f64,
    as_of: NaiveDate,
) -> f64 {
    let seen = ((as_of - first_seen).num_days() as f64 + period_days) / DAYS_PER_MONTH;
    let months = seen.clamp(1.0, AVERAGE_MONTHS);
    variable.iter().map(|p| p.variable).sum::<f64>() / months
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pays(amounts: &[f64]) -> Vec<Payment> {
        let last: NaiveDate = "2026-11-13".parse().unwrap();
        let n = amounts.len() as i64;
        (amounts.iter().enumerate())
            .map(|(i, a)| Payment {
                date: last - Duration::days(14 * (n - 1 - i as i64)),
                amount: *a,
            })
            .collect()
    }

    #[test]
    fn a_pay_well_above_both_neighbours_is_split_at_their_mean() {
        let parts = split(&pays(&[2000.0, 2000.0, 8000.0, 2000.0]), &[]);
        assert_eq!(parts[2].base, 2000.0);
        assert_eq!(parts[2].variable, 6000.0);
        assert!(
            parts
                .iter()
                .enumerate()
                .all(|(i, p)| i == 2 || p.variable == 0.0)
        );
    }

    #[test]
    fn a_raise_is_not_a_spike_and_overtime_within_half_is_base() {
        let raise = split(&pays(&[2000.0, 2000.0, 3200.0, 3200.0, 3200.0]), &[]);
        assert!(raise.iter().all(|p| p.variable == 0.0), "{raise:?}");
        let overtime = split(&pays(&[2000.0, 2600.0, 2000.0]), &[]);
        assert!(overtime.iter().all(|p| p.variable == 0.0));
    }

    #[test]
    fn a_stated_breakdown_is_taken_as_given() {
        let gross = pays(&[2500.0, 2900.0]);
        let bonus = [Payment {
            date: gross[1].date,
            amount: 400.0,
        }];
        let parts = split(&gross, &bonus);
        assert_eq!((parts[0].base, parts[0].variable), (2500.0, 0.0));
        assert_eq!((parts[1].base, parts[1].variable), (2500.0, 400.0));
        assert!(parts.iter().all(|p| p.stated));
    }
}
