//! The Plaid Check (Consumer Report, Income Insights) adapter on Plaid's new User APIs, against
//! answers written from Plaid's reference (tests/fixtures/plaid/ and plaid_check/), served on
//! loopback by `fake_provider`.

use domain::income::VerificationMethod::Bank;
use std::time::Duration;

use adapters::plaid::PlaidConfig;
use adapters::plaid::check::{
    ConsumerAddress, ConsumerIdentity, PERMISSIBLE_PURPOSE, PlaidCheckIncomeProvider,
};
use domain::income::VerificationMethod;
use domain::report::build_report;
use ports::{ConnectStep, IncomeProvider, ProviderError};
use serde_json::json;

use crate::fake_provider::{
    FakeProvider, Reply, VERIFICATION_ID, expect_rejected, expect_unavailable, ok, verification,
};

const CLIENT_ID: &str = "5f7c1a2b3c4d5e6f7a8b9c0d";
const SECRET: &str = "b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8";
/// The `user_id` of `../fixtures/plaid/user_create.json`.
const USER_ID: &str = "usr_8c3ZbDBfXwJbV7Bq6sPWzRm2";
const HANDLE: &str = "0b7f9a52-3c1e-4d8e-9f61-2a4c5e7d9b13-00c0ffee usr_8c3ZbDBfXwJbV7Bq6sPWzRm2";

const USER_CREATE: &str = include_str!("../fixtures/plaid/user_create.json");
const USER_REMOVE: &str = include_str!("../fixtures/plaid/user_remove.json");
const LINK_TOKEN_CREATE: &str = include_str!("../fixtures/plaid/link_token_create.json");
const INCOME_INSIGHTS: &str = include_str!("../fixtures/plaid_check/income_insights_get.json");
const REPORT_EXPIRED: &str =
    include_str!("../fixtures/plaid_check/error_consumer_report_expired.json");
const REPORT_NOT_FOUND: &str =
    include_str!("../fixtures/plaid_check/error_consumer_report_not_found.json");
const NOT_READY: &str = include_str!("../fixtures/plaid_check/error_product_not_ready.json");

const INSIGHTS: &str = "/cra/check_report/income_insights/get";
const FORBIDDEN: &[&str] = &[SECRET, USER_ID, "@", CLIENT_ID, "1990-"];

fn provider(fake: &FakeProvider, timeout: Duration) -> PlaidCheckIncomeProvider {
    PlaidCheckIncomeProvider::new(PlaidConfig {
        base_url: fake.base_url.clone(),
        client_id: CLIENT_ID.into(),
        secret: SECRET.into(),
        timeout,
    })
    .unwrap()
}

fn identity() -> ConsumerIdentity {
    ConsumerIdentity {
        first_name: "Jane".into(),
        last_name: "Tenant".into(),
        emails: vec!["jane.tenant@example.com".into()],
        phone_numbers: vec!["+14155550123".into()],
        date_of_birth: "1990-04-12".parse().unwrap(),
        primary_address: ConsumerAddress {
            street: "1 Main St".into(),
            city: "Oakland".into(),
            region: "CA".into(),
            postal_code: "94612".into(),
            country: "US".into(),
        },
    }
}

#[tokio::test]
async fn the_user_is_created_with_the_identity_plaid_check_requires() {
    let plaid = FakeProvider::start(vec![("/user/create", ok(USER_CREATE))]).await;

    let handle = provider(&plaid, Duration::from_secs(5))
        .create_user_with(&verification(None), &identity())
        .await
        .unwrap();

    // The new User APIs answer a user_id, which names the user from then on.
    let (client_user_id, user_id) = handle.split_once(' ').unwrap();
    assert!(client_user_id.starts_with(VERIFICATION_ID));
    assert_eq!(user_id, USER_ID);
    let body = &plaid.requests()[0].body;
    assert_eq!(body["client_id"], CLIENT_ID);
    assert_eq!(body["client_user_id"], client_user_id);
    let who = &body["consumer_report_user_identity"];
    assert_eq!(who["date_of_birth"], "1990-04-12");
    assert_eq!(who["primary_address"]["region"], "CA");
    assert_eq!(who["emails"], json!(["jane.tenant@example.com"]));
    // The identity never reaches a log line through Debug.
    assert!(!format!("{:?}", identity()).contains("1990"));
}

