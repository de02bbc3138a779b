//! The arithmetic checks of pay stubs: gross less deductions is net (within a cent), the
//! year-to-date figures add up across consecutive stubs and never go backwards, and the pay
//! dates fit the stated frequency.

use chrono::{Datelike, NaiveDate};

use super::fields::dollars;
use super::{Check, CheckResult, Fields, PayStub, names};
use crate::income::PayFrequency;

/// Amounts this close (in cents) are equal: the stub's rounding.
pub const CENT_TOLERANCE: i64 = 1;

/// The checks one document allows on its own.
pub fn single_document_checks(fields: &Fields) -> Vec<Check> {
    match fields {
        Fields::PayStub(stub) => vec![
            net_pay(stub),
            year_to_date_single(stub),
            pay_dates_single(stub),
        ],
        _ => vec![],
    }
}

/// `net_pay_arithmetic`: gross less the deductions equals net. The deductions are the total the
/// stub states (with its taxes' subtotal when that stands apart), or else the lines read. A
/// stated total is read by its label, so a difference fails; lines may be missed on a layout
/// never seen, so without a total only a net above gross less the lines fails (no missed line
/// explains it), and a net below it is `unknown`.
pub fn net_pay(stub: &PayStub) -> Check {
    let listed: i64 = stub.deductions.iter().map(|d| d.cents).sum();
    let lines = (!stub.deductions.is_empty()).then_some(listed);
    let (Some(gross), Some(net)) = (stub.gross_cents, stub.net_cents) else {
        return unread(stub, lines);
    };
    let mut candidates: Vec<(i64, String)> = vec![];
    if let Some(total) = stub.deductions_total_cents {
        candidates.push((total, "the stated total".into()));
        if let Some(taxes) = stub.taxes_total_cents {
            candidates.push((
                total + taxes,
                format!("the stated taxes {} and deductions", dollars(taxes)),
            ));
        }
    }
    if let Some(listed) = lines {
        candidates.push((
            listed,
            format!("the {} deduction lines", stub.deductions.len()),
        ));
    }
    if candidates.is_empty() {
        return unread(stub, lines);
    }
    let says = |(total, what): &(i64, String)| {
        format!(
            "gross {} less deductions {} is {}; the stub states net {} ({what})",
            dollars(gross),
            dollars(*total),
            dollars(gross - total),
            dollars(net)
        )
    };
    let lines_note = match (stub.deductions_total_cents, lines) {
        (Some(stated), Some(listed)) => format!(
            "; the {} deduction lines add up to {}, the stated total is {}",
            stub.deductions.len(),
            dollars(listed),
            dollars(stated)
        ),
        _ => String::new(),
    };
    if let Some(fits) = candidates
        .iter()
        .find(|(total, _)| (gross - total - net).abs() <= CENT_TOLERANCE)
    {
        let evidence = format!("{}{lines_note}", says(fits));
        return Check::new(names::NET_PAY_ARITHMETIC, CheckResult::Pass, evidence);
    }
    let evidence = candidates.iter().map(says).collect::<Vec<_>>().join("; ") + &lines_note;
    let stated = stub.deductions_total_cents.is_some();
    let above = candidates
        .iter()
        .all(|(total, _)| net > gross - total + CENT_TOLERANCE);
    if stated || above {
        Check::new(names::NET_PAY_ARITHMETIC, CheckResult::Fail, evidence)
    } else {
        Check::new(
            names::NET_PAY_ARITHMETIC,
            CheckResult::Unknown,
            format!("{evidence}: a deduction line may not have been read"),
        )
    }
}

/// `net_pay_arithmetic` when gross, net or deductions were not read.
fn unread(stub: &PayStub, lines: Option<i64>) -> Check {
    let missing: Vec<&str> = [
        ("gross pay", stub.gross_cents.is_none()),
        ("net pay", stub.net_cents.is_none()),
        (
            "deductions",
            stub.deductions_total_cents.is_none() && lines.is_none(),
        ),
    ]
    .iter()
    .filter(|(_, m)| *m)
    .map(|(n, _)| *n)
    .collect();
    Check::new(
        names::NET_PAY_ARITHMETIC,
        CheckResult::Unknown,
        format!("not found on the stub: {}", missing.join(", ")),
    )
}

