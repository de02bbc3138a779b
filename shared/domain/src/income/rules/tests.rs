use super::*;
use crate::income::streams::group;
use crate::income::{ProviderIncomeSource, VerificationMethod};

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

const AS_OF: &str = "2026-11-13";

fn source(frequency: Option<PayFrequency>, payments: &[(&str, f64)]) -> ProviderIncomeSource {
    ProviderIncomeSource {
        name: "Acme".into(),
        category: "SALARY".into(),
        pay_frequency: frequency,
        payments: payments
            .iter()
            .map(|(date, amount)| Payment {
                date: d(date),
                amount: *amount,
            })
            .collect(),
        ..Default::default()
    }
}

/// The rules on `s` alone as the report applies them: its one stream, at `AS_OF`.
fn assessed(s: &ProviderIncomeSource) -> Assessment {
    let income = ProviderIncome {
        sources: vec![s.clone()],
        ..ProviderIncome::empty(VerificationMethod::Bank, d(AS_OF))
    };
    let streams = group(&income);
    assert_eq!(streams.len(), 1);
    assess(&streams[0], &income)
}

fn counted(s: &ProviderIncomeSource) -> Counted {
    match assessed(s) {
        Assessment::Counted(c) => c,
        other => panic!("not counted: {other:?}"),
    }
}

fn excluded(s: &ProviderIncomeSource) -> Excluded {
    match assessed(s) {
        Assessment::Excluded(e) => e,
        other => panic!("counted: {other:?}"),
    }
}

/// `n` pays of `amount` every `days` days, the last on `last`.
fn every(days: i64, last: &str, n: i64, amount: f64) -> Vec<(String, f64)> {
    (0..n)
        .rev()
        .map(|k| ((d(last) - Duration::days(days * k)).to_string(), amount))
        .collect()
}

fn source_of(frequency: Option<PayFrequency>, pays: &[(String, f64)]) -> ProviderIncomeSource {
    let pays: Vec<(&str, f64)> = pays.iter().map(|(x, a)| (x.as_str(), *a)).collect();
    source(frequency, &pays)
}

#[test]
fn a_single_payment_without_stated_pay_is_a_one_off_whatever_its_tag() {
    for frequency in [None, Some(PayFrequency::Biweekly)] {
        let e = excluded(&source(frequency, &[("2026-11-01", 4000.0)]));
        assert_eq!(e.reason, ExclusionReason::OneOff);
        assert_eq!(e.observed_cents, 400_000);
        assert!(
            e.explanation.contains("4,000.00 on 2026-11-01"),
            "{}",
            e.explanation
        );
    }
}

#[test]
fn a_single_payment_with_stated_pay_counts_at_that_pay() {
    let mut s = source(Some(PayFrequency::Biweekly), &[("2026-11-06", 1900.0)]);
    s.pay_rate = Some(2000.0);
    let c = counted(&s);
    assert_eq!(c.monthly_cents, 433_333);
    assert_eq!(c.reason, Some(CountReason::StatedPay));
    assert!(c.basis.starts_with("stated pay of 2,000.00"), "{}", c.basis);
    // A rate without a frequency is no recurring pay.
    let mut s = source(None, &[("2026-11-06", 1900.0)]);
    s.pay_rate = Some(2000.0);
    assert_eq!(excluded(&s).reason, ExclusionReason::OneOff);
}

#[test]
fn a_stream_ends_after_one_and_a_half_periods_and_the_posting_allowance_or_45_days() {
    let biweekly =
        |last: &str| source_of(Some(PayFrequency::Biweekly), &every(14, last, 6, 1000.0));
    // 1.5 x 14.04 days + 5 = 26.06: 26 days is current, 27 ended.
    assert!(matches!(
        assessed(&biweekly("2026-10-18")),
        Assessment::Counted(_)
    ));
    let e = excluded(&biweekly("2026-10-17"));
    assert_eq!(e.reason, ExclusionReason::Ended);
    assert!(
        e.explanation.contains("last paid on 2026-10-17"),
        "{}",
        e.explanation
    );
    // A weekly job is not ended by one deposit a few days late: 15 days is 1.5 weeks and 4.5.
    let weekly = source_of(
        Some(PayFrequency::Weekly),
        &every(7, "2026-10-29", 8, 500.0),
    );
    assert!(matches!(assessed(&weekly), Assessment::Counted(_)));
    let irregular = |last: &str| {
        source(
            None,
            &[
                ("2026-07-01", 50.0),
                ("2026-08-01", 50.0),
                ("2026-08-06", 50.0),
                (last, 50.0),
            ],
        )
    };
    assert!(matches!(
        assessed(&irregular("2026-09-29")),
        Assessment::Counted(_)
    ));
    assert_eq!(
        excluded(&irregular("2026-09-28")).reason,
        ExclusionReason::Ended
    );
    let mut stated = biweekly("2026-11-13");
    stated.employment_status = Some(EmploymentStatus::Ended);
    assert_eq!(excluded(&stated).reason, ExclusionReason::Ended);
}