/// The page's consent hands the typed identity to `create_user`: it reaches Plaid Check with
/// the tenant's e-mail from the request, and the provider says it needs one.
#[tokio::test]
async fn the_identity_typed_at_consent_makes_the_user_and_removing_it_closes_it() {
    let plaid = FakeProvider::start(vec![
        ("/user/create", ok(USER_CREATE)),
        ("/user/remove", ok(USER_REMOVE)),
    ])
    .await;
    let provider = provider(&plaid, Duration::from_secs(5));
    assert_eq!(provider.identity_methods(), &[Bank]);
    let typed = crate::plaid::typed_identity();
    let v = verification(None);

    let handle = provider
        .create_user(&v, Some(&typed))
        .await
        .unwrap()
        .expect("a user handle");
    provider.close_user(&v, &handle).await.unwrap();

    let requests = plaid.requests();
    let who = &requests[0].body["consumer_report_user_identity"];
    assert_eq!(who["first_name"], "Jane");
    assert_eq!(who["phone_numbers"], json!(["+14155550123"]));
    assert_eq!(who["emails"], json!([v.tenant_email]));
    assert_eq!(who["date_of_birth"], "1990-04-12");
    assert_eq!(
        who["primary_address"],
        json!({"street": "1 Main St", "city": "Oakland", "region": "CA", "postal_code": "94612", "country": "US"})
    );
    // The user the answer made is the one removed.
    let (_, made) = handle.split_once(' ').unwrap();
    assert_eq!(requests[1].path, "/user/remove");
    assert_eq!(requests[1].body["user_id"], made);
    assert!(requests[1].body.get("user_token").is_none());
}

#[tokio::test]
async fn without_the_identity_no_user_is_created() {
    let plaid = FakeProvider::start(vec![("/user/create", ok(USER_CREATE))]).await;

    let text = expect_unavailable(
        provider(&plaid, Duration::from_secs(5))
            .create_user(&verification(None), None)
            .await,
        FORBIDDEN,
    );

    assert!(text.contains("date of birth"), "{text}");
    assert!(plaid.requests().is_empty());
}

#[tokio::test]
async fn link_asks_for_the_consumer_report_for_tenant_screening() {
    let plaid = FakeProvider::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;

    let step = provider(&plaid, Duration::from_secs(5))
        .begin(&verification(Some(HANDLE)), Bank, Some(HANDLE))
        .await
        .unwrap();

    assert!(matches!(step, ConnectStep::Widget { .. }));
    let body = &plaid.requests()[0].body;
    assert_eq!(
        body["products"],
        json!(["cra_base_report", "cra_income_insights"])
    );
    assert_eq!(
        body["consumer_report_permissible_purpose"],
        "LEGITIMATE_BUSINESS_NEED_TENANT_SCREENING"
    );
    assert_eq!(
        PERMISSIBLE_PURPOSE,
        "LEGITIMATE_BUSINESS_NEED_TENANT_SCREENING"
    );
    assert_eq!(body["cra_options"], json!({"days_requested": 365}));
    assert_eq!(body["user_id"], USER_ID);
    assert!(body.get("user_token").is_none());
    // Without a configured webhook URL no webhook is named.
    assert!(body.get("webhook").is_none());
    assert!(
        body["user"]["client_user_id"]
            .as_str()
            .unwrap()
            .starts_with(VERIFICATION_ID)
    );
}

#[tokio::test]
async fn income_insights_become_dated_payments_with_plaids_forecast_beside_them() {
    let plaid = FakeProvider::start(vec![(INSIGHTS, ok(INCOME_INSIGHTS))]).await;

    let income = provider(&plaid, Duration::from_secs(5))
        .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
        .await
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, INSIGHTS);
    assert_eq!(requests[0].body["user_id"], USER_ID);
    assert_eq!(requests[0].body["secret"], SECRET);

    assert_eq!(income.method, VerificationMethod::Bank);
    assert_eq!(income.as_of.to_string(), "2026-11-20");
    let summary: Vec<(&str, usize, Option<f64>)> = income
        .sources
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.payments.len(),
                s.provider_forecast_monthly,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("ACME CORP PAYROLL PPD ID: 9876543210", 26, Some(4600.0)),
            ("UBER EATS PAYOUT", 28, Some(780.5)),
            ("AIRBNB PAYMENTS PPD ID: 1234567890", 12, Some(600.0)),
            ("Deposits to Plaid Saving at First Platypus Bank", 6, None),
        ]
    );

    let report = build_report(&income, Some(1800.0));
    // Our rules make the total, as for Bank Income; Plaid's forecast stands beside it.
    assert_eq!(report.total_monthly_income, 6391.2);
    assert_eq!(report.provider_forecast_monthly_income, Some(5980.5));
    assert_eq!(
        report.income_sources[0].provider_forecast_monthly_income,
        Some(4600.0)
    );
    assert_eq!(
        report.income_sources[3].provider_forecast_monthly_income,
        None
    );
}