/// `year_to_date` on one stub: the year-to-date gross is at least this period's.
fn year_to_date_single(stub: &PayStub) -> Check {
    match (stub.gross_cents, stub.ytd_gross_cents) {
        (Some(g), Some(y)) if y + CENT_TOLERANCE < g => Check::new(
            names::YEAR_TO_DATE,
            CheckResult::Fail,
            format!(
                "year-to-date gross {} is less than this period's gross {}",
                dollars(y),
                dollars(g)
            ),
        ),
        (Some(g), Some(y)) => Check::new(
            names::YEAR_TO_DATE,
            CheckResult::Pass,
            format!(
                "year-to-date gross {} covers this period's gross {} (one stub)",
                dollars(y),
                dollars(g)
            ),
        ),
        _ => Check::new(
            names::YEAR_TO_DATE,
            CheckResult::Unknown,
            "no year-to-date gross on the stub",
        ),
    }
}

/// Days a pay period of each frequency may span.
fn period_days(f: PayFrequency) -> (i64, i64) {
    match f {
        PayFrequency::Weekly => (7, 7),
        PayFrequency::Biweekly => (14, 14),
        PayFrequency::SemiMonthly => (13, 16),
        PayFrequency::Monthly => (28, 31),
        PayFrequency::Daily => (1, 1),
    }
}

/// A pay date falls at most this many days after the period's end: pay in arrears.
pub const PAY_LAG_DAYS: i64 = 14;

/// A pay date may fall this many days before the period's end: a Friday pay date for a period
/// ending on Saturday, or a holiday.
pub const EARLY_PAY_DAYS: i64 = 3;

/// `pay_dates` on one stub: the period spans the stated frequency's length, and the pay date
/// falls from [`EARLY_PAY_DAYS`] before its end to [`PAY_LAG_DAYS`] after it.
fn pay_dates_single(stub: &PayStub) -> Check {
    let (Some(f), Some(start), Some(end), Some(paid)) = (
        stub.pay_frequency,
        stub.period_start,
        stub.period_end,
        stub.pay_date,
    ) else {
        return Check::new(
            names::PAY_DATES,
            CheckResult::Unknown,
            "the stub states no frequency, period or pay date",
        );
    };
    let days = (end - start).num_days() + 1;
    let (low, high) = period_days(f);
    let lag = (paid - end).num_days();
    let evidence = format!(
        "a period of {days} days ({start} to {end}), paid {paid}, for pay {}",
        f.words()
    );
    let fits = (low..=high).contains(&days) && (-EARLY_PAY_DAYS..=PAY_LAG_DAYS).contains(&lag);
    Check::new(
        names::PAY_DATES,
        if fits {
            CheckResult::Pass
        } else {
            CheckResult::Fail
        },
        evidence,
    )
}

/// Checks across a tenant's stubs, by index into the set: for each employer's stubs in pay-date
/// order, each stub after the first gets `year_to_date` (its year-to-date figures are the
/// previous stub's plus its own, when the two are consecutive; never lower in any case) and
/// `pay_dates` (the gap from the previous pay date fits the frequency).
pub fn series_checks(stubs: &[(usize, PayStub)]) -> Vec<(usize, Check)> {
    let mut out = vec![];
    let mut by_employer: std::collections::BTreeMap<String, Vec<&(usize, PayStub)>> =
        Default::default();
    for entry in stubs {
        if entry.1.pay_date.is_some() {
            let key = entry.1.employer.as_deref().unwrap_or("").to_lowercase();
            by_employer.entry(key).or_default().push(entry);
        }
    }
    for series in by_employer.values_mut() {
        series.sort_by_key(|(_, s)| s.pay_date);
        for pair in series.windows(2) {
            let (prev, (index, cur)) = (&pair[0].1, pair[1]);
            out.push((*index, ytd_pair(prev, cur)));
            if let Some(check) = cadence_pair(prev, cur) {
                out.push((*index, check));
            }
        }
    }
    out
}

fn consecutive(prev: &PayStub, cur: &PayStub) -> bool {
    let (Some(a), Some(b)) = (prev.pay_date, cur.pay_date) else {
        return false;
    };
    let Some(f) = cur.pay_frequency.or(prev.pay_frequency) else {
        return true;
    };
    let (_, high) = period_days(f);
    (b - a).num_days() <= high + 3
}

