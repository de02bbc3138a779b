//! Live routing between two real providers on the local stack (`INCOME_PROVIDERS=
//! plaid_check,argyle`): Plaid Check at its emulator fails the bank try by its signed webhook,
//! the page offers payroll, and the payroll connection waits until Argyle's signed
//! `paystubs.fully_synced` wakes its read. The report lists both tries. Argyle's webhook
//! verification cases follow Plaid's (`plaid_check`).

use super::plaid_check::{
    CONSENT_WITH_IDENTITY, PlaidStack, retry_once, stored, sweep_after_31_minutes,
};
use super::*;
use adapters::argyle::ArgyleWebhookVerifier;
use adapters::live_provider::{LiveProvider, Provider};
use devstack::argyle_emulator::{ArgyleEmulator, Stage, WEBHOOK_SECRET};
use devstack::plaid_emulator::{PlaidEmulator, Report};
use domain::income::VerificationMethod::Bank;
use domain::methods::AttemptOutcome;

const PAYSTUBS: &str = "/v2/paystubs";
const GIGS: &str = "/v2/gigs";

/// The local server with Plaid Check and Argyle at their emulators, in that order.
pub(crate) async fn two_provider_stack(env: &TestEnv) -> (PlaidStack, ArgyleEmulator) {
    let plaid = PlaidEmulator::start(false).await.unwrap();
    let argyle = ArgyleEmulator::start(false).await.unwrap();
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let both = |plaid_check| {
        LiveProvider::of([
            Provider::PlaidCheck(plaid_check),
            Provider::Argyle(argyle.provider()),
        ])
    };
    use service::config::Provider as Kind;
    let settings = service::config::Settings {
        plans: common::small_plans(),
        live_income: service::config::LiveIncome::of(&[Kind::PlaidCheck, Kind::Argyle]),
        ..devstack::local_settings(&env.names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    argyle.subscribe(&format!("{base}/webhooks/providers/argyle"));
    let verifiers = adapters::wiring::WebhookVerifiers {
        plaid: Some(plaid.verifier()),
        argyle: Some(argyle.verifier()),
    };
    let app =
        devstack::app_with_webhooks(&env.sdk, settings, both(plaid.provider(&base)), verifiers);
    devstack::server::spawn(app, port).await.expect("listen");
    let mut workers = env.workers();
    workers.outbox.provider = both(plaid.provider(&base));
    let ttl = devstack::pump::TtlDeletions::default();
    let pump = devstack::pump::StreamPump::new(&env.sdk, &env.names.table, ttl)
        .await
        .unwrap();
    let stack = PlaidStack {
        base,
        plaid,
        workers,
        pump,
    };
    (stack, argyle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_bank_try_is_followed_by_payroll_through_argyle_and_both_are_reported() {
    let env = env().await;
    let (mut stack, argyle) = two_provider_stack(&env).await;
    let (base, plaid) = (stack.base.clone(), stack.plaid.clone());

    // Created with no methods: the stack's order, bank then payroll then documents.
    let body = json!({"tenant_email": "routed.tenant@example.com", "monthly_rent": 1200});
    let (id, link) = live_and_plaid::created_at(&base, &env.live_key, body).await;

    // The consent makes one user at each provider, stored as one handle.
    let p = page_at(&base, "POST", &link, Some(CONSENT_WITH_IDENTITY)).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let handle = stored(&env, &id).await.provider_user.unwrap();
    let argyle_user = argyle.user_ids().pop().expect("an Argyle user");
    assert!(handle.starts_with("bank="), "bank first");
    assert!(handle.ends_with(&format!(";payroll={argyle_user}")));

    // Bank: Link at the Plaid emulator, then Plaid Check could not build the report.
    let p = page_at(&base, "POST", &link, Some("action=start")).await;
    assert!(p.html.contains(&plaid.link_script_url()), "{}", p.html);
    let token = p.html.split("token: \"").nth(1).unwrap().split('"').next();
    let plaid_user = plaid.complete_link(token.unwrap()).expect("Link completes");
    let p = page_at(&base, "POST", &link, Some("action=connect")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    // Argyle's signed webhook for this tenant's payroll user, while the bank is awaited: answered,
    // and no signal for the bank's wait.
    assert_eq!(argyle.settle(&argyle_user, Stage::Synced).await, Some(200));
    let waiting = stored(&env, &id)
        .await
        .awaiting_now()
        .cloned()
        .expect("bank waits");
    assert_eq!(
        (waiting.method, waiting.signal),
        (Bank, None),
        "no signal for the bank"
    );
    assert_eq!(plaid.settle(&plaid_user, Report::Failed).await, Some(200));
    stack.drain().await;
    let p = page_at(&base, "GET", &link, None).await;
    assert!(p.html.contains("by bank did not work"), "{}", p.html);

    // Payroll: Argyle Link opens with a user token for this tenant's Argyle user.
    let p = page_at(&base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 200, "{}", p.html);
    assert!(
        p.html.contains(&format!("emu-token-{argyle_user}")),
        "{}",
        p.html
    );
    // Back from Link, the connection waits: the account is still connecting, then its pay stubs
    // are being read. Nothing is read, and no try is recorded.
    let p = page_at(&base, "POST", &link, Some("action=connect")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    for stage in [Stage::Connecting, Stage::Syncing] {
        argyle.set(&argyle_user, stage);
        stack.drain().await;
        let p = page_at(&base, "GET", &link, None).await;
        assert_eq!(p.status, 200, "{stage:?}: {}", p.html);
        let v = stored(&env, &id).await;
        assert_eq!(v.method_attempts.len(), 1, "{stage:?}: only the bank try");
        assert!(v.awaiting_now().is_some(), "{stage:?}: waiting");
        assert_eq!(argyle.count(PAYSTUBS), 0, "nothing read before the sync");
    }
    // Synced: Argyle's signed webhook records the signal, and its piece of work reads once.
    assert_eq!(argyle.settle(&argyle_user, Stage::Synced).await, Some(200));
    stack.drain().await;

    let v = stored(&env, &id).await;
    assert_eq!(v.status, Status::Completed);
    let routed: Vec<_> = (v.method_attempts.iter())
        .map(|a| (a.method, a.outcome))
        .collect();
    assert_eq!(
        routed,
        [(Bank, AttemptOutcome::Failed)],
        "the try routed from"
    );
    assert_eq!(argyle.count(PAYSTUBS), 2, "both pages, read once");
    let data = api_get(&env, &env.live_key, &id).await;
    let report = &data["income_report"];
    assert_eq!(report["verification_method"], "payroll");
    assert_eq!(report["methods_used"], json!(["payroll"]));
    assert!(report.get("local_sandbox").is_none(), "real providers");
    let attempts: Vec<_> = (report["attempts"].as_array().unwrap().iter())
        .map(|a| (a["method"].clone(), a["outcome"].clone()))
        .collect();
    assert_eq!(
        attempts,
        [
            (json!("bank"), json!("failed")),
            (json!("payroll"), json!("succeeded"))
        ]
    );
    eprintln!(
        "live report after routing: {}",
        serde_json::to_string_pretty(&data).unwrap()
    );
}

/// A verification that may use payroll alone is not asked the identity Plaid Check needs, and
/// its consent makes a user at Argyle only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payroll_only_verification_asks_no_identity_and_makes_only_an_argyle_user() {
    let env = env().await;
    let (stack, argyle) = two_provider_stack(&env).await;
    let body = json!({"tenant_email": "pay.only@example.com", "monthly_rent": 1200, "methods": ["payroll"]});
    let (id, link) = live_and_plaid::created_at(&stack.base, &env.live_key, body).await;

    let p = page_at(&stack.base, "GET", &link, None).await;
    assert!(!p.html.contains("date_of_birth"), "{}", p.html);
    let p = page_at(&stack.base, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303, "{}", p.html);

    let handle = stored(&env, &id).await.provider_user.unwrap();
    let argyle_user = argyle.user_ids().pop().expect("an Argyle user");
    assert_eq!(handle, format!("payroll={argyle_user}"));
    assert!(stack.plaid.user_ids().is_empty(), "no Plaid Check user");
}

/// A verification created without methods, for an account whose default is payroll: its
/// consent makes a user at Argyle only, so no tenant's identity reaches Plaid Check for a method
/// the verification will never use.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_default_of_payroll_makes_only_an_argyle_user_at_consent() {
    let env = env().await;
    let (stack, argyle) = two_provider_stack(&env).await;
    let account = "acct_payroll_default";
    let (live_key, _) = devstack::stack::seed_account(&env.store, account, "business", true)
        .await
        .unwrap();
    assert!(
        env.store
            .set_default_methods(account, &[domain::income::VerificationMethod::Payroll])
            .await
            .unwrap()
    );
    let body = json!({"tenant_email": "default.pay@example.com", "monthly_rent": 1200});
    let (id, link) = live_and_plaid::created_at(&stack.base, &live_key, body).await;
    page_at(&stack.base, "GET", &link, None).await;
    let p = page_at(&stack.base, "POST", &link, Some(CONSENT_WITH_IDENTITY)).await;
    assert_eq!(p.status, 303, "{}", p.html);

    let v = stored(&env, &id).await;
    assert_eq!(v.methods, [domain::income::VerificationMethod::Payroll]);
    let argyle_user = argyle.user_ids().pop().expect("an Argyle user");
    assert_eq!(v.provider_user.unwrap(), format!("payroll={argyle_user}"));
    assert!(stack.plaid.user_ids().is_empty(), "no Plaid Check user");
}

/// A payroll-only verification, consented, back from Argyle Link, its connection waiting: its
/// id and the tenant's Argyle user.
async fn waiting_on_payroll(
    env: &TestEnv,
    stack: &PlaidStack,
    argyle: &ArgyleEmulator,
) -> (String, String) {
    let body = json!({"tenant_email": "argyle.cases@example.com", "monthly_rent": 1200, "methods": ["payroll"]});
    let (id, link) = live_and_plaid::created_at(&stack.base, &env.live_key, body).await;
    let p = page_at(&stack.base, "POST", &link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let user = argyle.user_ids().pop().expect("an Argyle user");
    let p = page_at(&stack.base, "POST", &link, Some("action=start")).await;
    assert_eq!(p.status, 200, "{}", p.html);
    argyle.set(&user, Stage::Syncing);
    let p = page_at(&stack.base, "POST", &link, Some("action=connect")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    assert!(stored(env, &id).await.awaiting_now().is_some(), "waiting");
    (id, user)
}

/// Argyle's webhooks as https://docs.argyle.com/api-guide/webhooks signs them: only the hex
/// HMAC-SHA512 of the exact body under the subscription's secret is work. A wrong secret, a
/// changed body, no header, or a body naming another user leave the wait as it was; the good one
/// records the signal once, a replay is a duplicate, and the pay stubs are read once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn argyle_webhook_verification_cases_give_one_piece_of_work_or_a_401() {
    let env = env().await;
    let (mut stack, argyle) = two_provider_stack(&env).await;
    let (id, user) = waiting_on_payroll(&env, &stack, &argyle).await;
    let url = format!("{}/webhooks/providers/argyle", stack.base);
    let body = ArgyleEmulator::webhook_body("paystubs.fully_synced", &user);
    let sign = |secret: &str, body: &str| ArgyleWebhookVerifier::sign(secret, body.as_bytes());
    let good = sign(WEBHOOK_SECRET, &body);
    let changed = body.replace("paystubs.fully_synced", "gigs.fully_synced");
    let cases = [
        ("wrong secret", body.clone(), sign("not-the-secret", &body)),
        ("body changed", changed, good.clone()),
        ("no header", body.clone(), String::new()),
        ("not hex of the body", body.clone(), "ab".repeat(64)),
    ];
    for (case, sent, signature) in &cases {
        let status = ArgyleEmulator::post_webhook(&url, sent, signature).await;
        assert_eq!(status, Some(401), "{case}");
        let v = stored(&env, &id).await;
        assert!(
            v.awaiting_now().unwrap().signal.is_none(),
            "{case}: no work"
        );
    }
    let signalled = || async {
        stored(&env, &id)
            .await
            .awaiting_now()
            .unwrap()
            .signal
            .is_some()
    };
    // Signed, but for a user no verification of ours has; then of no concern (a partial sync:
    // the read waits for the full one). Both answered, neither any work.
    let stranger = "0187c66e-0000-4000-8000-00000000ffff";
    for (event, who) in [
        ("paystubs.fully_synced", stranger),
        ("paystubs.partially_synced", user.as_str()),
    ] {
        let sent = ArgyleEmulator::webhook_body(event, who);
        let signed = sign(WEBHOOK_SECRET, &sent);
        assert_eq!(
            ArgyleEmulator::post_webhook(&url, &sent, &signed).await,
            Some(200),
            "{event}"
        );
        assert!(!signalled().await, "{event}: no work");
    }

    argyle.set(&user, Stage::Synced);
    for _ in 0..3 {
        assert_eq!(
            ArgyleEmulator::post_webhook(&url, &body, &good).await,
            Some(200)
        );
    }
    assert!(
        signalled().await,
        "recorded once; the replays are duplicates"
    );
    stack.drain().await;
    assert_eq!(
        argyle.count(PAYSTUBS),
        2,
        "one piece of work: both pages, read once"
    );
    assert_eq!(stored(&env, &id).await.status, Status::Completed);
}

/// A gig platform's account (GigAndGo's, the emulator's only one with `availability.gigs`) is
/// read by its gigs once Argyle has them: `paystubs.fully_synced` while the gigs still sync
/// reads the accounts only, and the piece goes on the retry road; after `gigs.fully_synced`
/// (a duplicate signal: no second piece) the retry reads the gigs once, and the report counts
/// them as GigAndGo's income.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gig_platform_waits_for_its_gigs_and_the_report_counts_them() {
    let env = env().await;
    let (mut stack, argyle) = two_provider_stack(&env).await;
    let (id, user) = waiting_on_payroll(&env, &stack, &argyle).await;

    assert_eq!(argyle.settle(&user, Stage::GigsSyncing).await, Some(200));
    stack.drain().await;
    let v = stored(&env, &id).await;
    assert!(
        v.awaiting_now().is_some_and(|w| w.signal.is_some()),
        "signalled, still waiting"
    );
    assert_eq!(
        (argyle.count(GIGS), argyle.count(PAYSTUBS)),
        (0, 0),
        "the accounts only"
    );

    assert_eq!(argyle.settle(&user, Stage::Synced).await, Some(200));
    stack.drain().await;
    for _ in 0..5 {
        retry_once(&env, &stack).await;
        if stored(&env, &id).await.status == Status::Completed {
            break;
        }
    }
    assert_eq!(stored(&env, &id).await.status, Status::Completed);
    assert_eq!(argyle.count(GIGS), 1, "the gigs read once");
    let data = api_get(&env, &env.live_key, &id).await;
    let sources = data["income_report"]["income_sources"].as_array().unwrap();
    let gig = (sources.iter())
        .find(|s| s["name"] == "GigAndGo")
        .unwrap_or_else(|| panic!("{sources:?}"));
    assert_eq!(gig["income_category"], "GIG_ECONOMY", "{gig}");
    assert!(gig["monthly_income"].as_f64().unwrap() > 0.0, "{gig}");
}

/// A lost `paystubs.fully_synced` is caught by the sweep, as Plaid's lost webhook is: not read
/// while the wait is fresh, read once past `SWEEP_AFTER`, and the synced pay stubs complete it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_argyle_webhook_is_caught_by_the_sweep() {
    let env = env().await;
    let (mut stack, argyle) = two_provider_stack(&env).await;
    let (id, user) = waiting_on_payroll(&env, &stack, &argyle).await;
    argyle.set(&user, Stage::Synced); // and no webhook
    stack.drain().await;
    retry_once(&env, &stack).await;
    assert_eq!(argyle.count(PAYSTUBS), 0, "not due: the wait is fresh");
    sweep_after_31_minutes(&env, &stack, &id).await;
    assert_eq!(stored(&env, &id).await.status, Status::Completed);
    assert_eq!(argyle.count(PAYSTUBS), 2, "the sweep read both pages once");
}

/// A consent whose Plaid Check user could not be made (Plaid's documented
/// `INTERNAL_SERVER_ERROR`, https://plaid.com/docs/errors/api/) writes nothing, and the Argyle
/// user made beside it is closed, so no user is left at Argyle for a consent that did not hold.
/// The tenant agrees again, and gets one user at each provider.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consent_that_fails_at_one_provider_closes_the_user_made_at_the_other() {
    const INTERNAL_SERVER_ERROR: &str = include_str!(
        "../../../../../shared/adapters/tests/fixtures/plaid/error_internal_server_error.json"
    );
    let env = env().await;
    let (stack, argyle) = two_provider_stack(&env).await;
    let body = json!({"tenant_email": "half.consent@example.com", "monthly_rent": 1200});
    let (id, link) = live_and_plaid::created_at(&stack.base, &env.live_key, body).await;

    stack
        .plaid
        .fail_next("/user/create", 500, INTERNAL_SERVER_ERROR);
    let p = page_at(&stack.base, "POST", &link, Some(CONSENT_WITH_IDENTITY)).await;
    assert_eq!(p.status, 503, "{}", p.html);
    assert_eq!(
        stored(&env, &id).await.provider_user,
        None,
        "nothing written"
    );
    assert_eq!(argyle.count("/v2/users"), 1, "an Argyle user was made");
    assert!(argyle.user_ids().is_empty(), "and closed");

    let p = page_at(&stack.base, "POST", &link, Some(CONSENT_WITH_IDENTITY)).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let argyle_user = argyle.user_ids().pop().expect("a new Argyle user");
    let handle = stored(&env, &id).await.provider_user.unwrap();
    assert!(handle.starts_with("bank=") && handle.ends_with(&format!(";payroll={argyle_user}")));
}
