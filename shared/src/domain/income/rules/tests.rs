use super::*;
use crate::domain::income::ProviderIncomeSource;

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

/// The rules on `s` as the report applies them: its window's payments, at `AS_OF`.
fn assessed(s: &ProviderIncomeSource, category: &str) -> Assessment {
    assess(s, category, &window_payments(s, d(AS_OF)), d(AS_OF))
}

fn counted(s: &ProviderIncomeSource) -> Counted {
    match assessed(s, &normalise(s)) {
        Assessment::Counted(c) => c,
        other => panic!("not counted: {other:?}"),
    }
}

fn excluded(s: &ProviderIncomeSource) -> Excluded {
    match assessed(s, &normalise(s)) {
        Assessment::Excluded(e) => e,
        other => panic!("counted: {other:?}"),
    }
}

fn normalise(s: &ProviderIncomeSource) -> String {
    crate::domain::income::normalise_category(&s.category)
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
fn a_source_ends_after_one_and_a_half_periods_or_45_days_or_when_stated() {
    let biweekly = |last: &str| {
        source(
            Some(PayFrequency::Biweekly),
            &[("2026-09-01", 1.0), (last, 1.0)],
        )
    };
    // 1.5 x 14.04 days = 21.06: 21 days is current, 22 ended.
    assert!(matches!(
        assessed(&biweekly("2026-10-23"), "SALARY"),
        Assessment::Counted(_)
    ));
    let e = excluded(&biweekly("2026-10-22"));
    assert_eq!(e.reason, ExclusionReason::Ended);
    assert!(
        e.explanation.contains("last paid on 2026-10-22"),
        "{}",
        e.explanation
    );
    let irregular = |last: &str| source(None, &[("2026-08-01", 50.0), (last, 50.0)]);
    assert!(matches!(
        assessed(&irregular("2026-09-29"), "SALARY"),
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
            ("2026-06-01", 900.0),
            ("2026-10-01", 1100.0),
            ("2026-11-01", 1300.0),
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
    // 600.00 paid on 2026-10-14 and 2026-10-28: 30 days to the as-of date, at least one month.
    let s = source(None, &[("2026-10-14", 300.0), ("2026-10-28", 300.0)]);
    assert_eq!(counted(&s).monthly_cents, 60_000);
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
