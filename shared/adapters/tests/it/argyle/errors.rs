//! Argyle's documented errors, a slow Argyle, redirects and malformed answers.

use domain::income::VerificationMethod::Payroll;
use ports::IncomeProvider;

use super::*;

#[tokio::test]
async fn invalid_credentials_or_environment_are_the_operators_not_the_tenants() {
    for body in [INVALID_CREDENTIALS, INVALID_ENVIRONMENT] {
        let argyle = FakeProvider::start(vec![("/v2/users", Reply::Body(401, body.into()))]).await;

        let text = unavailable(
            provider(&argyle)
                .create_user(&verification(None), None)
                .await,
        );

        assert!(text.contains("HTTP 401"), "{text}");
        // Argyle's words are not kept: they could echo what was sent.
        assert!(!text.contains("Invalid"), "{text}");
    }
}

#[tokio::test]
async fn a_refused_request_fails_the_verification() {
    let argyle =
        FakeProvider::start(vec![("/v2/users", Reply::Body(400, INVALID_EMAIL.into()))]).await;

    let text = rejected(
        provider(&argyle)
            .create_user(&verification(None), None)
            .await,
    );

    assert!(text.contains("HTTP 400"), "{text}");
    assert!(!text.contains("email"), "{text}");
}

#[tokio::test]
async fn a_user_argyle_no_longer_knows_is_rejected() {
    let argyle = FakeProvider::start(vec![(
        "/v2/user-tokens",
        Reply::Body(404, NOT_FOUND.into()),
    )])
    .await;

    let text = rejected(
        provider(&argyle)
            .begin(&verification(Some(USER)), Payroll, Some(USER))
            .await,
    );

    assert!(text.contains("HTTP 404"), "{text}");
}

#[tokio::test]
async fn rate_limits_and_outages_let_the_tenant_try_again() {
    for status in [429, 500, 503] {
        let argyle = argyle_with_accounts(ACCOUNTS).await;
        argyle.route("/v2/identities", Reply::Body(status, String::new()));

        let text = unavailable(
            provider(&argyle)
                .fetch_income(&verification(Some(USER)), Payroll, USER)
                .await,
        );

        assert!(text.contains(&format!("HTTP {status}")), "{text}");
    }
}

#[tokio::test]
async fn a_slow_argyle_times_out_as_unavailable() {
    let argyle = argyle_with_accounts(ACCOUNTS).await;
    argyle.route("/v2/paystubs", Reply::Hang);
    let started = std::time::Instant::now();

    let text = unavailable(
        provider_with_timeout(&argyle, Duration::from_millis(300))
            .fetch_income(&verification(Some(USER)), Payroll, USER)
            .await,
    );

    assert!(text.contains("timed out"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn redirects_are_not_followed_and_malformed_answers_are_unavailable() {
    let argyle = FakeProvider::start(vec![
        ("/v2/users", Reply::Redirect("/elsewhere")),
        ("/v2/user-tokens", ok("{not json")),
        ("/elsewhere", ok(USERS_CREATE)),
    ])
    .await;
    let p = provider(&argyle);

    let text = unavailable(p.create_user(&verification(None), None).await);
    assert!(
        text.contains("HTTP 302") || text.contains("redirect"),
        "{text}"
    );
    let text = unavailable(
        p.begin(&verification(Some(USER)), Payroll, Some(USER))
            .await,
    );
    assert!(text.contains("malformed"), "{text}");
    assert!(!argyle.requests().iter().any(|r| r.path == "/elsewhere"));
}