fn ytd_pair(prev: &PayStub, cur: &PayStub) -> Check {
    let (pd, cd) = (
        prev.pay_date.unwrap_or_default(),
        cur.pay_date.unwrap_or_default(),
    );
    if pd.year() != cd.year() {
        return Check::new(
            names::YEAR_TO_DATE,
            CheckResult::NotApplicable,
            format!("the previous stub ({pd}) is of another year"),
        );
    }
    let mut evidence = vec![];
    let mut fail = false;
    let mut compared = false;
    for (what, p, c, this) in [
        (
            "gross",
            prev.ytd_gross_cents,
            cur.ytd_gross_cents,
            cur.gross_cents,
        ),
        ("net", prev.ytd_net_cents, cur.ytd_net_cents, cur.net_cents),
    ] {
        let (Some(p), Some(c)) = (p, c) else { continue };
        compared = true;
        if c < p {
            fail = true;
            evidence.push(format!(
                "year-to-date {what} went backwards: {} on {pd}, {} on {cd}",
                dollars(p),
                dollars(c)
            ));
        } else if let Some(this) = this
            && consecutive(prev, cur)
        {
            let expected = p + this;
            let ok = (c - expected).abs() <= CENT_TOLERANCE;
            fail |= !ok;
            evidence.push(format!(
                "year-to-date {what} {} on {pd} plus this period's {} is {}; the stub on {cd} states {}",
                dollars(p), dollars(this), dollars(expected), dollars(c)
            ));
        } else {
            evidence.push(format!(
                "year-to-date {what} rose from {} on {pd} to {} on {cd}",
                dollars(p),
                dollars(c)
            ));
        }
    }
    if !compared {
        return Check::new(
            names::YEAR_TO_DATE,
            CheckResult::Unknown,
            "the stubs state no year-to-date figures",
        );
    }
    Check::new(
        names::YEAR_TO_DATE,
        if fail {
            CheckResult::Fail
        } else {
            CheckResult::Pass
        },
        evidence.join("; "),
    )
}

fn cadence_pair(prev: &PayStub, cur: &PayStub) -> Option<Check> {
    let f = cur.pay_frequency?;
    let (a, b): (NaiveDate, NaiveDate) = (prev.pay_date?, cur.pay_date?);
    let gap = (b - a).num_days();
    let (low, high) = period_days(f);
    let periods = ((gap as f64) / f.period_days()).round().max(1.0) as i64;
    let fits = gap >= low * periods - 3 * periods && gap <= high * periods + 3 * periods;
    Some(Check::new(
        names::PAY_DATES,
        if fits {
            CheckResult::Pass
        } else {
            CheckResult::Fail
        },
        format!(
            "paid {a} then {b}: {gap} days apart, {} periods of a {} frequency",
            periods,
            f.words()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::Deduction;
    use proptest::prelude::*;

    fn stub(gross: i64, net: i64, lines: &[i64], stated: Option<i64>) -> PayStub {
        PayStub {
            gross_cents: Some(gross),
            net_cents: Some(net),
            deductions: (lines.iter().enumerate())
                .map(|(i, c)| Deduction {
                    name: format!("line {i}"),
                    cents: *c,
                })
                .collect(),
            deductions_total_cents: stated,
            ..Default::default()
        }
    }

    proptest! {
        /// Figures that add up pass; a net raised above them fails; a deduction line missed by
        /// the reading never fails a stub without a stated total.
        #[test]
        fn net_pay_fails_only_on_figures_that_cannot_add_up(
            gross in 10_000i64..1_000_000,
            lines in prop::collection::vec(1i64..40_000, 1..8),
            raise in 2i64..300_000,
            stated in any::<bool>(),
        ) {
            let total: i64 = lines.iter().sum();
            prop_assume!(total < gross);
            let net = gross - total;
            let stated_total = stated.then_some(total);
            prop_assert_eq!(net_pay(&stub(gross, net, &lines, stated_total)).result, CheckResult::Pass);
            let raised = net_pay(&stub(gross, net + raise, &lines, stated_total));
            prop_assert_eq!(raised.result, CheckResult::Fail, "{}", raised.evidence);
            if lines.len() > 1 && !stated {
                let missed = net_pay(&stub(gross, net, &lines[1..], None));
                prop_assert_ne!(missed.result, CheckResult::Fail, "{}", missed.evidence);
            }
        }

        /// A pay date from 3 days before the period's end to 14 after it is normal.
        #[test]
        fn pay_dates_accept_early_and_arrears_pay(lag in -3i64..=14, start_day in 0i64..300) {
            let start = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Duration::days(start_day);
            let end = start + chrono::Duration::days(13);
            let s = PayStub {
                period_start: Some(start),
                period_end: Some(end),
                pay_date: Some(end + chrono::Duration::days(lag)),
                pay_frequency: Some(PayFrequency::Biweekly),
                ..Default::default()
            };
            prop_assert_eq!(pay_dates_single(&s).result, CheckResult::Pass);
        }
    }
}
