//! A stream's cadence, measured from its pay dates. A provider's frequency tag is a hint: banks
//! tag rideshare payouts `DAILY` and a monthly transfer `BIWEEKLY`, and a wrong tag multiplies a
//! payment by the wrong number of periods. The dates decide:
//!
//! - with three or more distinct dates, the cadence is the longest one of weekly, every two
//!   weeks, twice a month and monthly that fits at least [`FIT_SHARE`] of the gaps (a gap fits
//!   when it is one to three periods, within the cadence's [`tolerance_days`]; a late pay's long
//!   gap and the short one after it fit as two periods) and shows at least [`COVERAGE`] of the pays
//!   that cadence would make over the dates' span; every two weeks and twice a month both fit
//!   gaps of 13 to 17 days, and the dates decide by the grid they stray from less (two-week
//!   steps, or two fixed days of every month), the tag when the two are closer than three days
//!   over the number of gaps;
//! - a median gap under [`SEVERAL_A_WEEK_DAYS`] days is payouts several times a week: irregular,
//!   whatever the tag;
//! - with fewer than three dates nothing can be measured: a tag counts when the one gap, if any,
//!   fits it; `DAILY` is never a cadence (daily payouts are irregular income);
//! - anything else is irregular.

use chrono::{Datelike, NaiveDate};

use super::PayFrequency;

/// At least this share of the gaps must fit a cadence.
pub const FIT_SHARE: f64 = 0.75;
/// A late pay moves its date by this many days past the cadence's tolerance, at most.
pub const LATE_PAY_DAYS: f64 = 3.0;
/// At least this share of a cadence's pays over the dates' span must be seen.
pub const COVERAGE: f64 = 0.75;
/// A median gap shorter than this many days is payouts several times a week.
pub const SEVERAL_A_WEEK_DAYS: f64 = 5.0;

/// The cadences a stream may have, longest period first.
const CADENCES: [PayFrequency; 4] = [
    PayFrequency::Monthly,
    PayFrequency::SemiMonthly,
    PayFrequency::Biweekly,
    PayFrequency::Weekly,
];

/// How far a gap may stray from a whole number of periods: a weekend or holiday moves a pay
/// date, and a bank posts a deposit a few days after it.
pub fn tolerance_days(f: PayFrequency) -> f64 {
    match f {
        PayFrequency::Weekly => 2.0,
        PayFrequency::Biweekly => 3.0,
        PayFrequency::SemiMonthly => 3.0,
        PayFrequency::Monthly => 4.0,
        PayFrequency::Daily => 0.0,
    }
}

/// What the dates say of a stream's cadence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cadence {
    /// Paid on this cycle; `measured` is false when too few dates left only the tag to go by.
    Regular {
        frequency: PayFrequency,
        measured: bool,
    },
    /// No cycle: payouts several times a week, or gaps that fit none.
    Irregular,
}

impl Cadence {
    pub fn frequency(self) -> Option<PayFrequency> {
        match self {
            Cadence::Regular { frequency, .. } => Some(frequency),
            Cadence::Irregular => None,
        }
    }
}

/// The days between two pays of `f`: whole weeks for weekly cycles, the average month's share
/// for the others.
fn period(f: PayFrequency) -> f64 {
    match f {
        PayFrequency::Weekly => 7.0,
        PayFrequency::Biweekly => 14.0,
        other => other.period_days(),
    }
}

/// How many periods of `f` a gap is, when it is a whole number of them (1 to 3).
fn periods_in(gap: f64, f: PayFrequency) -> Option<u32> {
    let period = period(f);
    (1..=3).find(|k| (gap - *k as f64 * period).abs() <= tolerance_days(f))
}

