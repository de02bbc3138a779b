use super::*;
use crate::income::rules::{CountReason, ExclusionReason};
use crate::income::{COUNTED_CATEGORIES, DAYS_PER_MONTH, Payment, ProviderIncomeSource};
use proptest::prelude::*;

fn as_of() -> NaiveDate {
    "2026-11-13".parse().unwrap()
}

/// A steady source: `n` payments of `amount`, the last on the as-of date.
fn steady(freq: PayFrequency, amount: f64, n: usize) -> ProviderIncomeSource {
    ProviderIncomeSource::on_cycle("Acme", "salary", freq, as_of(), n, |_| amount)
}

fn income(sources: Vec<ProviderIncomeSource>) -> ProviderIncome {
    ProviderIncome {
        as_of: as_of(),
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: None,
    }
}

fn factor<'a>(r: &'a IncomeReport, name: &str) -> Option<&'a ConfidenceFactor> {
    r.confidence_factors.iter().find(|f| f.factor == name)
}

#[test]
fn normalises_by_frequency() {
    let gig = ProviderIncomeSource {
        name: "Gig".into(),
        category: "GIG_ECONOMY".into(),
        payments: vec![
            Payment {
                date: "2026-09-20".parse().unwrap(),
                amount: 400.0,
            },
            Payment {
                date: "2026-10-14".parse().unwrap(),
                amount: 400.0,
            },
            Payment {
                date: "2026-10-28".parse().unwrap(),
                amount: 412.35,
            },
        ],
        ..Default::default()
    };
    let r = build_report(
        &income(vec![
            steady(PayFrequency::Biweekly, 2000.0, 26),
            steady(PayFrequency::Weekly, 300.0, 52),
            gig,
        ]),
        Some(1500.0),
    );
    let monthly: Vec<f64> = r.income_sources.iter().map(|s| s.monthly_income).collect();
    // The gig: 1,212.35 over the 54 days from its first payment, without a schedule.
    let gig = (121_235.0 * DAYS_PER_MONTH / 54.0_f64).round() / 100.0;
    assert_eq!(monthly, vec![4333.33, 1300.0, gig]);
    assert_eq!(r.income_sources[2].pay_frequency, None);
    assert_eq!(
        r.total_monthly_income,
        ((4333.33 + 1300.0 + gig) * 100.0_f64).round() / 100.0
    );
    assert_eq!(r.income_sources[0].income_category, "SALARY");
    assert_eq!(r.income_sources[0].twelve_month_average, 4333.33);
    assert_eq!(r.income_sources[0].payment_count, 26);
    assert_eq!(r.income_sources[0].last_payment_date, as_of());
    assert_eq!(
        r.rent_to_income_ratio,
        Some((150_000.0 / (r.total_monthly_income * 100.0) * 10_000.0).round() / 10_000.0)
    );
    assert_eq!(r.passes_3x_rule, Some(true));
    assert_eq!(r.as_of, as_of());
}

#[test]
fn no_rent_means_null_affordability_and_zero_income_fails() {
    let r = build_report(
        &income(vec![steady(PayFrequency::Monthly, 3000.0, 12)]),
        None,
    );
    assert_eq!((r.rent_to_income_ratio, r.passes_3x_rule), (None, None));
    let r = build_report(&income(vec![]), Some(1000.0));
    assert_eq!(
        (r.rent_to_income_ratio, r.passes_3x_rule),
        (None, Some(false))
    );
    assert_eq!(r.confidence_score, 0.0);
}

#[test]
fn excluded_sources_are_listed_and_left_out_of_every_figure() {
    let refund = ProviderIncomeSource {
        name: "IRS TREAS 310".into(),
        category: "TAX_REFUND".into(),
        payments: vec![Payment {
            date: "2026-04-15".parse().unwrap(),
            amount: 4000.0,
        }],
        ..Default::default()
    };
    let r = build_report(
        &income(vec![steady(PayFrequency::Monthly, 1000.0, 12), refund]),
        Some(400.0),
    );
    assert_eq!(r.total_monthly_income, 1000.0);
    assert_eq!(r.income_sources.len(), 1);
    let e = &r.excluded_sources[0];
    assert_eq!(
        (e.name.as_str(), e.reason),
        ("IRS TREAS 310", ExclusionReason::NotIncome)
    );
    assert_eq!((e.observed_amount, e.payment_count), (4000.0, 1));
    assert_eq!(e.last_payment_date, Some("2026-04-15".parse().unwrap()));
    assert!(e.explanation.contains("tax refund"), "{}", e.explanation);
    assert_eq!(r.rent_to_income_ratio, Some(0.4));
    assert!(!r.affordability.unwrap().meets_requirement);
}

