//! `fetch_income`: the Bank Income report mapped to dated payments for the income rules.

use super::*;

#[tokio::test]
async fn fetch_income_maps_the_bank_income_report() {
    let plaid = FakePlaid::start(vec![("/credit/bank_income/get", ok(BANK_INCOME))]).await;

    let income = plaid
        .provider()
        .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
        .await
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests.len(), 1);
    assert_authenticated(&requests[0], "/credit/bank_income/get");
    assert_eq!(requests[0].body["user_token"], USER_TOKEN);
    assert_eq!(requests[0].body["options"], json!({"count": 1}));

    assert_eq!(income.method, VerificationMethod::Bank);
    // The report's generation time ends the data window, not the last deposit (2026-11-15).
    assert_eq!(income.as_of.to_string(), "2026-11-20");
    assert_eq!(income.provider_confidence, None);
    let summary: Vec<(&str, &str, Option<PayFrequency>, usize)> = income
        .sources
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.category.as_str(),
                s.pay_frequency,
                s.payments.len(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "ACME CORP PAYROLL PPD ID: 9876543210",
                "SALARY",
                Some(PayFrequency::Biweekly),
                26
            ),
            // UNKNOWN frequency: irregular.
            ("UBER EATS PAYOUT", "GIG_ECONOMY", None, 28),
            (
                "AIRBNB PAYMENTS PPD ID: 1234567890",
                "RENTAL",
                Some(PayFrequency::Monthly),
                12
            ),
            // No description and no pay_frequency at all: named after the account it was paid into.
            (
                "Deposits to Plaid Saving at First Platypus Bank",
                "TRANSFER_FROM_APPLICATION",
                None,
                6
            ),
        ]
    );

    let report = build_report(&income, Some(1800.0));
    let monthly: Vec<f64> = report
        .income_sources
        .iter()
        .map(|s| s.monthly_income)
        .collect();
    // 2,150 x 26 / 12; 5,500 over the 201 days from 2026-05-03 to 2026-11-20 (6.60 months);
    // 600; the transfers into savings (15 to 18 days apart, one month-long gap) come twice a
    // month on their own schedule: 150 x 2.
    assert_eq!(monthly, vec![4658.33, 832.87, 600.0, 300.0]);
    assert_eq!(
        report.income_sources[3].pay_frequency,
        Some(PayFrequency::SemiMonthly)
    );
    assert_eq!(report.total_monthly_income, 6391.2);
    assert_eq!(report.passes_3x_rule, Some(true));

    // Dated deposits from the monthly history give the stability figures.
    assert_eq!(
        income
            .sources
            .iter()
            .map(|s| s.payments.len())
            .collect::<Vec<_>>(),
        vec![26, 28, 12, 6]
    );
    assert_eq!(report.amounts_basis, Some(AmountsBasis::Net));
    let stability = |i: usize| report.income_sources[i].stability.clone().unwrap();
    let salary = stability(0);
    assert_eq!(salary.months_observed, 12);
    assert_eq!(salary.last_payment_date.to_string(), "2026-11-13");
    assert_eq!(salary.regularity.label, RegularityLabel::Regular);
    assert_eq!(salary.trend.label, TrendLabel::Stable);
    let gig = stability(1);
    assert_eq!(gig.regularity.label, RegularityLabel::Irregular);
    assert_eq!(gig.months_observed, 7);
    assert_ne!(gig.trend.label, TrendLabel::InsufficientHistory);
    let rent = stability(2);
    assert_eq!(
        (rent.regularity.label, rent.trend.label),
        (RegularityLabel::Regular, TrendLabel::Stable)
    );
    let overall = report.stability.clone().unwrap();
    assert_eq!(overall.last_payment_date.to_string(), "2026-11-15");
    assert_eq!(overall.months_observed, 12);
    // Every category counts at its full amount: the total is the sum of all four sources.
    assert_eq!(report.income_sources.len(), 4);
}

#[tokio::test]
async fn a_report_without_income_sources_is_zero_income() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        ok(
            r#"{"bank_income": [{"bank_income_id": "b1", "days_requested": 365,
               "generated_time": "2026-11-20T16:42:07Z",
               "items": [{"bank_income_accounts": [], "bank_income_sources": [],
                          "institution_name": "Citizens Bank", "item_id": "i1"}],
               "warnings": []}],
             "request_id": "r1"}"#,
        ),
    )])
    .await;

    let income = plaid
        .provider()
        .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
        .await
        .unwrap();

    assert!(income.sources.is_empty());
}

#[tokio::test]
async fn a_report_plaid_could_not_read_is_rejected() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        ok(BANK_INCOME_UNREADABLE),
    )])
    .await;

    let text = rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );

    assert!(text.contains("TRANSACTIONS_UNAVAILABLE"), "{text}");
}

#[tokio::test]
async fn no_report_at_all_is_rejected() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        ok(r#"{"bank_income": [], "request_id": "r2"}"#),
    )])
    .await;

    rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );
}

#[tokio::test]
async fn an_empty_connection_is_rejected_without_calling_plaid() {
    let plaid = FakePlaid::start(vec![]).await;

    rejected(
        plaid
            .provider()
            .fetch_income(&verification(None), "  ")
            .await,
    );

    assert!(plaid.requests().is_empty());
}