/// The cadence of pays on `dates` (any order, repeats allowed), `hint` the provider's tag.
pub fn measure(dates: &[NaiveDate], hint: Option<PayFrequency>) -> Cadence {
    let mut dates = dates.to_vec();
    dates.sort();
    dates.dedup();
    let gaps: Vec<f64> = dates
        .windows(2)
        .map(|w| (w[1] - w[0]).num_days() as f64)
        .collect();
    let hint = hint.filter(|f| *f != PayFrequency::Daily);
    if dates.len() < 3 {
        return match (hint, gaps.first()) {
            (Some(f), None) => Cadence::Regular {
                frequency: f,
                measured: false,
            },
            (Some(f), Some(gap)) if periods_in(*gap, f).is_some() => Cadence::Regular {
                frequency: f,
                measured: false,
            },
            _ => Cadence::Irregular,
        };
    }
    let mut sorted = gaps.clone();
    sorted.sort_by(f64::total_cmp);
    if sorted[sorted.len() / 2] < SEVERAL_A_WEEK_DAYS {
        return Cadence::Irregular;
    }
    let span = (dates[dates.len() - 1] - dates[0]).num_days() as f64;
    let fits = |f: PayFrequency| {
        // A pay posted late makes a long gap then a short one: together they are two periods.
        // The most gaps that fit, each alone or with its neighbour as such a pair.
        let pair_fits = |i: usize| {
            periods_in(gaps[i] + gaps[i + 1], f) == Some(2)
                && [gaps[i], gaps[i + 1]]
                    .iter()
                    .all(|g| (g - period(f)).abs() <= tolerance_days(f) + LATE_PAY_DAYS)
        };
        let mut best = vec![0usize; gaps.len() + 2];
        for i in (0..gaps.len()).rev() {
            let alone = best[i + 1] + usize::from(periods_in(gaps[i], f).is_some());
            let paired = if i + 1 < gaps.len() && pair_fits(i) {
                best[i + 2] + 2
            } else {
                0
            };
            best[i] = alone.max(paired);
        }
        let fitting = best[0];
        let expected = span / period(f) + 1.0;
        fitting as f64 >= FIT_SHARE * gaps.len() as f64 && dates.len() as f64 >= COVERAGE * expected
    };
    let fitting: Vec<PayFrequency> = CADENCES.into_iter().filter(|f| fits(*f)).collect();
    let frequency = match fitting.as_slice() {
        [] => return Cadence::Irregular,
        [f, ..] if *f != PayFrequency::SemiMonthly => *f,
        // Twice a month, and maybe every two weeks: each cycle's grid is laid over the dates,
        // and the one they stray from less is the cycle. A wrong grid drifts by 1.2 days a pay.
        [_, rest @ ..] if rest.contains(&PayFrequency::Biweekly) => {
            let (two_weeks, half_month) = (
                spread_on_two_week_grid(&dates),
                spread_on_half_month_grid(&dates),
            );
            // Few dates drift little: the closer the two, the more the tag is trusted.
            let undecided = 3.0 / (dates.len() - 1) as f64;
            match hint {
                Some(f @ (PayFrequency::Biweekly | PayFrequency::SemiMonthly))
                    if (two_weeks - half_month).abs() < undecided =>
                {
                    f
                }
                _ if two_weeks <= half_month => PayFrequency::Biweekly,
                _ => PayFrequency::SemiMonthly,
            }
        }
        [f, ..] => *f,
    };
    Cadence::Regular {
        frequency,
        measured: true,
    }
}

/// How far, in days, dates stray from the best grid of two-week steps.
fn spread_on_two_week_grid(dates: &[NaiveDate]) -> f64 {
    let step = period(PayFrequency::Biweekly);
    let offsets: Vec<f64> = dates
        .iter()
        .map(|d| {
            let x = (*d - dates[0]).num_days() as f64;
            x - step * (x / step).round()
        })
        .collect();
    let (lo, hi) = offsets
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    hi - lo
}

/// How far, in days, dates stray from two fixed days of every month (the 15th and the last,
/// the 1st and the 16th, ...): each date's place in its half of the month, on a circle, as the
/// smallest arc that holds them all.
fn spread_on_half_month_grid(dates: &[NaiveDate]) -> f64 {
    let mut places: Vec<f64> = dates
        .iter()
        .map(|d| {
            let month_days = days_in_month(*d) as f64;
            ((d.day0() as f64 / month_days) * 2.0).fract()
        })
        .collect();
    places.sort_by(f64::total_cmp);
    let widest_gap = places
        .windows(2)
        .map(|w| w[1] - w[0])
        .chain(places.first().zip(places.last()).map(|(a, z)| 1.0 - z + a))
        .fold(0.0, f64::max);
    (1.0 - widest_gap) * period(PayFrequency::SemiMonthly)
}