#[test]
fn a_regular_source_counts_at_its_recent_level() {
    // Monthly 3,000 until August, 2,000 since: three payments in the 90 days.
    let cut = source(
        Some(PayFrequency::Monthly),
        &[
            ("2026-05-01", 3000.0),
            ("2026-06-01", 3000.0),
            ("2026-07-01", 3000.0),
            ("2026-08-01", 3000.0),
            ("2026-09-01", 2000.0),
            ("2026-10-01", 2000.0),
            ("2026-11-01", 2000.0),
        ],
    );
    let c = counted(&cut);
    assert_eq!(c.monthly_cents, 200_000);
    assert_eq!(c.twelve_month_cents, 257_143);
    assert_eq!(c.reason, Some(CountReason::RecentLevel));
    assert_eq!(
        c.basis,
        "mean of 3 payments in the 90 days to 2026-11-13: 2,000.00 paid monthly"
    );
    // Fewer than two in the 90 days: the mean of the last two.
    let sparse = source(
        Some(PayFrequency::Monthly),
        &[
            ("2026-06-15", 900.0),
            ("2026-07-15", 900.0),
            ("2026-08-13", 1100.0),
            ("2026-10-15", 1300.0),
        ],
    );
    let c = counted(&sparse);
    assert_eq!(c.monthly_cents, 120_000);
    let steady = source(
        Some(PayFrequency::Weekly),
        &[
            ("2026-10-30", 500.0),
            ("2026-11-06", 500.0),
            ("2026-11-13", 500.0),
        ],
    );
    let c = counted(&steady);
    assert_eq!((c.monthly_cents, c.reason), (216_667, None));
}

#[test]
fn an_irregular_source_divides_by_the_months_to_the_as_of_date() {
    // 3,000.00 from 2026-05-17 (180 days before): 5.91 months, not the 170 days to the last.
    let s = source(
        None,
        &[
            ("2026-05-17", 1000.0),
            ("2026-08-01", 1000.0),
            ("2026-11-03", 1000.0),
        ],
    );
    let c = counted(&s);
    assert_eq!(
        c.monthly_cents,
        (300_000.0 * DAYS_PER_MONTH / 180.0_f64).round() as i64
    );
    assert!(
        c.basis
            .starts_with("3,000.00 paid in 3 payments from 2026-05-17 to 2026-11-13"),
        "{}",
        c.basis
    );
    assert_eq!(c.frequency, None);
}

#[test]
fn irregular_money_needs_three_payments_in_two_calendar_months() {
    for pays in [
        vec![("2026-10-14", 300.0), ("2026-10-28", 300.0)],
        vec![
            ("2026-11-02", 300.0),
            ("2026-11-05", 300.0),
            ("2026-11-11", 300.0),
        ],
    ] {
        let e = excluded(&source(None, &pays));
        assert_eq!(e.reason, ExclusionReason::InsufficientHistory, "{pays:?}");
        assert!(
            e.explanation
                .contains("at least 3 payments in 2 calendar months")
        );
    }
}

#[test]
fn the_cadence_comes_from_the_dates_not_the_tag() {
    // Payouts on Mondays, Wednesdays and Fridays, tagged daily: irregular income, whose figure
    // is its total over the months, on a payout day and two days after alike.
    let mut pays = Vec::new();
    for week in 0..26 {
        for back in [0, 2, 4] {
            let date = d(AS_OF) - Duration::days(7 * week + back);
            pays.push((date.to_string(), 120.0));
        }
    }
    pays.sort_by(|a, b| a.0.cmp(&b.0));
    let c = counted(&source_of(Some(PayFrequency::Daily), &pays));
    assert_eq!(c.frequency, None);
    // 78 payouts of 120.00 from 2026-05-18 over 179 days: 5.88 months.
    assert_eq!(
        c.monthly_cents,
        (936_000.0 * DAYS_PER_MONTH / 179.0_f64).round() as i64
    );
    // Pays every four weeks tagged biweekly count four-weekly, as monthly at most.
    let c = counted(&source_of(
        Some(PayFrequency::Biweekly),
        &every(28, AS_OF, 6, 2000.0),
    ));
    assert!(c.monthly_cents <= 200_000 * 13 / 12 + 1, "{c:?}");
}