#[tokio::test]
async fn a_report_still_being_built_lets_the_tenant_come_back() {
    let plaid = FakeProvider::start(vec![(INSIGHTS, Reply::Body(400, NOT_READY.into()))]).await;

    let text = expect_unavailable(
        provider(&plaid, Duration::from_secs(5))
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
        FORBIDDEN,
    );

    assert!(text.contains("PRODUCT_NOT_READY"), "{text}");
}

#[tokio::test]
async fn an_expired_or_missing_report_is_rejected() {
    for (body, code) in [
        (REPORT_EXPIRED, "CONSUMER_REPORT_EXPIRED"),
        (REPORT_NOT_FOUND, "CONSUMER_REPORT_NOT_FOUND"),
    ] {
        let plaid = FakeProvider::start(vec![(INSIGHTS, Reply::Body(400, body.into()))]).await;

        let text = expect_rejected(
            provider(&plaid, Duration::from_secs(5))
                .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
                .await,
            FORBIDDEN,
        );

        assert!(text.contains(code), "{text}");
    }
}

#[tokio::test]
async fn an_outage_or_a_slow_plaid_is_unavailable() {
    let plaid = FakeProvider::start(vec![(INSIGHTS, Reply::Body(500, String::new()))]).await;
    expect_unavailable(
        provider(&plaid, Duration::from_secs(5))
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
        FORBIDDEN,
    );

    let plaid = FakeProvider::start(vec![(INSIGHTS, Reply::Hang)]).await;
    let started = std::time::Instant::now();
    let text = expect_unavailable(
        provider(&plaid, Duration::from_millis(300))
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
        FORBIDDEN,
    );
    assert!(text.contains("timed out"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_empty_handle_is_rejected_without_a_call() {
    let plaid = FakeProvider::start(vec![]).await;

    let result: Result<_, ProviderError> = provider(&plaid, Duration::from_secs(5))
        .fetch_income(&verification(None), Bank, "  ")
        .await;

    expect_rejected(result, FORBIDDEN);
    assert!(plaid.requests().is_empty());
}

/// A client still on the legacy User APIs answers a `user_token` and no `user_id`: this service
/// never was such a client, so it is the operator's configuration to fix, not a tenant's failure.
#[tokio::test]
async fn a_legacy_user_token_answer_is_unavailable() {
    let legacy = r#"{"user_token": "user-sandbox-6e1f5a2c", "request_id": "Aim3b"}"#;
    let plaid = FakeProvider::start(vec![("/user/create", ok(legacy))]).await;

    let text = expect_unavailable(
        provider(&plaid, Duration::from_secs(5))
            .create_user_with(&verification(None), &identity())
            .await,
        FORBIDDEN,
    );

    assert!(text.contains("no user_id"), "{text}");
}

/// The link token names the webhook Plaid Check sends `CHECK_REPORT_READY` to, with the
/// verification it concerns.
#[tokio::test]
async fn the_link_token_names_the_webhook_of_this_verification() {
    let plaid = FakeProvider::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;
    let url = "https://api.example.com/webhooks/providers/plaid".to_string();

    provider(&plaid, Duration::from_secs(5))
        .with_webhook_url(Some(url))
        .begin(&verification(Some(HANDLE)), Bank, Some(HANDLE))
        .await
        .unwrap();

    let body = &plaid.requests()[0].body;
    assert_eq!(
        body["webhook"],
        format!(
            "https://api.example.com/webhooks/providers/plaid?verification_id={VERIFICATION_ID}"
        )
    );
}
