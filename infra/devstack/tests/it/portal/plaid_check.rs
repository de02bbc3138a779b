//! Plaid Check in live mode on the local stack, against the Plaid emulator: the tenant consents
//! with their identity, finishes Link, waits while the report is built, and the signed
//! `CHECK_REPORT_READY` webhook wakes the report. The webhook's verification cases, duplicates,
//! a failure webhook and key rotation, through the stack's `POST /webhooks/providers/plaid`.

use super::*;
use adapters::live_provider::LiveProvider;
use adapters::plaid::check::PlaidCheckIncomeProvider;
use devstack::plaid_emulator::{PlaidEmulator, Report, Signing};

const INSIGHTS: &str = "/cra/check_report/income_insights/get";
const KEY_GET: &str = "/webhook_verification_key/get";
/// The consent form with the identity Plaid Check requires (URL-encoded).
pub(crate) const CONSENT_WITH_IDENTITY: &str = "action=consent&agree=yes&first_name=Jane&last_name=Tenant&phone=%2B14155550123&date_of_birth=1990-04-12&street=1+Main+St&city=Oakland&region=CA&postal_code=94612";

/// A local server whose live provider is Plaid Check at the emulator, with the stack's
/// provider-webhooks route checking the emulator's keys, and outbox workers reading from it.
pub(crate) struct PlaidStack {
    pub base: String,
    pub plaid: PlaidEmulator,
    pub workers: devstack::Workers,
    pub pump: devstack::pump::StreamPump,
}

