//! `admin income-report` on the scenario fixtures (`fixtures/income/`, made by its
//! `generate.py`): each scenario as the domain's own input and as a stored Plaid response gives
//! the same counted total and the same sources left out, for the same reasons.

use std::path::PathBuf;

use admin::{IncomeReportArgs, income_report, parse_payments};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/income")
        .join(name)
}

fn args(payments: Option<PathBuf>, plaid: Option<PathBuf>) -> IncomeReportArgs {
    IncomeReportArgs {
        payments,
        plaid,
        monthly_rent: Some(1500.0),
        rent_subsidy: None,
        income_multiple: None,
    }
}

fn report(args: &IncomeReportArgs) -> Value {
    serde_json::from_str(&income_report(args).unwrap()).unwrap()
}

/// A source left out, and why.
type LeftOut = (&'static str, &'static str);

/// (scenario, counted total, the sources left out).
const SCENARIOS: [(&str, f64, &[LeftOut]); 11] = [
    (
        "oneoff_beside_gig",
        1200.0,
        &[("CASH DEPOSIT BRANCH 0412", "one_off")],
    ),
    (
        "oneoff_tagged_biweekly",
        1200.0,
        &[("CASH DEPOSIT BRANCH 0412", "one_off")],
    ),
    (
        "ended_salary_plus_weekly",
        1950.0,
        &[("HARBOR LOGISTICS PAYROLL", "ended")],
    ),
    ("pay_cut", 3033.33, &[]),
    ("raise", 3600.0, &[]),
    ("new_job_two_paychecks", 5416.67, &[]),
    (
        "own_transfers_beside_salary",
        4333.33,
        &[("ONLINE TRANSFER FROM SAV XXXXXX4521", "not_income")],
    ),
    ("ssi_and_child_support", 1317.0, &[]),
    ("irregular_gig_seven_months", 726.93, &[]),
    ("two_overlapping_jobs", 5633.33, &[]),
    (
        "loan_and_tax_refund_beside_salary",
        3000.0,
        &[
            ("SOFI LOAN PROCEEDS", "not_income"),
            ("IRS TREAS 310 TAX REF", "not_income"),
        ],
    ),
];