#[test]
fn every_lawful_category_counts_in_full() {
    // Benefits, SSI/SSDI, child support, pensions, gig work, app payouts: no category of income
    // is dropped or discounted.
    let sources: Vec<ProviderIncomeSource> = COUNTED_CATEGORIES
        .iter()
        .map(|c| ProviderIncomeSource {
            category: c.to_string(),
            ..steady(PayFrequency::Monthly, 100.0, 12)
        })
        .collect();
    let r = build_report(&income(sources), None);
    assert_eq!(r.income_sources.len(), COUNTED_CATEGORIES.len());
    assert!(r.income_sources.iter().all(|s| s.monthly_income == 100.0));
    assert_eq!(
        r.total_monthly_income,
        100.0 * COUNTED_CATEGORIES.len() as f64
    );
    assert!(r.excluded_sources.is_empty());
    assert_eq!(r.amounts_basis, Some(AmountsBasis::Net));
}

#[test]
fn the_method_is_the_one_behind_most_of_the_counted_income() {
    let payroll = ProviderIncomeSource {
        method: Some(VerificationMethod::Payroll),
        ..steady(PayFrequency::Monthly, 3000.0, 12)
    };
    let r = build_report(
        &income(vec![steady(PayFrequency::Monthly, 1000.0, 12), payroll]),
        None,
    );
    assert_eq!(r.verification_method, VerificationMethod::Payroll);
    assert_eq!(r.amounts_basis, Some(AmountsBasis::Gross));
    assert_eq!(r.income_sources[0].method, VerificationMethod::Bank);
    let none = ProviderIncome::empty(VerificationMethod::Document, as_of());
    assert_eq!(
        build_report(&none, None).verification_method,
        VerificationMethod::Document
    );
}

#[test]
fn a_subsidy_moves_the_contract_figures_to_the_tenants_portion() {
    let paid = income(vec![steady(PayFrequency::Monthly, 2000.0, 12)]);
    let plain = build_report(&paid, Some(1000.0));
    assert_eq!(
        (plain.rent_to_income_ratio, plain.passes_3x_rule),
        (Some(0.5), Some(false))
    );
    let a = plain.affordability.unwrap();
    assert_eq!(
        (a.tenant_portion, a.income_multiple, a.income_required),
        (1000.0, 3.0, 3000.0)
    );
    let terms = RentTerms {
        monthly_rent: Some(1000.0),
        rent_subsidy_monthly: Some(400.0),
        income_multiple: Some(3.5),
    };
    let r = build_report_with(&paid, &terms);
    assert_eq!(
        (r.rent_to_income_ratio, r.passes_3x_rule),
        (Some(0.3), Some(true))
    );
    let a = r.affordability.unwrap();
    assert_eq!((a.tenant_portion, a.income_required), (600.0, 2100.0));
    assert!(!a.meets_requirement, "2,000 < 3.5 x 600");
    assert_eq!(build_report(&paid, None).affordability, None);
}

// Confidence: one test per factor, each against the same steady baseline.

fn baseline() -> IncomeReport {
    build_report(
        &income(vec![steady(PayFrequency::Biweekly, 2000.0, 26)]),
        None,
    )
}

#[test]
fn a_steady_year_of_bank_deposits_is_lowered_by_the_method_only() {
    let r = baseline();
    assert_eq!(r.confidence_score, 0.9);
    let names: Vec<&str> = r
        .confidence_factors
        .iter()
        .map(|f| f.factor.as_str())
        .collect();
    assert_eq!(names, ["method"]);
}

#[test]
fn fewer_than_three_payments_lower_the_confidence() {
    let r = build_report(
        &income(vec![steady(PayFrequency::Biweekly, 2000.0, 2)]),
        None,
    );
    assert!(r.confidence_score < baseline().confidence_score);
    assert_eq!(factor(&r, "few_payments").unwrap().effect, 0.85);
}

#[test]
fn an_irregular_source_lowers_the_confidence() {
    // Payouts on no schedule, whatever their tag.
    let mut gig = steady(PayFrequency::Biweekly, 2000.0, 26);
    let mut date = as_of();
    for (payment, gap) in gig
        .payments
        .iter_mut()
        .rev()
        .zip([3, 12, 2, 19, 1, 9].iter().cycle())
    {
        payment.date = date;
        date -= chrono::Duration::days(*gap);
    }
    gig.payments.sort_by_key(|p| p.date);
    let r = build_report(&income(vec![gig]), None);
    assert_eq!(r.income_sources[0].pay_frequency, None);
    assert!(r.confidence_score < baseline().confidence_score);
    assert_eq!(factor(&r, "irregular").unwrap().effect, 0.9);
}

#[test]
fn a_declining_trend_lowers_the_confidence() {
    let cut = ProviderIncomeSource::on_cycle(
        "Acme",
        "SALARY",
        PayFrequency::Biweekly,
        as_of(),
        26,
        |i| {
            if i < 19 { 2200.0 } else { 1400.0 }
        },
    );
    let r = build_report(&income(vec![cut]), None);
    assert_eq!(r.total_monthly_income, 3033.33);
    assert_eq!(r.income_sources[0].reason, Some(CountReason::RecentLevel));
    assert!(r.confidence_score < baseline().confidence_score);
    assert_eq!(factor(&r, "declining").unwrap().effect, 0.9);
}

