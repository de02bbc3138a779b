//! `create_user` and `begin`: one Argyle user per consent, a fresh user token per Link page.

use adapters::argyle::ArgyleConfigError;
use domain::income::VerificationMethod::Payroll;
use ports::{ConnectStep, IncomeProvider};

use super::*;

#[tokio::test]
async fn create_user_sends_only_our_reference_and_keeps_the_user_id() {
    let argyle = FakeProvider::start(vec![("/v2/users", ok(USERS_CREATE))]).await;

    let handle = provider(&argyle)
        .create_user(&verification(None), None)
        .await
        .unwrap();

    // The id alone: the short-lived token of that answer is not kept.
    assert_eq!(handle.as_deref(), Some(USER));
    let requests = argyle.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v2/users");
    assert_eq!(requests[0].headers["content-type"], "application/json");
    assert_authenticated(&requests[0]);
    let body = &requests[0].body;
    let sent: Vec<&String> = body.as_object().unwrap().keys().collect();
    assert_eq!(sent, ["external_id"]);
    assert!(
        body["external_id"]
            .as_str()
            .unwrap()
            .starts_with(VERIFICATION_ID)
    );
}

#[tokio::test]
async fn begin_makes_a_fresh_user_token_for_link_every_time() {
    let argyle = FakeProvider::start(vec![("/v2/user-tokens", ok(USER_TOKENS_CREATE))]).await;
    let p = provider(&argyle);

    for _ in 0..2 {
        let step = p
            .begin(&verification(Some(USER)), Payroll, Some(USER))
            .await
            .unwrap();
        let ConnectStep::PayrollWidget {
            user_token,
            sandbox,
            script: None,
        } = &step
        else {
            panic!("{step:?}");
        };
        assert!(user_token.starts_with("eyJ"));
        // A loopback base URL is a test: Link runs in its sandbox.
        assert!(sandbox);
        assert!(
            !format!("{step:?}").contains("eyJ"),
            "Debug hides the token"
        );
    }
    let requests = argyle.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, json!({"user": USER}));
    assert_authenticated(&requests[0]);
}

#[tokio::test]
async fn begin_without_a_user_asks_argyle_nothing() {
    let argyle = FakeProvider::start(vec![]).await;

    unavailable(
        provider(&argyle)
            .begin(&verification(None), Payroll, None)
            .await,
    );

    assert!(argyle.requests().is_empty());
}

#[test]
fn config_reads_the_secret_json_and_never_prints_the_secret() {
    let config = ArgyleConfig::from_secret_json(
        "https://api-sandbox.argyle.com",
        &json!({"api_key_id": KEY_ID, "api_key_secret": KEY_SECRET}).to_string(),
    )
    .unwrap();
    assert_eq!(config.timeout, Duration::from_secs(8));
    assert!(!format!("{config:?}").contains(KEY_SECRET));
    let p = ArgyleIncomeProvider::new(config).unwrap();
    assert!(!format!("{p:?}").contains(KEY_SECRET));
    for url in [
        "http://api.argyle.com",
        "https://u:p@api.argyle.com",
        "api.argyle.com",
    ] {
        let e = ArgyleConfig::from_secret_json(
            url,
            &json!({"api_key_id": KEY_ID, "api_key_secret": KEY_SECRET}).to_string(),
        )
        .unwrap_err();
        assert!(matches!(e, ArgyleConfigError::InvalidBaseUrl), "{url}");
    }
}

#[tokio::test]
async fn close_user_deletes_the_argyle_user_and_a_user_gone_is_closed_too() {
    let path = format!("/v2/users/{USER}");
    // The reference answers a deleted user with 204 and no body; a second delete finds none.
    let argyle = FakeProvider::start(vec![(
        path.as_str(),
        Reply::Then(
            Box::new(Reply::Body(204, String::new())),
            Box::new(Reply::Body(404, NOT_FOUND.into())),
        ),
    )])
    .await;
    let p = provider(&argyle);
    let v = verification(Some(USER));

    p.close_user(&v, USER).await.unwrap();
    p.close_user(&v, USER).await.unwrap();

    let requests = argyle.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.method, "DELETE");
        assert_eq!(request.path, path);
        assert_authenticated(request);
    }
    // No user id, no call; a refused key is the provider's outage, not done.
    assert!(rejected(p.close_user(&v, "").await).contains("no user"));
    let refusing = FakeProvider::start(vec![(
        path.as_str(),
        Reply::Body(401, INVALID_CREDENTIALS.into()),
    )])
    .await;
    assert!(unavailable(provider(&refusing).close_user(&v, USER).await).contains("HTTP 401"));
}
