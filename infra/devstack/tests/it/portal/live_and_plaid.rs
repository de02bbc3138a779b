//! The tenant page of live verifications: a stack without a live provider, the sandbox kept out of live mode, Plaid's secret, and the expiry notes (Plaid Check's flow is `plaid_check`).

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

pub(crate) async fn create_at(base: &str, key: &str, email: &str) -> (u16, Value) {
    create_body_at(
        base,
        key,
        json!({"tenant_email": email, "monthly_rent": 1200}),
    )
    .await
}

/// A live create with this body at the server at `base`, which must succeed: the verification's
/// id and the path of its link.
pub(crate) async fn created_at(base: &str, key: &str, body: Value) -> (String, String) {
    let (status, body) = create_body_at(base, key, body).await;
    assert_eq!(status, 201, "{body}");
    let id = body["data"]["verification_id"].as_str().unwrap();
    let url = body["data"]["verification_url"].as_str().unwrap();
    (id.to_string(), url.strip_prefix(base).unwrap().to_string())
}

/// A create with this body at the server at `base`: the status and the answer.
pub(crate) async fn create_body_at(base: &str, key: &str, body: Value) -> (u16, Value) {
    let resp = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(format!("{base}/api/v1/verify"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .body(body.to_string())
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
        service::config::LiveIncome::none(),
        adapters::live_provider::LiveProvider::none(),
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
        service::config::LiveIncome::none(),
        adapters::live_provider::LiveProvider::none(),
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

    // With Plaid Check as the provider, a scenario in the form is ignored: income comes from
    // Plaid, later (`plaid_check`).
    let stack = super::plaid_check::plaid_stack(&env).await;
    let p = page_at(&stack.base, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 400, "Plaid Check needs the identity first");
    let form = "action=consent&agree=yes&first_name=Jane&last_name=Tenant&phone=%2B14155550123&date_of_birth=1990-04-12&street=1+Main+St&city=Oakland&region=CA&postal_code=94612";
    let p = page_at(&stack.base, "POST", &link, Some(form)).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let p = page_at(
        &stack.base,
        "POST",
        &link,
        Some("action=connect&scenario=good"),
    )
    .await;
    assert_eq!(
        p.status, 303,
        "the connection waits for Plaid; no sandbox stands in"
    );
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::InProgress);
    assert!(stored.income_report.is_none());
    assert!(stored.awaiting_now().is_some());
    assert_eq!(
        stack.plaid.count("/cra/check_report/income_insights/get"),
        0
    );
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