fn days_in_month(d: NaiveDate) -> u32 {
    let (y, m) = (d.year(), d.month());
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)
    };
    next.and_then(|n| n.pred_opt())
        .map_or(30, |last| last.day())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;
    use proptest::prelude::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn regular(f: PayFrequency) -> Cadence {
        Cadence::Regular {
            frequency: f,
            measured: true,
        }
    }

    #[test]
    fn each_cycle_is_measured_from_its_dates_whatever_the_tag() {
        let last = d("2026-11-13");
        for f in CADENCES {
            let dates = f.dates_back(last, 8);
            for hint in [
                None,
                Some(f),
                Some(PayFrequency::Daily),
                Some(PayFrequency::Monthly),
            ] {
                assert_eq!(measure(&dates, hint), regular(f), "{f:?} tagged {hint:?}");
            }
        }
    }

    #[test]
    fn payouts_several_times_a_week_are_irregular_whatever_the_tag() {
        let start = d("2026-08-03");
        let dates: Vec<NaiveDate> = (0..12)
            .flat_map(|w| [0, 2, 4].map(|k| start + Duration::days(7 * w + k)))
            .collect();
        for hint in [None, Some(PayFrequency::Daily), Some(PayFrequency::Weekly)] {
            assert_eq!(measure(&dates, hint), Cadence::Irregular);
        }
    }

    #[test]
    fn a_missed_or_late_pay_keeps_the_cycle() {
        let dates = [
            d("2026-09-04"),
            d("2026-09-11"),
            d("2026-09-25"),
            d("2026-10-02"),
            d("2026-10-12"),
            d("2026-10-16"),
        ];
        assert_eq!(measure(&dates, None), regular(PayFrequency::Weekly));
    }

    #[test]
    fn too_few_dates_go_by_a_tag_that_fits_and_never_by_daily() {
        let two = [d("2026-10-30"), d("2026-11-13")];
        let tagged = |f| Cadence::Regular {
            frequency: f,
            measured: false,
        };
        assert_eq!(
            measure(&two, Some(PayFrequency::Biweekly)),
            tagged(PayFrequency::Biweekly)
        );
        assert_eq!(
            measure(&two, Some(PayFrequency::Monthly)),
            Cadence::Irregular
        );
        assert_eq!(measure(&two, None), Cadence::Irregular);
        assert_eq!(
            measure(&two[..1], Some(PayFrequency::Monthly)),
            tagged(PayFrequency::Monthly)
        );
        assert_eq!(
            measure(&two[..1], Some(PayFrequency::Daily)),
            Cadence::Irregular
        );
    }

    #[test]
    fn gaps_that_fit_no_cycle_are_irregular() {
        let dates = [
            d("2026-06-01"),
            d("2026-06-04"),
            d("2026-06-25"),
            d("2026-07-03"),
            d("2026-08-14"),
            d("2026-08-20"),
        ];
        assert_eq!(
            measure(&dates, Some(PayFrequency::Biweekly)),
            Cadence::Irregular
        );
    }

    proptest! {
        /// Any cycle, any length of history from 3 pays, any pay moved up to two days by a
        /// weekend or a slow bank: the cycle is found.
        #[test]
        fn a_cycle_with_shifted_days_is_found(
            which in 0usize..4,
            n in 3usize..27,
            shifts in proptest::collection::vec(0i64..=2, 27),
        ) {
            let f = CADENCES[which];
            let dates: Vec<NaiveDate> = f
                .dates_back(d("2026-11-13"), n)
                .into_iter()
                .zip(&shifts)
                .map(|(date, s)| date + Duration::days(*s))
                .collect();
            prop_assert_eq!(measure(&dates, Some(f)), regular(f));
        }
    }
}
