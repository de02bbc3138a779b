//! Income stability, per source and overall, from the dated payments a provider reports.
//!
//! - `months_observed`: from one pay period before the first payment to the last payment, in
//!   months of `365.25 / 12` days, rounded (26 biweekly paychecks are 12 months). Overall: the
//!   largest of the sources'.
//! - `last_payment_date`: the latest payment (overall: of any source).
//! - `regularity`: the coefficient of variation (standard deviation / mean) of the payment amounts
//!   or of the days between payments, whichever is larger, two decimals: up to 0.10 `regular`, up
//!   to 0.35 `variable`, above `irregular`; `insufficient_history` with fewer than 3 payments.
//!   Overall: the income-weighted mean of the sources' figures, labelled the same way.
//! - `trend`: the monthly rate of the last three months against the monthly rate of the months
//!   before. The source's anchor is its last payment (or the as-of date, when the last payment is
//!   more than one pay period older). The
//!   recent window is the whole number of pay periods nearest to three months ending at the
//!   anchor (payments pay for the period that ends on their date), so a steady paycheck counts
//!   the same number of payments in every window; the earlier
//!   window runs from one period before the first payment. Irregular sources use the mean gap
//!   between payments as their period. Change of +10% or more is `rising`, -10% or less
//!   `declining`, else `stable`; `insufficient_history` when the earlier window is shorter than a
//!   month. Overall: the sum of the sources' recent rates against the sum of their earlier rates
//!   (a source too new for its own trend adds to the recent side only).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::income::{DAYS_PER_MONTH, PayFrequency, Payment};