#[test]
fn any_excluded_source_lowers_the_confidence() {
    let one_off = ProviderIncomeSource {
        name: "Deposit".into(),
        category: "CASH_DEPOSIT".into(),
        payments: vec![Payment {
            date: as_of(),
            amount: 50.0,
        }],
        ..Default::default()
    };
    let r = build_report(
        &income(vec![steady(PayFrequency::Biweekly, 2000.0, 26), one_off]),
        None,
    );
    assert_eq!(r.total_monthly_income, baseline().total_monthly_income);
    assert!(r.confidence_score < baseline().confidence_score);
    assert_eq!(factor(&r, "excluded").unwrap().effect, 0.95);
}

#[test]
fn short_history_and_the_providers_own_confidence_lower_it() {
    let r = build_report(
        &income(vec![steady(PayFrequency::Monthly, 2000.0, 3)]),
        None,
    );
    let history = factor(&r, "history").unwrap();
    assert_eq!(history.effect, 0.775, "{history:?}");
    let mut with_provider = income(vec![steady(PayFrequency::Biweekly, 2000.0, 26)]);
    with_provider.provider_confidence = Some(0.5);
    let r = build_report(&with_provider, None);
    assert_eq!(r.confidence_score, 0.45);
    assert_eq!(factor(&r, "provider").unwrap().effect, 0.5);
}

#[test]
fn a_job_seen_by_two_methods_counts_once_and_the_other_sighting_is_listed() {
    let bank = steady(PayFrequency::Biweekly, 1800.0, 12);
    let payroll = ProviderIncomeSource {
        name: "ACME Inc".into(),
        method: Some(VerificationMethod::Payroll),
        amounts_basis: Some(AmountsBasis::Gross),
        ..steady(PayFrequency::Biweekly, 2400.0, 12).with_net(1800.0)
    };
    let r = build_report(&income(vec![bank, payroll]), None);
    // Payroll's gross pay, once: never 2,400.00 + 1,800.00 every two weeks.
    assert_eq!(r.total_monthly_income, 5200.0);
    assert_eq!(r.income_sources.len(), 1);
    assert_eq!(r.income_sources[0].method, VerificationMethod::Payroll);
    assert_eq!(r.income_sources[0].net_monthly_income, Some(3900.0));
    let dropped = &r.excluded_sources[0];
    assert_eq!(
        (dropped.reason, dropped.method),
        (ExclusionReason::Duplicate, VerificationMethod::Bank)
    );
    assert_eq!(dropped.duplicate_of.as_deref(), Some("ACME Inc"));
    assert_eq!(dropped.payment_count, 12);
    assert_eq!(
        r.methods_used,
        vec![VerificationMethod::Bank, VerificationMethod::Payroll]
    );
    assert_eq!(r.verification_method, VerificationMethod::Payroll);
    // One method's report never has a duplicate.
    let one = build_report(
        &income(vec![steady(PayFrequency::Biweekly, 1800.0, 12)]),
        None,
    );
    assert!(one.excluded_sources.is_empty());
}

proptest! {
    #[test]
    fn total_is_the_sum_of_sources(amounts in proptest::collection::vec(0.01f64..50_000.0, 0..6)) {
        let sources = amounts.iter().map(|a| steady(PayFrequency::Biweekly, *a, 6)).collect();
        let r = build_report(&income(sources), Some(1000.0));
        let sum_cents: i64 = r.income_sources.iter().map(|s| to_cents(s.monthly_income)).sum();
        prop_assert_eq!(to_cents(r.total_monthly_income), sum_cents);
        for s in &r.income_sources {
            // Every amount is a whole number of cents.
            prop_assert!((s.monthly_income * 100.0 - (s.monthly_income * 100.0).round()).abs() < 1e-6);
        }
    }

    #[test]
    fn exactly_three_times_rent_passes(rent_cents in 1i64..1_000_000) {
        let rent = rent_cents as f64 / 100.0;
        let exact = build_report(&income(vec![steady(PayFrequency::Monthly, 3.0 * rent, 12)]), Some(rent));
        prop_assert_eq!(exact.passes_3x_rule, Some(true));
        let short = build_report(&income(vec![steady(PayFrequency::Monthly, (3 * rent_cents - 1) as f64 / 100.0, 12)]), Some(rent));
        prop_assert_eq!(short.passes_3x_rule, Some(false));
    }

    #[test]
    fn ratio_is_rent_over_income_to_four_places(income_c in 1i64..10_000_000, rent_c in 0i64..1_000_000) {
        let r = build_report(&income(vec![steady(PayFrequency::Monthly, income_c as f64 / 100.0, 12)]), Some(rent_c as f64 / 100.0));
        let ratio = r.rent_to_income_ratio.unwrap();
        prop_assert!((ratio - rent_c as f64 / income_c as f64).abs() <= 0.00005 + 1e-12);
        prop_assert!((ratio * 10_000.0 - (ratio * 10_000.0).round()).abs() < 1e-6);
        prop_assert!((0.0..=1.0).contains(&r.confidence_score));
    }
}
