//! `create_user` and `begin`: the Plaid user and the link token of a connection.

use super::*;

/// The handle create_user gives: "<client_user_id> <user_token>".
fn handle_of(client_user_id: &str) -> String {
    format!("{client_user_id} {USER_TOKEN}")
}

#[tokio::test]
async fn create_user_gives_a_handle_with_its_own_client_user_id() {
    let plaid = FakePlaid::start(vec![("/user/create", ok(USER_CREATE))]).await;
    let provider = plaid.provider();

    let first = provider
        .create_user(&verification(None), None)
        .await
        .unwrap()
        .unwrap();
    let second = provider
        .create_user(&verification(None), None)
        .await
        .unwrap()
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests.len(), 2);
    assert_authenticated(&requests[0], "/user/create");
    let ids: Vec<&str> = requests
        .iter()
        .map(|r| r.body["client_user_id"].as_str().unwrap())
        .collect();
    // An attempt whose store write failed must not block the next one: Plaid refuses a second
    // /user/create for the same client_user_id.
    assert_ne!(ids[0], ids[1]);
    for (id, handle) in ids.iter().zip([&first, &second]) {
        assert!(id.starts_with(&format!("{VERIFICATION_ID}-")), "{id}");
        assert_eq!(*handle, handle_of(id));
    }
}

#[tokio::test]
async fn begin_makes_a_fresh_bank_income_link_token_for_the_stored_user() {
    let plaid = FakePlaid::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;
    let provider = plaid.provider();
    let handle = handle_of(&format!("{VERIFICATION_ID}-0a1b2c3d"));

    for _ in 0..2 {
        let step = provider
            .begin(&verification(Some(&handle)), Some(&handle))
            .await
            .unwrap();
        assert_eq!(
            step,
            ConnectStep::Widget {
                link_token: LINK_TOKEN.into()
            }
        );
    }

    // One new token per page: a returning tenant never gets an expired or used one.
    let requests = plaid.requests();
    assert_eq!(requests.len(), 2);
    let link = &requests[1];
    assert_authenticated(link, "/link/token/create");
    assert_eq!(link.body["user_token"], USER_TOKEN);
    assert_eq!(
        link.body["user"]["client_user_id"],
        format!("{VERIFICATION_ID}-0a1b2c3d")
    );
    assert_eq!(link.body["client_name"], "Tenant Income Verification");
    assert_eq!(link.body["language"], "en");
    assert_eq!(link.body["country_codes"], json!(["US"]));
    assert_eq!(link.body["products"], json!(["income_verification"]));
    assert_eq!(
        link.body["income_verification"],
        json!({"income_source_types": ["bank"], "bank_income": {"days_requested": 365}})
    );
}

#[tokio::test]
async fn a_link_token_failure_after_user_create_is_recovered_with_the_same_user() {
    // /user/create answers, then /link/token/create fails once: the stored handle is enough to
    // try again, and no second Plaid user is made.
    let plaid = FakePlaid::start(vec![
        ("/user/create", ok(USER_CREATE)),
        (
            "/link/token/create",
            Reply::Then(
                Box::new(Reply::Body(500, INTERNAL_SERVER_ERROR.into())),
                Box::new(ok(LINK_TOKEN_CREATE)),
            ),
        ),
    ])
    .await;
    let provider = plaid.provider();
    let handle = provider
        .create_user(&verification(None), None)
        .await
        .unwrap()
        .unwrap();
    let v = verification(Some(&handle));

    unavailable(provider.begin(&v, Some(&handle)).await);
    let step = provider.begin(&v, Some(&handle)).await.unwrap();

    assert_eq!(
        step,
        ConnectStep::Widget {
            link_token: LINK_TOKEN.into()
        }
    );
    let paths: Vec<String> = plaid.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        ["/user/create", "/link/token/create", "/link/token/create"]
    );
}

#[tokio::test]
async fn a_bare_user_token_stored_earlier_still_works() {
    let plaid = FakePlaid::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;

    plaid
        .provider()
        .begin(&verification(Some(USER_TOKEN)), Some(USER_TOKEN))
        .await
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests[0].body["user_token"], USER_TOKEN);
    assert_eq!(requests[0].body["user"]["client_user_id"], VERIFICATION_ID);
}

#[tokio::test]
async fn begin_without_a_user_is_unavailable_and_asks_plaid_nothing() {
    let plaid = FakePlaid::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;

    unavailable(plaid.provider().begin(&verification(None), None).await);

    assert!(plaid.requests().is_empty());
}

#[tokio::test]
async fn create_user_without_a_user_token_in_the_answer_is_unavailable() {
    // Clients on Plaid's newer user APIs get only a user_id back.
    let plaid = FakePlaid::start(vec![(
        "/user/create",
        ok(r#"{"user_id": "usr_9nSp2KuZ2x4JDw", "request_id": "Aim3b"}"#),
    )])
    .await;

    let text = unavailable(
        plaid
            .provider()
            .create_user(&verification(None), None)
            .await,
    );

    assert!(text.contains("user_token"), "{text}");
    assert_eq!(plaid.requests().len(), 1);
}

#[tokio::test]
async fn close_user_removes_the_user_and_with_it_its_bank_connections() {
    let plaid = FakePlaid::start(vec![(
        "/user/remove",
        Reply::Then(
            Box::new(ok(USER_REMOVE)),
            Box::new(Reply::Body(500, INTERNAL_SERVER_ERROR.to_string())),
        ),
    )])
    .await;
    let provider = plaid.provider();
    let handle = handle_of(&format!("{VERIFICATION_ID}-0a1b2c3d"));
    let v = verification(Some(&handle));

    provider.close_user(&v, &handle).await.unwrap();
    let requests = plaid.requests();
    assert_eq!(requests.len(), 1);
    assert_authenticated(&requests[0], "/user/remove");
    assert_eq!(requests[0].body["user_token"], USER_TOKEN);

    // Plaid down: a transient error, for the retry road to try again.
    let again = provider.close_user(&v, &handle).await;
    assert!(
        matches!(again, Err(ProviderError::Unavailable(_))),
        "{again:?}"
    );
    // No user: nothing Plaid could remove.
    let none = provider.close_user(&v, " ").await;
    assert!(matches!(none, Err(ProviderError::Rejected(_))), "{none:?}");
}
