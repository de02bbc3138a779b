use super::*;
use domain::affordability::RentTerms;
use domain::income::rules::ExclusionReason;
use domain::report::{IncomeReport, build_report_with};
use domain::stability::{RegularityLabel, TrendLabel};

#[test]
fn tags_pick_scenarios() {
    assert_eq!(scenario_from_email("jane+good@example.com"), Some("good"));
    assert_eq!(
        scenario_from_email("Jane+LowIncome@example.com"),
        Some("lowincome")
    );
    assert_eq!(scenario_from_email("jane+other@example.com"), None);
    assert_eq!(scenario_from_email("jane@example.com"), None);
}

fn as_of() -> NaiveDate {
    "2026-11-20".parse().unwrap()
}

fn report(scenario: &str, terms: &RentTerms) -> IncomeReport {
    build_report_with(&scenario_income(scenario, as_of()).unwrap(), terms)
}

#[test]
fn scenarios_give_the_documented_reports() {
    let rent = RentTerms::rent_only(Some(1500.0));
    // (scenario, counted total, reasons of the sources not counted), as the module docs say.
    let table: [(&str, f64, &[ExclusionReason]); 10] = [
        ("good", 5200.0, &[]),
        ("lowincome", 1516.67, &[]),
        ("gig", 4482.0, &[]),
        ("voucher", 1317.0, &[]),
        ("declining", 3033.33, &[]),
        ("irregular", 726.93, &[]),
        ("oneoff", 1200.0, &[ExclusionReason::OneOff]),
        ("ended", 1950.0, &[ExclusionReason::Ended]),
        ("samejob", 4024.8, &[]),
        ("transfers", 4333.33, &[ExclusionReason::NotIncome]),
    ];
    for (scenario, total, excluded) in table {
        let r = report(scenario, &rent);
        assert_eq!(r.total_monthly_income, total, "{scenario}");
        let reasons: Vec<ExclusionReason> = r.excluded_sources.iter().map(|e| e.reason).collect();
        assert_eq!(reasons, excluded, "{scenario}");
        assert_eq!(r.as_of, as_of(), "{scenario}");
        let stability = r.stability.expect("dated payments give stability");
        let last = stability.last_payment_date;
        assert!(last > as_of() - Duration::days(35) && last <= as_of() - Duration::days(3));
    }
    assert_eq!(
        table.len() + 2,
        SCENARIOS.len(),
        "every scenario is in the table"
    );
    assert_eq!(report("good", &rent).passes_3x_rule, Some(true));
    assert_eq!(report("lowincome", &rent).passes_3x_rule, Some(false));
    let gig = report("gig", &rent);
    assert_eq!(gig.income_sources[1].pay_frequency, None);
    assert_eq!(gig.income_sources[1].income_category, "GIG_ECONOMY");
    assert!(matches!(
        scenario_income("fail", as_of()),
        Err(ProviderError::Rejected(_))
    ));
    assert!(matches!(
        scenario_income("outage", as_of()),
        Err(ProviderError::Unavailable(_))
    ));
}

#[test]
fn the_voucher_holder_meets_the_rule_on_their_portion() {
    let terms = RentTerms {
        monthly_rent: Some(1400.0),
        rent_subsidy_monthly: Some(1000.0),
        income_multiple: None,
    };
    let r = report("voucher", &terms);
    assert_eq!(r.total_monthly_income, 1317.0);
    let a = r.affordability.unwrap();
    assert_eq!((a.tenant_portion, a.income_required), (400.0, 1200.0));
    assert!(a.meets_requirement);
    assert_eq!(r.passes_3x_rule, Some(true));
    assert_eq!(r.rent_to_income_ratio, Some(0.3037));
    // Without the subsidy the same income fails 3x the rent.
    assert_eq!(
        report("voucher", &RentTerms::rent_only(Some(1400.0))).passes_3x_rule,
        Some(false)
    );
    let categories: Vec<&str> = r
        .income_sources
        .iter()
        .map(|s| s.income_category.as_str())
        .collect();
    assert_eq!(categories, ["BENEFIT_OTHER", "CHILD_SUPPORT"]);
    let st = r.stability.unwrap();
    assert_eq!(st.regularity.label, RegularityLabel::Regular);
    assert_eq!(st.trend.label, TrendLabel::Stable);
    assert_eq!(st.months_observed, 12);
}

#[test]
fn declining_and_irregular_scenarios_show_it() {
    let rent = RentTerms::rent_only(Some(1500.0));
    let declining = report("declining", &rent);
    let source = &declining.income_sources[0];
    assert_eq!(source.twelve_month_average, 4300.0);
    assert_eq!(
        source.reason,
        Some(domain::income::rules::CountReason::RecentLevel)
    );
    let trend = &source.stability.as_ref().unwrap().trend;
    assert_eq!(trend.label, TrendLabel::Declining);
    assert!(trend.change_percent.unwrap() <= -25.0, "{trend:?}");
    assert_eq!(
        declining.stability.unwrap().trend.label,
        TrendLabel::Declining
    );
    let irregular = report("irregular", &rent);
    let st = irregular.stability.unwrap();
    assert_eq!(st.regularity.label, RegularityLabel::Irregular);
    assert_eq!(irregular.income_sources[0].pay_frequency, None);
    assert_eq!(st.months_observed, 7);
}
