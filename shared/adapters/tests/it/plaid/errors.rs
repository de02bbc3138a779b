//! Plaid's documented errors, timeouts, redirects and malformed answers.

use super::*;
use domain::income::VerificationMethod::Bank;

#[tokio::test]
async fn product_not_ready_is_unavailable() {
    // Plaid is still generating the report after Link: the tenant may try again shortly.
    let plaid = FakePlaid::start(vec![(
        "/cra/check_report/income_insights/get",
        Reply::Body(400, PRODUCT_NOT_READY.into()),
    )])
    .await;

    let text = unavailable(
        plaid
            .provider()
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
    );

    assert!(text.contains("PRODUCT_NOT_READY"), "{text}");
    assert!(text.contains("HNTDNrA8F1shFEW"), "{text}");
    assert_authenticated(
        &plaid.requests()[0],
        "/cra/check_report/income_insights/get",
    );
}

#[tokio::test]
async fn invalid_api_keys_is_unavailable_not_a_failed_verification() {
    // Bad keys are the operator's to fix; failing the tenant's verification for them would burn
    // the landlord's verification for nothing.
    let plaid = FakePlaid::start(vec![(
        "/user/create",
        Reply::Body(400, INVALID_API_KEYS.into()),
    )])
    .await;

    let text = unavailable(
        plaid
            .provider()
            .create_user(&verification(None), Some(&typed_identity()))
            .await,
    );

    assert!(text.contains("INVALID_API_KEYS"), "{text}");
    // Nothing more is attempted after /user/create fails.
    assert_eq!(plaid.requests().len(), 1);
}

#[tokio::test]
async fn item_errors_about_the_tenant_are_rejected() {
    let plaid = FakePlaid::start(vec![(
        "/cra/check_report/income_insights/get",
        Reply::Body(400, REPORT_NOT_FOUND.into()),
    )])
    .await;

    let text = rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
    );

    assert!(text.contains("CONSUMER_REPORT_NOT_FOUND"), "{text}");
}

#[tokio::test]
async fn server_errors_are_unavailable() {
    let plaid = FakePlaid::start(vec![
        (
            "/cra/check_report/income_insights/get",
            Reply::Body(500, INTERNAL_SERVER_ERROR.into()),
        ),
        // A load balancer's page rather than a Plaid error body.
        (
            "/link/token/create",
            Reply::Body(503, "<html>Service Unavailable</html>".into()),
        ),
        ("/user/create", ok(USER_CREATE)),
    ])
    .await;
    let provider = plaid.provider();

    let text = unavailable(
        provider
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
    );
    assert!(text.contains("INTERNAL_SERVER_ERROR"), "{text}");

    let text = unavailable(
        provider
            .begin(&verification(Some(HANDLE)), Bank, Some(HANDLE))
            .await,
    );
    assert!(text.contains("503"), "{text}");
}

#[tokio::test]
async fn an_unanswered_request_times_out_as_unavailable() {
    let plaid =
        FakePlaid::start(vec![("/cra/check_report/income_insights/get", Reply::Hang)]).await;
    let provider = plaid.provider_with_timeout(Duration::from_millis(300));

    // The outer bound only stops a hang if the configured timeout never fires; "timed out"
    // below is what proves the 300 ms one did.
    let outcome = tokio::time::timeout(
        Duration::from_secs(60),
        provider.fetch_income(&verification(Some(HANDLE)), Bank, HANDLE),
    )
    .await
    .expect("the provider's own timeout never fired");
    let text = unavailable(outcome);

    assert!(text.contains("timed out"), "{text}");
}

#[tokio::test]
async fn malformed_json_is_unavailable() {
    let plaid = FakePlaid::start(vec![
        // Cut off mid-answer.
        (
            "/cra/check_report/income_insights/get",
            ok(&INCOME_INSIGHTS[..INCOME_INSIGHTS.len() / 2]),
        ),
        // Well-formed JSON of the wrong shape.
        ("/user/create", ok(USER_CREATE)),
        (
            "/link/token/create",
            ok(r#"{"link_token": 42, "request_id": "x"}"#),
        ),
    ])
    .await;
    let provider = plaid.provider();

    let text = unavailable(
        provider
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
    );
    assert!(text.contains("malformed"), "{text}");
    let text = unavailable(
        provider
            .begin(&verification(Some(HANDLE)), Bank, Some(HANDLE))
            .await,
    );
    assert!(text.contains("malformed"), "{text}");
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let plaid = FakePlaid::start(vec![
        (
            "/cra/check_report/income_insights/get",
            Reply::Redirect("/elsewhere"),
        ),
        ("/elsewhere", ok(INCOME_INSIGHTS)),
    ])
    .await;

    unavailable(
        plaid
            .provider()
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
    );

    let paths: Vec<String> = plaid.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/cra/check_report/income_insights/get"]);
}

#[tokio::test]
async fn error_texts_never_echo_what_plaid_echoes() {
    // Plaid's free-text fields can quote request values; only type, code and request id are kept,
    // and only when they look like Plaid tokens.
    let hostile = json!({
        "error_type": "INVALID_INPUT",
        "error_code": "INVALID_FIELD",
        "error_message":
            format!("user_id {USER_ID} of {TENANT_EMAIL} is invalid for secret {SECRET}"),
        "display_message": format!("contact {TENANT_EMAIL}"),
        "request_id": TENANT_EMAIL,
    })
    .to_string();
    let plaid = FakePlaid::start(vec![(
        "/cra/check_report/income_insights/get",
        Reply::Body(400, hostile),
    )])
    .await;

    // `rejected` asserts the text is clean.
    let text = rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(HANDLE)), Bank, HANDLE)
            .await,
    );

    assert!(text.contains("INVALID_FIELD"), "{text}");
}

#[tokio::test]
async fn a_connection_refused_is_unavailable() {
    // Bind then drop a listener: nothing listens on that port any more.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let provider = PlaidCheckIncomeProvider::new(PlaidConfig {
        base_url,
        client_id: CLIENT_ID.into(),
        secret: SECRET.into(),
        timeout: Duration::from_secs(2),
    })
    .unwrap();

    unavailable(
        provider
            .create_user(&verification(None), Some(&typed_identity()))
            .await,
    );
}
