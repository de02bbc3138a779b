//! The tenant page: link checks, every page state, the sandbox scenarios, and the races of a
//! completion against a cancel or an expiry. Through the local server, against moto.

mod common;

use chrono::Utc;
use common::{TestEnv, env};
use serde_json::{Value, json};
use shared::domain::{Status, Transition};
use shared::ports::{Store, TransitionOutcome};

struct Page {
    status: u16,
    location: Option<String>,
    html: String,
}

async fn page(env: &TestEnv, method: &str, path: &str, form: Option<&str>) -> Page {
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut req = client.request(
        reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
        format!("{}{path}", env.base),
    );
    if let Some(form) = form {
        req = req
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.to_string());
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string());
    if status == 200 || status >= 400 {
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        assert_eq!(resp.headers()["cache-control"], "no-store");
    }
    Page {
        status,
        location,
        html: resp.text().await.unwrap(),
    }
}

/// Creates a verification and returns (id, link path).
async fn create(env: &TestEnv, key: &str, email: &str, rent: Option<f64>) -> (String, String) {
    let mut body = json!({"tenant_email": email, "property_address": "9 Oak Lane"});
    if let Some(rent) = rent {
        body["monthly_rent"] = json!(rent);
    }
    let r = env.create(key, body).await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let id = r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let url = r.body["data"]["verification_url"].as_str().unwrap();
    let path = url.strip_prefix(&env.base).unwrap().to_string();
    (id, path)
}