#[test]
fn transfers_from_a_person_count_only_on_a_schedule_of_their_own() {
    let mut p2p = source(None, &[("2026-10-23", 2000.0), ("2026-11-06", 2000.0)]);
    p2p.name = "ZELLE FROM JORDAN SMITH".into();
    p2p.category = "TRANSFER_FROM_APPLICATION".into();
    let e = excluded(&p2p);
    assert_eq!(e.reason, ExclusionReason::PersonToPerson);
    assert!(e.explanation.contains("child support paid monthly, counts"));
    // Tagged biweekly, two transfers still make no schedule of their own.
    p2p.pay_frequency = Some(PayFrequency::Biweekly);
    assert_eq!(excluded(&p2p).reason, ExclusionReason::PersonToPerson);
    // A roommate's share, every month for half a year: counted like any regular income.
    let mut share = source_of(None, &every(30, "2026-11-01", 6, 650.0));
    share.name = "VENMO FROM ALEX ROOMMATE".into();
    share.category = "TRANSFER_FROM_APPLICATION".into();
    let c = counted(&share);
    assert_eq!(
        (c.frequency, c.monthly_cents),
        (Some(PayFrequency::Monthly), 65_000)
    );
}

#[test]
fn an_award_counts_at_the_amount_in_force_and_never_ends_by_silence() {
    let mut letter = source(
        Some(PayFrequency::Monthly),
        &[
            ("2025-01-01", 900.0),
            ("2026-01-01", 967.0),
            ("2027-01-01", 994.0),
        ],
    );
    letter.ongoing = true;
    let c = counted(&letter);
    assert_eq!(c.monthly_cents, 96_700);
    assert_eq!(c.reason, Some(CountReason::StatedPay));
    assert!(c.basis.contains("in force since 2026-01-01"), "{}", c.basis);
    letter.payments.retain(|p| p.date > d(AS_OF));
    assert_eq!(excluded(&letter).reason, ExclusionReason::NoPayments);
}

#[test]
fn base_pay_counts_at_its_rate_and_a_single_bonus_is_set_aside() {
    let mut pays = every(14, AS_OF, 26, 2000.0);
    pays[22].1 = 8000.0;
    let c = counted(&source_of(Some(PayFrequency::Biweekly), &pays));
    assert_eq!(c.monthly_cents, 433_333);
    assert_eq!(c.parts, Some((433_333, 0)));
    let single = c.single_variable.expect("the bonus is listed");
    assert_eq!((single.base, single.variable), (2000.0, 6000.0));
    // Two bonuses in the year recur: their average counts beside base pay.
    pays[9].1 = 5000.0;
    let c = counted(&source_of(Some(PayFrequency::Biweekly), &pays));
    let variable = c.parts.unwrap().1;
    // Over the 350 days from the first pay and one period: 11.96 months.
    let months = (350.0 + PayFrequency::Biweekly.period_days()) / DAYS_PER_MONTH;
    assert_eq!(variable, (900_000.0 / months).round() as i64);
    assert_eq!(c.monthly_cents, 433_333 + variable);
    assert_eq!(c.single_variable, None);
    assert!(
        c.basis.contains("the average of 2 pays above base pay"),
        "{}",
        c.basis
    );
}

#[test]
fn money_that_is_not_income_is_never_counted() {
    for category in NOT_INCOME_CATEGORIES {
        let mut s = source(
            Some(PayFrequency::Monthly),
            &[("2026-10-01", 1000.0), ("2026-11-01", 1000.0)],
        );
        s.category = category.to_string();
        let e = excluded(&s);
        assert_eq!(e.reason, ExclusionReason::NotIncome, "{category}");
        assert_eq!(e.observed_cents, 200_000);
    }
}

#[test]
fn payments_after_the_as_of_date_or_not_positive_are_not_seen() {
    let s = source(
        Some(PayFrequency::Monthly),
        &[
            ("2026-10-01", 1000.0),
            ("2026-11-01", -50.0),
            ("2026-11-20", 9000.0),
        ],
    );
    assert_eq!(excluded(&s).reason, ExclusionReason::OneOff);
    assert_eq!(
        excluded(&source(None, &[])).reason,
        ExclusionReason::NoPayments
    );
}
