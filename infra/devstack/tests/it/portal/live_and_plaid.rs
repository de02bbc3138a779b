//! The tenant page of live verifications: a stack without a live provider, the sandbox kept out of live mode, Plaid's flow and secret, and the expiry notes.

use super::*;

/// Another local server on the same table, with its own income provider for live verifications.
async fn serve_with(
    env: &TestEnv,
    live_income: service::config::LiveIncome,
    provider: adapters::live_provider::LiveProvider,
) -> String {
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let settings = service::config::Settings {
        plans: common::small_plans(),
        live_income,
        ..devstack::local_settings(&env.names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    let app = devstack::app_with(&env.sdk, settings, provider);
    devstack::server::spawn(app, port).await.expect("listen");
    base
}

async fn create_at(base: &str, key: &str, email: &str) -> (u16, Value) {
    let resp = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(format!("{base}/api/v1/verify"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .body(json!({"tenant_email": email, "monthly_rent": 1200}).to_string())
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_str(&resp.text().await.unwrap()).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stack_without_a_live_provider_refuses_live_creates_clearly() {
    let env = env().await;
    let base = serve_with(
        &env,
        service::config::LiveIncome::None,
        adapters::live_provider::LiveProvider::None,
    )
    .await;

    let (status, body) = create_at(&base, &env.live_key, "live@example.com").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["code"], "live_mode_unavailable");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("Live verifications")
    );
    assert!(body["request_id"].is_string());
    let (stats, _) = env
        .store
        .owner_stats(
            devstack::stack::DEMO_ACCOUNT,
            domain::Mode::Live,
            &domain::usage_month(Utc::now()),
        )
        .await
        .unwrap();
    assert_eq!(stats.total, 0, "nothing was created");
    // Test keys keep the sandbox.
    let (status, body) = create_at(&base, &env.test_key, "test@example.com").await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_verification_is_never_completed_from_a_sandbox_scenario() {
    let env = env().await;
    // Live verifications made while the stack still had a provider (here: the local one).
    let (id, link) = create(&env, &env.live_key, "jane+good@example.com", Some(1000.0)).await;
    let (consented_id, consented_link) =
        create(&env, &env.live_key, "joe+good@example.com", Some(1000.0)).await;
    let p = page(
        &env,
        "POST",
        &consented_link,
        Some("action=consent&agree=yes"),
    )
    .await;
    assert_eq!(p.status, 303);
    // The same table served by a portal without a live provider.
    let base = serve_with(
        &env,
        service::config::LiveIncome::None,
        adapters::live_provider::LiveProvider::None,
    )
    .await;

    let p = page_at(&base, "GET", &link, None).await;
    assert_eq!(p.status, 200);
    assert!(!p.html.contains("Sandbox"), "no sandbox offered for live");
    let p = page_at(&base, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 503, "no provider to prepare: nothing recorded");
    for (target, l) in [(&id, &link), (&consented_id, &consented_link)] {
        let p = page_at(&base, "POST", l, Some("action=connect&scenario=good")).await;
        assert_eq!(p.status, 400, "{}", p.html);
        assert!(!p.html.contains("Thank you"));
        let stored = env
            .store
            .get_verification(target.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert!(stored.status.is_open(), "{:?}", stored.status);
        assert!(stored.income_report.is_none());
    }

    // With Plaid as the provider, a scenario in the form is ignored: income comes from Plaid.
    let plaid = fake_plaid::FakePlaid::start(vec![
        ("/user/create", vec![(200, fake_plaid::USER_CREATE)]),
        (
            "/link/token/create",
            vec![(200, fake_plaid::LINK_TOKEN_CREATE)],
        ),
        (
            "/credit/bank_income/get",
            vec![(400, fake_plaid::PRODUCT_NOT_READY)],
        ),
    ])
    .await;
    let base = serve_with(
        &env,
        service::config::LiveIncome::Plaid,
        adapters::live_provider::LiveProvider::Plaid(plaid.provider()),
    )
    .await;
    let p = page_at(&base, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303);
    let p = page_at(&base, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(
        p.status, 503,
        "Plaid's report is not ready; no sandbox stands in"
    );
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::InProgress);
    assert!(stored.income_report.is_none());
    assert_eq!(plaid.count("/credit/bank_income/get"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_stack_serves_live_keys_from_the_sandbox_marked_as_local() {
    let env = env().await;
    let (id, link) = create(&env, &env.live_key, "demo+good@example.com", Some(1500.0)).await;
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("Local demo stack"), "the page says so");
    open_and_consent(&env, &link).await;
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 303);
    let data = api_get(&env, &env.live_key, &id).await;
    assert_eq!(data["status"], "completed");
    assert_eq!(
        data["income_report"]["local_sandbox"], true,
        "the report says so"
    );
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("made from sandbox data"));
}

// ---- The Plaid flow recovers (issue 9, item 7) --------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plaid_flow_recovers_from_a_failed_link_token_and_product_not_ready() {
    let env = env().await;
    let ttl = devstack::pump::TtlDeletions::default();
    let mut pump = devstack::pump::StreamPump::new(&env.sdk, &env.names.table, ttl)
        .await
        .unwrap();
    let plaid = fake_plaid::FakePlaid::start(vec![
        ("/user/create", vec![(200, fake_plaid::USER_CREATE)]),
        (
            "/user/remove",
            vec![
                (500, fake_plaid::INTERNAL_SERVER_ERROR),
                (200, fake_plaid::USER_REMOVE),
            ],
        ),
        (
            "/link/token/create",
            vec![
                (500, fake_plaid::INTERNAL_SERVER_ERROR),
                (200, fake_plaid::LINK_TOKEN_CREATE),
            ],
        ),
        (
            "/credit/bank_income/get",
            vec![
                (400, fake_plaid::PRODUCT_NOT_READY),
                (200, fake_plaid::BANK_INCOME),
            ],
        ),
    ])
    .await;
    let base = serve_with(
        &env,
        service::config::LiveIncome::Plaid,
        adapters::live_provider::LiveProvider::Plaid(plaid.provider()),
    )
    .await;
    let (status, body) = create_at(&base, &env.live_key, "jane.tenant@example.com").await;
    assert_eq!(status, 201, "{body}");
    let id = body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .strip_prefix(&base)
        .unwrap()
        .to_string();

    let p = page_at(&base, "GET", &link, None).await;
    assert!(p.html.contains("Agree and continue"));
    assert!(
        plaid.asked().is_empty(),
        "opening the link asks Plaid nothing"
    );
    // Consent creates the Plaid user and stores it in the same write.
    let p = page_at(&base, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303);
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(stored.provider_user.is_some() && stored.consented_at.is_some());
    // Opening the connect page asks Plaid nothing (a link scanner costs nothing): the tenant's
    // start makes the link token.
    let asked = plaid.asked().len();
    let p = page_at(&base, "GET", &link, None).await;
    assert_eq!(p.status, 200, "{}", p.html);
    assert!(p.html.contains(r#"value="start""#), "{}", p.html);
    assert_eq!(plaid.asked().len(), asked, "a GET asks Plaid nothing");
    // /link/token/create fails once: "try again", and the next start works with the same user.
    let p = page_at(&base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 503);
    let p = page_at(&base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 200, "{}", p.html);
    assert!(
        p.html
            .contains(&format!("token: \"{}\"", fake_plaid::LINK_TOKEN))
    );
    // The report is not ready yet: nothing changes, and the tenant coming back gets a fresh token.
    let p = page_at(&base, "POST", &link, Some("action=connect")).await;
    assert_eq!(p.status, 503);
    assert_eq!(
        api_get(&env, &env.live_key, &id).await["status"],
        "in_progress"
    );
    let tokens_before = plaid.count("/link/token/create");
    let p = page_at(&base, "GET", &link, None).await;
    assert_eq!(p.status, 200);
    assert_eq!(plaid.count("/link/token/create"), tokens_before);
    let p = page_at(&base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 200);
    assert_eq!(plaid.count("/link/token/create"), tokens_before + 1);
    let p = page_at(&base, "POST", &link, Some("action=connect")).await;
    assert_eq!(p.status, 303);

    let data = api_get(&env, &env.live_key, &id).await;
    assert_eq!(data["status"], "completed");
    assert_eq!(data["income_report"]["verification_method"], "bank");
    assert!(data["income_report"].get("local_sandbox").is_none());
    assert_eq!(
        plaid.count("/user/create"),
        1,
        "one Plaid user for the whole flow"
    );

    // The report is built: the outbox removes the Plaid user (and its Items). Plaid fails once;
    // the retry queue finishes it, and the verification forgets the user.
    let mut workers = env.workers();
    workers.outbox.provider = adapters::live_provider::LiveProvider::Plaid(plaid.provider());
    while pump
        .pump_once(&workers.outbox, &workers.expiry)
        .await
        .unwrap()
        > 0
    {}
    assert_eq!(plaid.count("/user/remove"), 1);
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    let retry_queue = &env.created.retry_queue_url;
    let retried = devstack::pump::pump_retry_once(&sqs, retry_queue, &workers.outbox, 0).await;
    assert!(retried.unwrap() >= 1);
    assert_eq!(plaid.count("/user/remove"), 2);
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(
        stored.unwrap().provider_user,
        None,
        "forgotten once removed at Plaid"
    );
}

// ---- The Plaid secret comes from Secrets Manager (issue 9, item 12) ----------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plaid_secret_is_loaded_from_secrets_manager() {
    use adapters::plaid::{PlaidConfig, PlaidConfigError};
    let env = env().await;
    let sm = aws_sdk_secretsmanager::Client::new(&env.sdk);
    let name = format!("{}-plaid", env.names.table);
    let good = sm
        .create_secret()
        .name(&name)
        .secret_string(json!({"client_id": "cid-123", "secret": "s3cr3t-value"}).to_string())
        .send()
        .await
        .unwrap()
        .arn
        .unwrap();
    let bad = sm
        .create_secret()
        .name(format!("{name}-bad"))
        .secret_string("s3cr3t-value")
        .send()
        .await
        .unwrap()
        .arn
        .unwrap();
    let lookup = |arn: Option<String>| {
        move |var: &str| match var {
            "PLAID_BASE_URL" => Some("https://sandbox.plaid.com".to_string()),
            "PLAID_SECRET_ARN" => arn.clone(),
            _ => None,
        }
    };

    let config = PlaidConfig::load(&sm, lookup(Some(good.clone())))
        .await
        .unwrap();
    assert_eq!(
        (config.client_id.as_str(), config.secret.as_str()),
        ("cid-123", "s3cr3t-value")
    );

    let missing = PlaidConfig::load(&sm, lookup(None)).await.unwrap_err();
    assert!(matches!(
        missing,
        PlaidConfigError::Missing("PLAID_SECRET_ARN")
    ));
    let malformed = PlaidConfig::load(&sm, lookup(Some(bad))).await.unwrap_err();
    assert!(
        matches!(malformed, PlaidConfigError::SecretMalformed),
        "{malformed:?}"
    );
    let gone = PlaidConfig::load(&sm, lookup(Some(format!("{good}-nope"))))
        .await
        .unwrap_err();
    assert!(
        matches!(gone, PlaidConfigError::SecretUnreadable(_)),
        "{gone:?}"
    );
    for error in [missing, malformed, gone] {
        let text = error.to_string();
        assert!(text.contains("PLAID_SECRET_ARN"), "{text}");
        assert!(!text.contains("s3cr3t-value"), "{text}");
    }
}

// ---- The page says when the link expires and who gives a new one (issue 12, item 5) ---------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_pages_say_when_the_link_expires_and_who_gives_a_new_one() {
    let env = env().await;
    let (id, link) = create(&env, &env.test_key, "t+good@example.com", Some(1500.0)).await;
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let expires = domain::format_ts(stored.expires_at);
    // "2026-11-29T10:15:00.000Z" reads "2026-11-29 10:15 UTC".
    let shown = format!("{} UTC", expires[..16].replace('T', " "));
    let note = format!(
        "This link expires on {shown}. After that, ask <strong>Demo Lettings</strong> for a new link."
    );
    let consent = page(&env, "GET", &link, None).await;
    assert_eq!(consent.status, 200);
    assert!(consent.html.contains(&note), "{}", consent.html);
    open_and_consent(&env, &link).await;
    let connect = page(&env, "GET", &link, None).await;
    assert_eq!(connect.status, 200);
    assert!(
        connect.html.contains("Connect and share"),
        "{}",
        connect.html
    );
    assert!(connect.html.contains(&note), "{}", connect.html);
}