pub(crate) async fn plaid_stack(env: &TestEnv) -> PlaidStack {
    let plaid = PlaidEmulator::start(false)
        .await
        .expect("the emulator listens");
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let provider = plaid.provider(&base);
    let settings = service::config::Settings {
        plans: common::small_plans(),
        live_income: service::config::LiveIncome::of(&[service::config::Provider::PlaidCheck]),
        ..devstack::local_settings(&env.names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    let app = devstack::app_with_webhooks(
        &env.sdk,
        settings,
        LiveProvider::plaid_check(provider),
        plaid.verifiers(),
    );
    devstack::server::spawn(app, port).await.expect("listen");
    let mut workers = env.workers();
    workers.outbox.provider =
        LiveProvider::plaid_check(PlaidCheckIncomeProvider::new(plaid.config()).unwrap());
    let ttl = devstack::pump::TtlDeletions::default();
    let pump = devstack::pump::StreamPump::new(&env.sdk, &env.names.table, ttl)
        .await
        .unwrap();
    PlaidStack {
        base,
        plaid,
        workers,
        pump,
    }
}

impl PlaidStack {
    /// Runs the stream's records through the outbox until none is left.
    pub(crate) async fn drain(&mut self) {
        for _ in 0..20 {
            let n = (self.pump)
                .pump_once(&self.workers.outbox, &self.workers.expiry)
                .await
                .unwrap();
            if n == 0 {
                return;
            }
        }
        panic!("the stream did not settle");
    }

    /// A live verification, consented with identity, Link finished, the connection waiting.
    /// Its id, link, and the emulator's user id.
    async fn waiting(&mut self, env: &TestEnv, email: &str) -> (String, String, String) {
        let body = json!({"tenant_email": email, "monthly_rent": 1200});
        let (id, link) = live_and_plaid::created_at(&self.base, &env.live_key, body).await;
        let p = page_at(&self.base, "POST", &link, Some(CONSENT_WITH_IDENTITY)).await;
        assert_eq!(p.status, 303, "{}", p.html);
        let p = page_at(&self.base, "POST", &link, Some("action=start")).await;
        assert_eq!(p.status, 200, "{}", p.html);
        assert!(
            p.html.contains(&self.plaid.link_script_url()),
            "the stand-in Link script"
        );
        let token = p
            .html
            .split("token: \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let user = self.plaid.complete_link(token).expect("Link completes");
        let p = page_at(&self.base, "POST", &link, Some("action=connect")).await;
        assert_eq!(p.status, 303, "{}", p.html);
        (id, link, user)
    }

    fn webhook_url(&self, id: &str) -> String {
        format!(
            "{}/webhooks/providers/plaid?verification_id={id}",
            self.base
        )
    }
}

/// Moves the start of `id`'s wait 31 minutes back, as time passing would (past `SWEEP_AFTER`),
/// then runs the retry queue until the sweep's read completed the verification.
pub(crate) async fn sweep_after_31_minutes(env: &TestEnv, stack: &PlaidStack, id: &str) {
    let since = chrono::Utc::now() - chrono::Duration::minutes(31);
    aws_sdk_dynamodb::Client::new(&env.sdk)
        .update_item()
        .table_name(&env.names.table)
        .key(
            "PK",
            aws_sdk_dynamodb::types::AttributeValue::S(format!("VERIFICATION#{id}")),
        )
        .key(
            "SK",
            aws_sdk_dynamodb::types::AttributeValue::S("VERIFICATION".into()),
        )
        .update_expression("SET awaiting.since = :since")
        .expression_attribute_values(
            ":since",
            aws_sdk_dynamodb::types::AttributeValue::S(domain::format_ts(since)),
        )
        .send()
        .await
        .unwrap();
    for _ in 0..10 {
        retry_once(env, stack).await;
        if stored(env, id).await.status == domain::Status::Completed {
            break;
        }
    }
}

/// One pass of the retry queue through the outbox (the sweep's pieces wait there).
pub(crate) async fn retry_once(env: &TestEnv, stack: &PlaidStack) {
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    let retry_queue = &env.created.retry_queue_url;
    devstack::pump::pump_retry_once(&sqs, retry_queue, &stack.workers.outbox, 0)
        .await
        .unwrap();
}

/// The verification `id` as the table holds it.
pub(crate) async fn stored(env: &TestEnv, id: &str) -> domain::Verification {
    env.store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap()
}

/// The walk of issue 31: consent with identity, Link, the waiting page (which refreshes itself
/// and asks nothing), the signed webhook, the report. The report is ready before the tenant's
/// page refreshes: the refreshes read nothing, and the report is read once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_tenant_waits_for_plaid_check_and_the_webhook_wakes_the_report() {
    let env = env().await;
    let mut stack = plaid_stack(&env).await;
    let (id, link, user) = stack.waiting(&env, "jane.tenant@example.com").await;
    eprintln!("walk: consent with identity, Link completed for {id}");

    let p = page_at(&stack.base, "GET", &link, None).await;
    assert_eq!(p.status, 200);
    assert!(p.html.contains("Collecting your income data"), "{}", p.html);
    assert!(
        p.html
            .contains(r#"<meta http-equiv="refresh" content="10">"#)
    );
    assert!(
        !p.html.contains("<script"),
        "the waiting page needs no JavaScript"
    );
    assert!(
        !p.html.contains(r#"value="start""#),
        "never asks to connect again"
    );
    assert_eq!(
        api_get(&env, &env.live_key, &id).await["status"],
        "in_progress"
    );
    eprintln!("walk: waiting page shown, status in_progress");

    // The report is ready before the page refreshes: the webhook, signed, reaches the stack.
    let answered = stack.plaid.settle(&user, Report::Ready).await;
    assert_eq!(answered, Some(200));
    eprintln!(
        "walk: emulator sent CHECK_REPORT_READY signed with {}: 200",
        stack.plaid.current_kid()
    );
    for _ in 0..3 {
        let p = page_at(&stack.base, "GET", &link, None).await;
        assert!(p.html.contains("Collecting your income data"));
    }
    assert_eq!(stack.plaid.count(INSIGHTS), 0, "a GET reads nothing");
    stack.drain().await;
    assert_eq!(stack.plaid.count(INSIGHTS), 1, "the report is read once");

    let data = api_get(&env, &env.live_key, &id).await;
    assert_eq!(data["status"], "completed");
    assert_eq!(data["income_report"]["verification_method"], "bank");
    assert!(data["income_report"].get("local_sandbox").is_none());
    let p = page_at(&stack.base, "GET", &link, None).await;
    assert!(p.html.contains("Thank you"), "{}", p.html);
    eprintln!(
        "walk: report built from the webhook's piece: status {}, total_monthly_income {}",
        data["status"], data["income_report"]["total_monthly_income"]
    );
    // The report is built: the outbox removes the Plaid user.
    stack.drain().await;
    assert_eq!(stack.plaid.count("/user/remove"), 1);
}

/// Each verification case gives a 401 and no work, or the one piece of work: the report read
/// once. The cases: body changed, a key Plaid never served, `alg` other than ES256, a stale
/// `iat`, a `kid` Plaid does not know; then a good webhook under a rotated key (an unknown `kid`
/// fetched), and its replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_verification_cases_give_one_piece_of_work_or_a_401() {
    let env = env().await;
    let mut stack = plaid_stack(&env).await;
    let (id, _, user) = stack.waiting(&env, "cases@example.com").await;
    let url = stack.webhook_url(&id);
    let body = PlaidEmulator::report_webhook_body(&user, Report::Ready);
    let changed = body.replace("CHECK_REPORT_READY", "CHECK_REPORT_FAILED");
    let good = stack.plaid.sign(body.as_bytes(), &Signing::default());
    let cases: Vec<(&str, String, String)> = vec![
        ("body changed", changed, good.clone()),
        (
            "wrong key",
            body.clone(),
            stack.plaid.sign(
                body.as_bytes(),
                &Signing {
                    foreign_key: true,
                    ..Default::default()
                },
            ),
        ),
        (
            "alg HS256",
            body.clone(),
            stack.plaid.sign(
                body.as_bytes(),
                &Signing {
                    alg: Some("HS256".into()),
                    ..Default::default()
                },
            ),
        ),
        (
            "alg none",
            body.clone(),
            stack.plaid.sign(
                body.as_bytes(),
                &Signing {
                    alg: Some("none".into()),
                    ..Default::default()
                },
            ),
        ),
        (
            "stale iat",
            body.clone(),
            stack.plaid.sign(
                body.as_bytes(),
                &Signing {
                    age_seconds: 301,
                    ..Default::default()
                },
            ),
        ),
        (
            "kid Plaid never made",
            body.clone(),
            stack.plaid.sign(
                body.as_bytes(),
                &Signing {
                    kid: Some("nope".into()),
                    ..Default::default()
                },
            ),
        ),
        ("no header", body.clone(), String::new()),
    ];
    for (case, sent, signature) in &cases {
        let status = stack.plaid.post_webhook(&url, sent, signature).await;
        assert_eq!(status, Some(401), "{case}");
        let v = stored(&env, &id).await;
        assert!(
            v.awaiting_now().unwrap().signal.is_none(),
            "{case}: no work"
        );
    }
    let fetched_before = stack.plaid.count(KEY_GET);
    assert!(
        fetched_before >= 1,
        "the current key was fetched once and cached"
    );

    // Plaid rotates its key: the webhook's unknown kid is fetched, then verified.
    let new_kid = stack.plaid.rotate_key();
    stack.plaid.settle(&user, Report::Ready).await; // marks ready and sends, signed with new_kid
    assert_eq!(
        stack.plaid.count(KEY_GET),
        fetched_before + 1,
        "{new_kid} fetched once"
    );
    let v = stored(&env, &id).await;
    assert!(v.awaiting_now().unwrap().signal.is_some(), "recorded");
    // A replay inside the five minutes is verified, and is a duplicate: no more work.
    let replayed = stack.plaid.sign(body.as_bytes(), &Signing::default());
    assert_eq!(
        stack.plaid.post_webhook(&url, &body, &replayed).await,
        Some(200)
    );
    assert_eq!(
        stack.plaid.post_webhook(&url, &body, &replayed).await,
        Some(200)
    );
    assert_eq!(
        stack.plaid.count(KEY_GET),
        fetched_before + 1,
        "the key is cached"
    );
    stack.drain().await;
    assert_eq!(
        stack.plaid.count(INSIGHTS),
        1,
        "one piece of work: one read"
    );
    assert_eq!(stored(&env, &id).await.status, domain::Status::Completed);
}

/// Two webhooks at once (Plaid retries, or sends twice): one records the signal, the other finds
/// it; the report is read once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_webhooks_give_one_read() {
    let env = env().await;
    let mut stack = plaid_stack(&env).await;
    let (id, _, user) = stack.waiting(&env, "twice@example.com").await;
    let url = stack.webhook_url(&id);
    let body = PlaidEmulator::report_webhook_body(&user, Report::Ready);
    let (a, b) = (
        stack.plaid.sign(body.as_bytes(), &Signing::default()),
        stack.plaid.sign(body.as_bytes(), &Signing::default()),
    );
    // The emulator's report turns ready without sending a webhook of its own.
    stack.plaid.mark(&user, Report::Ready);
    let (first, second) = tokio::join!(
        stack.plaid.post_webhook(&url, &body, &a),
        stack.plaid.post_webhook(&url, &body, &b)
    );
    assert_eq!((first, second), (Some(200), Some(200)));
    stack.drain().await;
    assert_eq!(stack.plaid.count(INSIGHTS), 1);
    assert_eq!(stored(&env, &id).await.status, domain::Status::Completed);
}

/// `CHECK_REPORT_FAILED` ends the bank try: the tenant is routed to the next method (documents
/// on this stack), as any failed connection is, and the report is never read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_webhook_routes_the_tenant_to_the_next_method() {
    let env = env().await;
    let mut stack = plaid_stack(&env).await;
    let (id, link, user) = stack.waiting(&env, "failed@example.com").await;

    assert_eq!(stack.plaid.settle(&user, Report::Failed).await, Some(200));
    stack.drain().await;

    assert_eq!(stack.plaid.count(INSIGHTS), 0);
    let v = stored(&env, &id).await;
    assert_eq!(v.status, domain::Status::InProgress);
    let tries: Vec<_> = v
        .method_attempts
        .iter()
        .map(|a| (a.method, a.outcome))
        .collect();
    assert_eq!(
        tries,
        [(
            domain::income::VerificationMethod::Bank,
            domain::methods::AttemptOutcome::Failed
        )]
    );
    let p = page_at(&stack.base, "GET", &link, None).await;
    assert!(p.html.contains("by bank did not work"), "{}", p.html);
    assert!(!p.html.contains("Collecting your income data"));
}

/// A lost `CHECK_REPORT_READY`: the sweep's piece, on the retry road, looks at the wait after
/// each delay; once the wait is older than `SWEEP_AFTER` it reads the report itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_webhook_is_caught_by_the_sweep() {
    let env = env().await;
    let mut stack = plaid_stack(&env).await;
    let (id, link, user) = stack.waiting(&env, "lost@example.com").await;
    // Plaid built the report; its webhook never arrives.
    stack.plaid.mark(&user, Report::Ready);
    stack.drain().await;
    retry_once(&env, &stack).await;
    assert_eq!(stack.plaid.count(INSIGHTS), 0, "not due: the wait is fresh");
    assert!(stored(&env, &id).await.awaiting_now().is_some());

    // The wait began 31 minutes ago, as time passing would have it.
    sweep_after_31_minutes(&env, &stack, &id).await;
    assert_eq!(stored(&env, &id).await.status, domain::Status::Completed);
    assert_eq!(
        stack.plaid.count(INSIGHTS),
        1,
        "the sweep read the report once"
    );
    let p = page_at(&stack.base, "GET", &link, None).await;
    assert!(p.html.contains("Thank you"), "{}", p.html);
}