#[test]
fn every_scenario_counts_current_recurring_income_only_from_either_input() {
    for (scenario, total, left_out) in SCENARIOS {
        let from_payments = report(&args(
            Some(fixture(&format!("{scenario}.payments.json"))),
            None,
        ));
        let from_plaid = report(&args(
            None,
            Some(fixture(&format!("{scenario}.plaid.json"))),
        ));
        for (input, r) in [("payments", &from_payments), ("plaid", &from_plaid)] {
            let at = format!("{scenario} from {input}");
            assert_eq!(r["total_monthly_income"], total, "{at}: {r:#}");
            assert_eq!(r["as_of"], "2026-11-13", "{at}");
            let excluded: Vec<(&str, &str)> = r["excluded_sources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (e["name"].as_str().unwrap(), e["reason"].as_str().unwrap()))
                .collect();
            assert_eq!(excluded, left_out, "{at}");
            // The counted sources add up to the total, as a contract client expects.
            let sum: f64 = r["income_sources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["monthly_income"].as_f64().unwrap())
                .sum();
            assert!((sum - total).abs() < 0.005, "{at}: {sum}");
            for s in r["income_sources"].as_array().unwrap() {
                assert!(
                    s["basis"].as_str().is_some_and(|b| !b.is_empty()),
                    "{at}: {s}"
                );
            }
        }
        // Both inputs give the same report, but for what only the payments file can say.
        assert_eq!(from_payments, from_plaid, "{scenario}");
    }
}

#[test]
fn the_pay_cut_counts_the_new_pay_and_shows_the_years_figure_beside_it() {
    let r = report(&args(Some(fixture("pay_cut.payments.json")), None));
    let source = &r["income_sources"][0];
    assert_eq!(source["monthly_income"], 3033.33);
    assert_eq!(source["twelve_month_average"], 4300.0);
    assert_eq!(source["reason"], "recent_level");
    assert_eq!(
        source["basis"],
        "mean of 7 payments in the 90 days to 2026-11-13: 1,400.00 paid every two weeks"
    );
    assert_eq!(r["passes_3x_rule"], false);
    let factors: Vec<&str> = r["confidence_factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["factor"].as_str().unwrap())
        .collect();
    assert!(factors.contains(&"declining"), "{factors:?}");
}

#[test]
fn the_rent_terms_apply_as_the_api_applies_them() {
    let mut a = args(Some(fixture("ssi_and_child_support.payments.json")), None);
    a.monthly_rent = Some(1400.0);
    a.rent_subsidy = Some(1000.0);
    let r = report(&a);
    assert_eq!(r["passes_3x_rule"], true);
    assert_eq!(r["rent_to_income_ratio"], 0.3037);
    assert_eq!(r["affordability"]["tenant_portion"], 400.0);
    a.income_multiple = Some(3.5);
    assert_eq!(report(&a)["affordability"]["income_required"], 1400.0);
    for (rent, subsidy, multiple, message) in [
        (Some(-1.0), None, None, "--monthly-rent must be between"),
        (
            None,
            Some(10.0),
            None,
            "--rent-subsidy needs --monthly-rent",
        ),
        (
            Some(100.0),
            Some(200.0),
            None,
            "--rent-subsidy must be between 0 and --monthly-rent",
        ),
        (
            Some(100.0),
            None,
            Some(9.0),
            "--income-multiple must be between 1 and 5",
        ),
    ] {
        a.monthly_rent = rent;
        a.rent_subsidy = subsidy;
        a.income_multiple = multiple;
        let e = income_report(&a).unwrap_err();
        assert!(e.contains(message), "{e}");
    }
}

#[test]
fn a_bad_file_is_refused_with_the_field_named() {
    let cases = [
        ("{}", "missing field `as_of`"),
        (r#"{"as_of": "2026-13-01", "sources": []}"#, "as_of: "),
        (
            r#"{"as_of": "2026-11-13", "sources": [{"name": "x", "category": "SALARY", "payments": [{"date": "2026-11-01", "amount": "12"}]}]}"#,
            "sources[0].payments[0].amount: invalid type",
        ),
        (
            r#"{"as_of": "2026-11-13", "sources": [{"name": "x", "category": "SALARY", "payments": [{"date": "2026-11-01", "amount": -5}]}]}"#,
            "sources[0].payments[0].amount: must be above zero",
        ),
        (
            r#"{"as_of": "2026-11-13", "sources": [{"name": "x", "category": "SALARY", "pay_frequency": "FORTNIGHTLY"}]}"#,
            "sources[0].pay_frequency: unknown pay frequency 'FORTNIGHTLY'",
        ),
        (
            r#"{"as_of": "2026-11-13", "sources": [{"category": "SALARY"}]}"#,
            "sources[0]: missing field `name`",
        ),
        ("not json", "expected ident"),
    ];
    for (body, message) in cases {
        let e = parse_payments(body).unwrap_err();
        assert!(e.contains(message), "{body}: {e}");
    }
    let dir = std::env::temp_dir().join(format!("income-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.plaid.json");
    std::fs::write(&broken, r#"{"bank_income": [{"generated_time": 7}]}"#).unwrap();
    let e = income_report(&args(None, Some(broken))).unwrap_err();
    assert!(e.contains("bank_income[0].generated_time"), "{e}");
    let missing = income_report(&args(Some(dir.join("nope.json")), None)).unwrap_err();
    assert!(missing.contains("nope.json"), "{missing}");
}

/// One biweekly job of 2,500.00 gross / 1,900.00 net in the shapes bank, payroll and document
/// data take (`fixtures/income/shape_*`, made by `generate.py`): each is one job, counted once,
/// at gross where a payroll or stub sighting counts. (fixture, counted total, the counted
/// sources' sightings as (method, pays), the reasons of what is listed and not counted.)
type Shape = (
    &'static str,
    f64,
    &'static [&'static [(&'static str, u64)]],
    &'static [&'static str],
);

const SHAPES: [Shape; 11] = [
    (
        "shape_payroll_and_alike_deposits",
        5416.67,
        &[&[("payroll", 26), ("bank", 7)]],
        &["duplicate"],
    ),
    (
        "shape_one_stub_beside_deposits",
        5416.67,
        &[&[("document", 1), ("bank", 7)]],
        &["duplicate"],
    ),
    (
        "shape_processor_named_deposits",
        5416.67,
        &[&[("payroll", 26), ("bank", 7)]],
        &["duplicate"],
    ),
    (
        "shape_generic_named_deposits",
        5416.67,
        &[&[("payroll", 26), ("bank", 7)]],
        &["duplicate"],
    ),
    (
        "shape_stale_stubs_beside_current_deposits",
        5416.67,
        &[&[("document", 2), ("bank", 7)]],
        &["duplicate"],
    ),
    (
        "shape_pay_split_across_accounts",
        5416.67,
        &[&[("payroll", 26), ("bank", 7), ("bank", 7)]],
        &["duplicate", "duplicate"],
    ),
    ("shape_two_credits_a_day", 4116.67, &[&[("bank", 7)]], &[]),
    (
        "shape_single_bonus",
        4333.33,
        &[&[("bank", 26)]],
        &["variable_pay_not_recurring"],
    ),
    // 78 payouts of 115.00 to 125.00 from 2026-05-18: 9,360.00 over 5.88 months, or 5.95
    // months two days later; irregular income, never ended by a two-day silence.
    (
        "shape_rideshare_tagged_daily",
        1591.59,
        &[&[("bank", 78)]],
        &[],
    ),
    (
        "shape_rideshare_two_days_later",
        1574.01,
        &[&[("bank", 78)]],
        &[],
    ),
    (
        "shape_transfers_beside_salary",
        4116.67,
        &[&[("bank", 26)]],
        &["person_to_person"],
    ),
];

#[test]
fn one_job_in_every_shape_the_data_takes_counts_once() {
    for (shape, total, counted, left_out) in SHAPES {
        let r = report(&args(
            Some(fixture(&format!("{shape}.payments.json"))),
            None,
        ));
        assert_eq!(r["total_monthly_income"], total, "{shape}: {r:#}");
        let sightings: Vec<Vec<(String, u64)>> = r["income_sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (s["sightings"].as_array().unwrap().iter())
                    .map(|x| {
                        (
                            x["method"].as_str().unwrap().to_string(),
                            x["payment_count"].as_u64().unwrap(),
                        )
                    })
                    .collect()
            })
            .collect();
        let expected: Vec<Vec<(String, u64)>> = counted
            .iter()
            .map(|s| s.iter().map(|(m, n)| (m.to_string(), *n)).collect())
            .collect();
        assert_eq!(sightings, expected, "{shape}");
        let reasons: Vec<&str> = r["excluded_sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["reason"].as_str().unwrap())
            .collect();
        assert_eq!(reasons, left_out, "{shape}");
    }
}

#[test]
fn a_single_bonus_is_listed_beside_base_pay_and_each_figure_explains_itself() {
    let r = report(&args(
        Some(fixture("shape_single_bonus.payments.json")),
        None,
    ));
    let source = &r["income_sources"][0];
    assert_eq!(source["base_monthly_income"], 4333.33);
    assert_eq!(source["variable_monthly_income"], 0.0);
    let bonus = &r["excluded_sources"][0];
    assert_eq!(bonus["name"], "ACME CORP PAYROLL: variable pay");
    assert_eq!(bonus["observed_amount"], 6000.0);
    assert_eq!(
        bonus["explanation"],
        "Not counted: 6,000.00 paid on 2026-10-16 above base pay of 2,000.00, once in 12 months. \
         Bonus, commission and overtime count only when they recur."
    );
    let transfers = report(&args(
        Some(fixture("shape_transfers_beside_salary.payments.json")),
        None,
    ));
    assert!(
        transfers["excluded_sources"][0]["explanation"]
            .as_str()
            .unwrap()
            .contains("without a regular schedule of their own")
    );
}
