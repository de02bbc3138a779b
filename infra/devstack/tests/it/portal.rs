//! The tenant page: link checks, every page state, the sandbox scenarios, and the races of a
//! completion against a cancel or an expiry. Through the local server, against moto.

use crate::common;

use chrono::Utc;
use common::{TestEnv, env};
use domain::{Status, Transition};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use serde_json::{Value, json};
pub(crate) mod argyle;
mod link_window;
pub(crate) mod live_and_plaid;
mod payroll;
pub(crate) mod plaid_check;
mod second_method;

struct Page {
    status: u16,
    location: Option<String>,
    html: String,
}

async fn page(env: &TestEnv, method: &str, path: &str, form: Option<&str>) -> Page {
    page_at(&env.base, method, path, form).await
}

/// A request to the tenant page of the server at `base`.
async fn page_at(base: &str, method: &str, path: &str, form: Option<&str>) -> Page {
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut req = client.request(
        reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
        format!("{base}{path}"),
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
    if method != "HEAD" && (status == 200 || status >= 400) {
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
    create_with(env, key, body).await
}

/// Creates a verification from `body` and returns (id, link path).
async fn create_with(env: &TestEnv, key: &str, body: Value) -> (String, String) {
    let r = env.create_verification(key, body).await;
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
    let r = env.get_verification(key, &id).await;
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
        "pending",
        "opening changes nothing (mail scanners open every link)"
    );

    let p = page(&env, "POST", &link, Some("action=consent")).await;
    assert_eq!(p.status, 400);
    assert!(p.html.contains("tick the box"));
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "pending",
        "a refused consent changes nothing"
    );

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
    assert_eq!(stored.status, Status::InProgress, "the consent starts it");
    assert_eq!(stored.started_at, stored.consented_at);
    assert_eq!(
        stored.consent_version.as_deref(),
        Some(service::handlers::tenant_portal::CONSENT_VERSION)
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
    let usage = env.usage(&env.test_key).await;
    assert_eq!(
        usage.body["data"]["verifications"]["completed_this_month"],
        1
    );
    // The page never logs the link token.
    let token = link.rsplit('/').next().unwrap();
    assert!(!common::captured_logs().contains(token));
}

/// The sandbox scenarios with money that does not count: through the tenant page to the API's
/// report, the tenant's own copy and the landlord's PDF, each says what was left out and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scenarios_with_money_that_does_not_count_explain_it_everywhere() {
    let env = env().await;
    let artifacts = common::artifacts_dir();
    for (scenario, total, left_out, reason, words) in [
        (
            "oneoff",
            1200.0,
            "Cash deposit",
            "one_off",
            "a single payment of 4,000.00",
        ),
        (
            "ended",
            1950.0,
            "Harbor Logistics payroll",
            "ended",
            "last paid on",
        ),
        (
            "transfers",
            4333.33,
            "Transfer from savings",
            "not_income",
            "money moved between the tenant's own accounts",
        ),
        ("declining", 3033.33, "", "", ""),
    ] {
        let email = format!("t+{scenario}@example.com");
        let (id, link) = create(&env, &env.test_key, &email, Some(1400.0)).await;
        open_and_consent(&env, &link).await;
        let form = format!("action=connect&scenario={scenario}");
        let p = page(&env, "POST", &link, Some(&form)).await;
        assert_eq!(p.status, 303, "{scenario}: {}", p.html);

        let report = api_get(&env, &env.test_key, &id).await["income_report"].clone();
        assert_eq!(
            report["total_monthly_income"], total,
            "{scenario}: {report}"
        );
        let counted: f64 = report["income_sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["monthly_income"].as_f64().unwrap())
            .sum();
        assert!(
            (counted - total).abs() < 0.005,
            "{scenario}: the sources add up"
        );
        let excluded = report["excluded_sources"].as_array().unwrap();
        let pdf = common::landlord_pdf(&env, &env.test_key, &id).await;
        let pdf_path = artifacts.join(format!("portal-{scenario}-report.pdf"));
        let text = common::pdf_text(&pdf, &pdf_path);
        let copy = page(&env, "GET", &link, None).await.html;
        if scenario == "declining" {
            assert!(excluded.is_empty(), "{report}");
            let source = &report["income_sources"][0];
            assert_eq!(source["reason"], "recent_level");
            assert_eq!(source["twelve_month_average"], 4300.0);
            assert!(
                text.contains("12-month average 4,300.00 a month (counted at the recent level)"),
                "{text}"
            );
            continue;
        }
        assert_eq!(excluded.len(), 1, "{scenario}: {report}");
        assert_eq!(excluded[0]["name"], left_out, "{scenario}");
        assert_eq!(excluded[0]["reason"], reason, "{scenario}");
        let explanation = excluded[0]["explanation"].as_str().unwrap();
        assert!(explanation.contains(words), "{scenario}: {explanation}");
        let factors = report["confidence_factors"].as_array().unwrap();
        assert!(
            factors.iter().any(|f| f["factor"] == "excluded"),
            "{scenario}: {factors:?}"
        );
        // The landlord's PDF and the tenant's own copy say the same.
        assert!(
            text.contains("Seen but not counted (1)"),
            "{scenario}: {text}"
        );
        assert!(text.contains(left_out), "{scenario}: {text}");
        let html_words = words.replace('\'', "&#39;");
        assert!(
            copy.contains("Money seen but not counted"),
            "{scenario}: {copy}"
        );
        assert!(copy.contains(&html_words), "{scenario}: {copy}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_scenarios_give_their_reports() {
    let env = env().await;
    for (scenario, total, passes, statuses) in [
        ("lowincome", Some(1516.67), Some(false), "completed"),
        ("gig", Some(4482.0), Some(true), "completed"),
        ("fail", None, None, "failed"),
    ] {
        // Bank only: with another method left, a refusal would offer it instead of failing.
        let body = json!({"tenant_email": format!("t+{scenario}@example.com"),
            "property_address": "9 Oak Lane", "monthly_rent": 1400.0, "methods": ["bank"]});
        let (id, link) = create_with(&env, &env.test_key, body).await;
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

    let r = env.cancel_verification(&env.test_key, &id).await;
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
    // Connecting without consent shows the consent step again with a notice: no success answer
    // for work not done.
    let (id, link) = create(&env, &env.test_key, "n@example.com", None).await;
    page(&env, "GET", &link, None).await;
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 400);
    assert!(p.html.contains("Agree and continue"));
    assert!(p.html.contains("agree to share your income summary first"));
    assert_eq!(api_get(&env, &env.test_key, &id).await["status"], "pending");
    // Posting to a closed verification shows its page, not a redirect.
    let cancelled = format!("/t/{}/{token}", devstack::stack::FIXTURE_CANCELLED);
    let p = page(&env, "POST", &cancelled, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 410);
    let p = page(
        &env,
        "POST",
        &cancelled,
        Some("action=connect&scenario=good"),
    )
    .await;
    assert_eq!(p.status, 410);
    // An `agree` or `scenario` outside the form's own, or a note longer than the form can send
    // (the OpenAPI file's enums and bounds), is refused whatever the state, with the page as it
    // is: closed, or open with the form not fitting.
    let gone = "This request was cancelled";
    let too_long = format!("action=note&note={}", "a".repeat(1001));
    let consent_too_long = format!("action=consent&agree=yes&note={}", "a".repeat(1001));
    for (at, form, shown) in [
        (&cancelled, "action=consent&agree=no", gone),
        (&cancelled, "action=connect&scenario=nope", gone),
        (&link, "action=note&agree=maybe", "tick the box"),
        (&cancelled, too_long.as_str(), gone),
        (&link, too_long.as_str(), "note is too long"),
        (&link, consent_too_long.as_str(), "note is too long"),
        (&link, "action=note", "write your note"),
        (&link, "action=consent", "tick the box"),
        (&cancelled, "action=state_pay&document=d1", gone),
        (
            &link,
            "action=state_pay&frequency=daily",
            "how often you are paid",
        ),
    ] {
        let p = page(&env, "POST", at, Some(form)).await;
        assert_eq!(p.status, 400, "{form}");
        assert!(p.html.contains(shown), "{form}");
    }
    assert_eq!(api_get(&env, &env.test_key, &id).await["status"], "pending");
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
        // The page tells the truth: a redirect when the completion was written, the cancelled
        // page when the cancel won.
        let page_says_completed = match p.status {
            303 => true,
            410 => false,
            other => panic!("connect answered {other}: {}", p.html),
        };
        let stored = env
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        match r.status {
            200 => {
                assert!(!page_says_completed);
                cancelled += 1;
                assert_eq!(stored.status, Status::Expired);
                assert!(stored.income_report.is_none() && stored.completed_at.is_none());
            }
            400 => {
                assert!(page_says_completed);
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
            domain::Mode::Test,
            &domain::usage_month(Utc::now()),
        )
        .await
        .unwrap();
    assert_eq!(
        (stats.completed, stats.expired, stats.total),
        (completed, cancelled, 8)
    );
    assert_eq!(stats.open, 0);
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
        let report = domain::report::IncomeReport::empty_for_tests();
        let now = Utc::now();
        let complete = Transition::Complete {
            report: Box::new(report),
        };
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

// ---- Link scanners and the tenant's first action (issue 9, item 6) ------------------------------

/// The verification's item exactly as stored.
async fn raw_item(
    env: &TestEnv,
    id: &str,
) -> std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue> {
    let (pk, sk) = service::table_schema::keys::verification(id.parse().unwrap());
    aws_sdk_dynamodb::Client::new(&env.sdk)
        .get_item()
        .table_name(&env.names.table)
        .key("PK", aws_sdk_dynamodb::types::AttributeValue::S(pk))
        .key("SK", aws_sdk_dynamodb::types::AttributeValue::S(sk))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_and_head_of_the_link_change_nothing_and_fire_no_webhook() {
    let env = env().await;
    let receiver = common::Receiver::start(vec![200], std::time::Duration::ZERO).await;
    let r = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "scan@example.com", "webhook_url": receiver.url}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let id = r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = r.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .strip_prefix(&env.base)
        .unwrap()
        .to_string();
    // Everything the create caused is on the stream already; from here on it must stay quiet.
    let mut stream = devstack::pump::StreamPump::new(
        &env.sdk,
        &env.names.table,
        devstack::pump::TtlDeletions::default(),
    )
    .await
    .unwrap();
    stream.read().await.unwrap();
    let before = raw_item(&env, &id).await;

    for method in ["GET", "HEAD", "GET"] {
        let p = page(&env, method, &link, None).await;
        assert_eq!(p.status, 200, "{method}");
    }

    assert_eq!(
        raw_item(&env, &id).await,
        before,
        "the item is byte-identical"
    );
    let records = stream.read().await.unwrap();
    assert!(
        records.is_empty(),
        "no stream record, so no webhook can follow: {records:?}"
    );
    assert_eq!(
        common::queue_depth(&env, &env.created.webhook_queue_url).await,
        0
    );
    assert!(receiver.received().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_whose_first_request_is_the_consent_post_completes() {
    let env = env().await;
    let (id, link) = create(&env, &env.test_key, "direct+good@example.com", Some(1000.0)).await;

    // No GET before: the consent POST itself starts the verification and records the consent.
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
    assert_eq!(stored.status, Status::InProgress);
    assert!(stored.consented_at.is_some() && stored.started_at.is_some());
    // A second consent (another tab) records nothing more and claims nothing: it shows the step.
    let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 200);
    assert!(p.html.contains("Connect and share"));

    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 303);
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["status"], "completed");
    assert_eq!(data["income_report"]["total_monthly_income"], 5200.0);
    assert!(
        data["income_report"].get("local_sandbox").is_none(),
        "test mode is not marked"
    );
    let (stats, _) = env
        .store
        .owner_stats(
            devstack::stack::DEMO_ACCOUNT,
            domain::Mode::Test,
            &domain::usage_month(Utc::now()),
        )
        .await
        .unwrap();
    assert_eq!((stats.open, stats.completed), (0, 1));
}

// ---- Live income only from a real provider (issue 9, item 4) ----------------------------------