/// Plaid's documented errors on demand: a `/link/token/create` that fails once with
/// `INTERNAL_SERVER_ERROR` shows "try again" and writes nothing; the next start works with the
/// same Plaid user.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_link_token_is_tried_again_with_the_same_user() {
    const INTERNAL_SERVER_ERROR: &str = include_str!(
        "../../../../../shared/adapters/tests/fixtures/plaid/error_internal_server_error.json"
    );
    let env = env().await;
    let stack = plaid_stack(&env).await;
    let (status, body) =
        live_and_plaid::create_at(&stack.base, &env.live_key, "retry@example.com").await;
    assert_eq!(status, 201, "{body}");
    let url = body["data"]["verification_url"].as_str().unwrap();
    let link = url.strip_prefix(&stack.base).unwrap().to_string();
    let p = page_at(&stack.base, "POST", &link, Some(CONSENT_WITH_IDENTITY)).await;
    assert_eq!(p.status, 303, "{}", p.html);

    stack
        .plaid
        .fail_next("/link/token/create", 500, INTERNAL_SERVER_ERROR);
    let p = page_at(&stack.base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 503, "{}", p.html);
    let p = page_at(&stack.base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 200, "{}", p.html);
    assert!(p.html.contains("token: \"link-local-"), "{}", p.html);
    assert_eq!(stack.plaid.count("/user/create"), 1, "one Plaid user");
    assert_eq!(stack.plaid.count("/link/token/create"), 2);
}