async fn api_get(env: &TestEnv, key: &str, id: &str) -> Value {
    let r = env
        .call(
            "GET",
            &format!("/api/v1/verify?verification_id={id}"),
            Some(key),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    r.body["data"].clone()
}

/// Opens the link and consents; the verification is then in progress and ready to connect.
async fn open_and_consent(env: &TestEnv, link: &str) {
    let p = page(env, "GET", link, None).await;
    assert_eq!(p.status, 200);
    let p = page(env, "POST", link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303, "{}", p.html);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_completes_with_the_good_scenario() {
    let env = env().await;
    let (id, link) = create(&env, &env.test_key, "jane+good@example.com", Some(1500.0)).await;

    let p = page(&env, "GET", &link, None).await;
    assert_eq!(p.status, 200);
    assert!(p.html.contains("asks you to verify your income"));
    assert!(p.html.contains("Demo Lettings"), "names who asks");
    assert!(p.html.contains("9 Oak Lane"), "names the property");
    assert!(
        p.html.contains(r#"<label for="agree">"#),
        "accessible label"
    );
    assert!(p.html.contains("width=device-width"), "readable on a phone");
    assert!(!p.html.contains("<script"), "no JavaScript needed");
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "in_progress",
        "opening moves pending to in_progress"
    );

    let p = page(&env, "POST", &link, Some("action=consent")).await;
    assert_eq!(p.status, 400);
    assert!(p.html.contains("tick the box"));

    let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(
        (p.status, p.location.as_deref()),
        (303, Some(link.as_str()))
    );
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(stored.consented_at.is_some());
    assert_eq!(
        stored.consent_version.as_deref(),
        Some(shared::portal::CONSENT_VERSION)
    );

    let p = page(&env, "GET", &link, None).await;
    assert!(
        p.html.contains(r#"value="good" checked"#),
        "the e-mail tag preselects the scenario"
    );
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 303);
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("Thank you"));

    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["status"], "completed");
    let report = &data["income_report"];
    assert_eq!(report["total_monthly_income"], 5200.0);
    assert_eq!(report["rent_to_income_ratio"], 0.2885);
    assert_eq!(report["passes_3x_rule"], true);
    assert_eq!(report["verification_method"], "bank");
    assert_eq!(report["income_sources"][0]["pay_frequency"], "BIWEEKLY");
    let score = report["confidence_score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
    let usage = env
        .call("GET", "/api/v1/usage", Some(&env.test_key), None)
        .await;
    assert_eq!(
        usage.body["data"]["verifications"]["completed_this_month"],
        1
    );
    // The page never logs the link token.
    let token = link.rsplit('/').next().unwrap();
    assert!(!common::captured_logs().contains(token));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_scenarios_give_their_reports() {
    let env = env().await;
    for (scenario, total, passes, statuses) in [
        ("lowincome", Some(1516.67), Some(false), "completed"),
        ("gig", Some(4450.0), Some(true), "completed"),
        ("fail", None, None, "failed"),
    ] {
        let (id, link) = create(
            &env,
            &env.test_key,
            &format!("t+{scenario}@example.com"),
            Some(1400.0),
        )
        .await;
        open_and_consent(&env, &link).await;
        let p = page(
            &env,
            "POST",
            &link,
            Some(&format!("action=connect&scenario={scenario}")),
        )
        .await;
        assert_eq!(p.status, 303);
        let data = api_get(&env, &env.test_key, &id).await;
        assert_eq!(data["status"], statuses, "{scenario}");
        if let (Some(total), Some(passes)) = (total, passes) {
            assert_eq!(data["income_report"]["total_monthly_income"], total);
            assert_eq!(data["income_report"]["passes_3x_rule"], passes);
        }
        if scenario == "gig" {
            let sources = data["income_report"]["income_sources"].as_array().unwrap();
            assert_eq!(sources.len(), 3);
            assert!(
                sources[1].get("pay_frequency").is_none(),
                "gig income has no pay frequency"
            );
        }
        if scenario == "fail" {
            let p = page(&env, "GET", &link, None).await;
            assert!(p.html.contains("could not verify your income"));
        }
    }
    // Outage: a page asking to retry, nothing changes.
    let (id, link) = create(&env, &env.test_key, "t@example.com", None).await;
    open_and_consent(&env, &link).await;
    let p = page(&env, "POST", &link, Some("action=connect&scenario=outage")).await;
    assert_eq!(p.status, 503);
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "in_progress"
    );
    // Without rent, affordability is null.
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 303);
    let data = api_get(&env, &env.test_key, &id).await;
    assert!(data["income_report"]["rent_to_income_ratio"].is_null());
    assert!(data["income_report"]["passes_3x_rule"].is_null());
    // A made-up scenario is refused with the page, not an error dump.
    let (_, link) = create(&env, &env.test_key, "u@example.com", None).await;
    open_and_consent(&env, &link).await;
    let p = page(&env, "POST", &link, Some("action=connect&scenario=rich")).await;
    assert_eq!(p.status, 400);
    assert!(p.html.contains("choose one of the options"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_need_the_token_and_closed_states_have_their_pages() {
    let env = env().await;
    let (id, link) = create(&env, &env.test_key, "s@example.com", None).await;
    for bad in [
        format!("/t/{id}"),
        format!("/t/{id}/"),
        format!("/t/{id}/not-the-token"),
        format!(
            "/t/{}/{}",
            uuid::Uuid::new_v4(),
            link.rsplit('/').next().unwrap()
        ),
        "/t/garbage".to_string(),
    ] {
        let p = page(&env, "GET", &bad, None).await;
        assert_eq!(p.status, 404, "{bad}");
        assert!(p.html.contains("This link is not valid"));
    }
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "pending",
        "a bad link changes nothing"
    );

    let r = env
        .call(
            "DELETE",
            &format!("/api/v1/verify?verification_id={id}"),
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    let p = page(&env, "GET", &link, None).await;
    assert_eq!(p.status, 410);
    assert!(p.html.contains("This request was cancelled"));

    // Expired (past expires_at, not yet swept) and completed pages.
    devstack::stack::seed_fixtures(&env.store).await.unwrap();
    let token = devstack::stack::FIXTURE_LINK_TOKEN;
    let p = page(
        &env,
        "GET",
        &format!("/t/{}/{token}", devstack::stack::FIXTURE_EXPIRED),
        None,
    )
    .await;
    assert_eq!(p.status, 410);
    assert!(p.html.contains("This link has expired"));
    let p = page(
        &env,
        "GET",
        &format!("/t/{}/{token}", devstack::stack::FIXTURE_COMPLETED),
        None,
    )
    .await;
    assert_eq!(p.status, 200);
    assert!(p.html.contains("Thank you"));
    let p = page(
        &env,
        "GET",
        &format!("/t/{}/{token}", devstack::stack::FIXTURE_FAILED),
        None,
    )
    .await;
    assert!(p.html.contains("could not verify your income"));
    // Connecting without consent goes back to the consent page.
    let (_, link) = create(&env, &env.test_key, "n@example.com", None).await;
    page(&env, "GET", &link, None).await;
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 303);
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("Agree and continue"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_racing_cancel_has_exactly_one_winner() {
    let env = env().await;
    let mut completed = 0;
    let mut cancelled = 0;
    for i in 0..8 {
        let (id, link) = create(
            &env,
            &env.test_key,
            &format!("race{i}@example.com"),
            Some(1000.0),
        )
        .await;
        open_and_consent(&env, &link).await;
        let cancel_path = format!("/api/v1/verify?verification_id={id}");
        let (p, r) = tokio::join!(
            page(&env, "POST", &link, Some("action=connect&scenario=good")),
            env.call("DELETE", &cancel_path, Some(&env.test_key), None)
        );
        assert_eq!(p.status, 303);
        let stored = env
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        match r.status {
            200 => {
                cancelled += 1;
                assert_eq!(stored.status, Status::Expired);
                assert!(stored.income_report.is_none() && stored.completed_at.is_none());
            }
            400 => {
                completed += 1;
                assert_eq!(stored.status, Status::Completed);
                assert!(stored.cancelled_at.is_none());
            }
            other => panic!("cancel answered {other}: {}", r.raw),
        }
    }
    assert_eq!(completed + cancelled, 8);
    // The counters agree with the outcomes.
    let (stats, month) = env
        .store
        .owner_stats(
            devstack::stack::DEMO_ACCOUNT,
            shared::domain::Mode::Test,
            &shared::domain::usage_month(Utc::now()),
        )
        .await
        .unwrap();
    assert_eq!(
        (stats.completed, stats.expired, stats.total),
        (completed, cancelled, 8)
    );
    assert_eq!((stats.pending, stats.in_progress), (0, 0));
    assert_eq!(month.completed, completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_racing_expiry_has_exactly_one_winner() {
    let env = env().await;
    for i in 0..6 {
        let (id, link) = create(&env, &env.test_key, &format!("exp{i}@example.com"), None).await;
        open_and_consent(&env, &link).await;
        let v = env
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        let report = shared::report::IncomeReport::empty_for_tests();
        let now = Utc::now();
        let complete = Transition::Complete { report };
        let (a, b) = tokio::join!(
            env.store.transition(&v, &complete, now),
            env.store.transition(&v, &Transition::Expire, now)
        );
        let applied = [a.unwrap(), b.unwrap()]
            .iter()
            .filter(|o| matches!(o, TransitionOutcome::Applied(_)))
            .count();
        assert_eq!(applied, 1, "exactly one of completion and expiry wins");
    }
}