const RECENT_DAYS: f64 = 3.0 * DAYS_PER_MONTH;
const REGULAR_MAX_CV: f64 = 0.10;
const VARIABLE_MAX_CV: f64 = 0.35;
const TREND_THRESHOLD_PERCENT: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegularityLabel {
    Regular,
    Variable,
    Irregular,
    InsufficientHistory,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrendLabel {
    Rising,
    Stable,
    Declining,
    InsufficientHistory,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Regularity {
    pub label: RegularityLabel,
    /// The coefficient of variation behind the label; null with insufficient history.
    pub coefficient_of_variation: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    pub label: TrendLabel,
    /// Change of the last three months' monthly rate against the months before, in percent
    /// (one decimal); null with insufficient history.
    pub change_percent: Option<f64>,
    pub recent_monthly_average: Option<f64>,
    pub earlier_monthly_average: Option<f64>,
}

/// Stability of one source, or of the whole income.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stability {
    pub months_observed: u32,
    pub last_payment_date: NaiveDate,
    pub regularity: Regularity,
    pub trend: Trend,
}

/// The per-source figures the overall stability is built from.
#[derive(Debug, Clone)]
pub struct SourceStability {
    pub stability: Stability,
    cv: Option<f64>,
    recent_rate: f64,
    earlier_rate: Option<f64>,
}

fn round_to(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn coefficient_of_variation(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    Some(variance.sqrt() / mean)
}

fn regularity_label(cv: Option<f64>) -> RegularityLabel {
    match cv {
        None => RegularityLabel::InsufficientHistory,
        Some(cv) if cv <= REGULAR_MAX_CV => RegularityLabel::Regular,
        Some(cv) if cv <= VARIABLE_MAX_CV => RegularityLabel::Variable,
        Some(_) => RegularityLabel::Irregular,
    }
}

fn trend(recent_rate: f64, earlier_rate: Option<f64>) -> Trend {
    let monthly = |per_day: f64| round_to(per_day * DAYS_PER_MONTH, 2);
    match earlier_rate.filter(|e| *e > 0.0) {
        None => Trend {
            label: TrendLabel::InsufficientHistory,
            change_percent: None,
            recent_monthly_average: Some(monthly(recent_rate)),
            earlier_monthly_average: None,
        },
        Some(earlier) => {
            let change = round_to((recent_rate - earlier) / earlier * 100.0, 1);
            let label = if change >= TREND_THRESHOLD_PERCENT {
                TrendLabel::Rising
            } else if change <= -TREND_THRESHOLD_PERCENT {
                TrendLabel::Declining
            } else {
                TrendLabel::Stable
            };
            Trend {
                label,
                change_percent: Some(change),
                recent_monthly_average: Some(monthly(recent_rate)),
                earlier_monthly_average: Some(monthly(earlier)),
            }
        }
    }
}

/// Stability of one source from its payments; None without payments. `as_of` is the end of the
/// provider's data window.
pub fn source_stability(
    payments: &[Payment],
    frequency: Option<PayFrequency>,
    as_of: NaiveDate,
) -> Option<SourceStability> {
    let mut payments: Vec<Payment> = payments
        .iter()
        .copied()
        .filter(|p| p.amount.is_finite() && p.amount > 0.0)
        .collect();
    payments.sort_by_key(|p| p.date);
    let first = payments.first()?.date;
    let last = payments.last()?.date;
    let gaps: Vec<f64> = payments
        .windows(2)
        .map(|w| (w[1].date - w[0].date).num_days() as f64)
        .collect();
    let period_days = match frequency {
        Some(f) => f.period_days(),
        None if gaps.is_empty() => DAYS_PER_MONTH,
        None => (gaps.iter().sum::<f64>() / gaps.len() as f64).max(1.0),
    };
    let cv = if payments.len() < 3 {
        None
    } else {
        let amounts: Vec<f64> = payments.iter().map(|p| p.amount).collect();
        let a = coefficient_of_variation(&amounts).unwrap_or(0.0);
        let g = coefficient_of_variation(&gaps).unwrap_or(0.0);
        Some(round_to(a.max(g), 2))
    };
    let anchor = if ((as_of - last).num_days() as f64) > period_days {
        as_of
    } else {
        last
    };
    let periods = (RECENT_DAYS / period_days).round().max(1.0);
    let recent_days = periods * period_days;
    let day = |d: NaiveDate| (anchor - d).num_days() as f64;
    // Paid in arrears: the payment `k` periods before the anchor pays for the k-th period back,
    // so the recent window's payments are the ones less than `periods - 1/2` periods back.
    let cut = recent_days - period_days / 2.0;
    let recent_sum: f64 = payments
        .iter()
        .filter(|p| day(p.date) < cut)
        .map(|p| p.amount)
        .sum();
    let earlier_sum: f64 = payments
        .iter()
        .filter(|p| day(p.date) >= cut)
        .map(|p| p.amount)
        .sum();
    let earlier_days = day(first) + period_days - recent_days;
    let earlier_rate = (earlier_days >= DAYS_PER_MONTH).then(|| earlier_sum / earlier_days);
    let recent_rate = recent_sum / recent_days;
    let observed_days = (last - first).num_days() as f64 + period_days;
    let months_observed = ((observed_days / DAYS_PER_MONTH).round() as u32).max(1);
    Some(SourceStability {
        stability: Stability {
            months_observed,
            last_payment_date: last,
            regularity: Regularity {
                label: regularity_label(cv),
                coefficient_of_variation: cv,
            },
            trend: trend(recent_rate, earlier_rate),
        },
        cv,
        recent_rate,
        earlier_rate,
    })
}

/// The overall stability from the sources' (each with its monthly income in cents as weight).
pub fn overall_stability(sources: &[(i64, &SourceStability)]) -> Option<Stability> {
    let last = sources
        .iter()
        .map(|(_, s)| s.stability.last_payment_date)
        .max()?;
    let months_observed = sources
        .iter()
        .map(|(_, s)| s.stability.months_observed)
        .max()?;
    let weighted: Vec<(f64, f64)> = sources
        .iter()
        .filter_map(|(w, s)| s.cv.map(|cv| (*w as f64, cv)))
        .collect();
    let weight: f64 = weighted.iter().map(|(w, _)| w).sum();
    let cv = (weight > 0.0).then(|| {
        round_to(
            weighted.iter().map(|(w, cv)| w * cv).sum::<f64>() / weight,
            2,
        )
    });
    let recent: f64 = sources.iter().map(|(_, s)| s.recent_rate).sum();
    let earlier: f64 = sources.iter().filter_map(|(_, s)| s.earlier_rate).sum();
    let any_earlier = sources.iter().any(|(_, s)| s.earlier_rate.is_some());
    Some(Stability {
        months_observed,
        last_payment_date: last,
        regularity: Regularity {
            label: regularity_label(cv),
            coefficient_of_variation: cv,
        },
        trend: trend(recent, any_earlier.then_some(earlier)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn every(start: &str, days: i64, n: i64, amount: impl Fn(i64) -> f64) -> Vec<Payment> {
        (0..n)
            .map(|i| Payment {
                date: d(start) + Duration::days(i * days),
                amount: amount(i),
            })
            .collect()
    }

    #[test]
    fn a_steady_biweekly_paycheck_is_regular_and_stable() {
        let p = every("2025-11-28", 14, 26, |_| 2150.0);
        let s = source_stability(&p, Some(PayFrequency::Biweekly), d("2026-11-15")).unwrap();
        let s = s.stability;
        assert_eq!(s.months_observed, 12);
        assert_eq!(s.last_payment_date, d("2026-11-13"));
        assert_eq!(s.regularity.label, RegularityLabel::Regular);
        assert_eq!(s.regularity.coefficient_of_variation, Some(0.0));
        assert_eq!(s.trend.label, TrendLabel::Stable);
        assert!(s.trend.change_percent.unwrap().abs() < 1.0, "{:?}", s.trend);
    }

    #[test]
    fn a_cut_in_pay_declines_and_a_stopped_source_declines_fully() {
        // Monthly 3,000 for 9 months, then 2,000 for 3.
        let p = every(
            "2026-01-01",
            30,
            12,
            |i| if i < 9 { 3000.0 } else { 2000.0 },
        );
        let s = source_stability(&p, Some(PayFrequency::Monthly), p[11].date).unwrap();
        assert_eq!(s.stability.trend.label, TrendLabel::Declining);
        assert!(s.stability.trend.change_percent.unwrap() < -30.0);
        assert_eq!(s.stability.regularity.label, RegularityLabel::Variable);
        // Paid monthly until four months before the report's last payment.
        let p = every("2025-09-01", 30, 8, |_| 1000.0);
        let s = source_stability(&p, Some(PayFrequency::Monthly), d("2026-08-01")).unwrap();
        assert_eq!(s.stability.trend.label, TrendLabel::Declining);
        assert_eq!(s.stability.trend.change_percent, Some(-100.0));
    }

    #[test]
    fn scattered_payouts_are_irregular_and_new_sources_lack_history() {
        let gaps = [1, 9, 2, 14, 3, 1, 11, 4, 2, 20, 1, 5];
        let mut date = d("2026-05-01");
        let mut p = vec![];
        for (i, g) in gaps.iter().enumerate() {
            date += Duration::days(*g);
            p.push(Payment {
                date,
                amount: 80.0 + 70.0 * (i % 3) as f64,
            });
        }
        let s = source_stability(&p, None, date).unwrap();
        assert_eq!(s.stability.regularity.label, RegularityLabel::Irregular);
        let p = every("2026-10-01", 14, 3, |_| 500.0);
        let s = source_stability(&p, Some(PayFrequency::Biweekly), p[2].date).unwrap();
        assert_eq!(s.stability.trend.label, TrendLabel::InsufficientHistory);
        assert_eq!(s.stability.trend.change_percent, None);
        let two = every("2026-10-01", 14, 2, |_| 500.0);
        let s = source_stability(&two, None, two[1].date).unwrap();
        assert_eq!(
            s.stability.regularity.label,
            RegularityLabel::InsufficientHistory
        );
        assert!(source_stability(&[], None, d("2026-10-01")).is_none());
    }

    #[test]
    fn overall_adds_a_new_source_to_the_recent_side() {
        let salary = every("2025-11-28", 14, 26, |_| 2000.0);
        let side = every("2026-09-01", 30, 3, |_| 500.0);
        let last = d("2026-11-13");
        let a = source_stability(&salary, Some(PayFrequency::Biweekly), last).unwrap();
        let b = source_stability(&side, Some(PayFrequency::Monthly), last).unwrap();
        let o = overall_stability(&[(433_333, &a), (50_000, &b)]).unwrap();
        assert_eq!(o.trend.label, TrendLabel::Rising);
        assert_eq!(o.months_observed, 12);
        assert_eq!(o.last_payment_date, last);
        assert_eq!(o.regularity.label, RegularityLabel::Regular);
    }
}
