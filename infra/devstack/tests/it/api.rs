//! HTTP-level tests of the five endpoints through the local server, against DynamoDB in moto.

use crate::common;

use chrono::{DateTime, Duration, SubsecRound, Utc};
use common::{Reply, TestEnv, env};
use domain::{Mode, NewVerificationInput, Status, SubscriptionStatus, Transition, Verification};
use ports::store::prelude::*;
use serde_json::{Value, json};
mod lists_cancel_and_usage;

fn ts(raw: &Value) -> DateTime<Utc> {
    let s = raw.as_str().expect("timestamp string");
    assert!(s.ends_with('Z') && s.len() == 24, "millis and Z: {s}");
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn assert_error(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "{}", reply.raw);
    assert_eq!(reply.body["success"], false, "{}", reply.raw);
    assert_eq!(reply.body["code"], code, "{}", reply.raw);
    assert!(reply.body["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(reply.body["details"].is_array());
    assert!(
        reply.body["request_id"]
            .as_str()
            .is_some_and(|r| !r.is_empty())
    );
}

async fn create_ok(env: &TestEnv, key: &str, body: Value) -> String {
    let reply = env.create_verification(key, body).await;
    assert_eq!(reply.status, 201, "{}", reply.raw);
    reply.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_answers_the_contract_shape() {
    let env = env().await;
    // Timestamps are shown to the millisecond: a create in the same millisecond reads as before.
    let before = Utc::now().trunc_subsecs(3);
    let reply = env
        .create_verification(
            &env.live_key,
            json!({"tenant_email": "jane+good@example.com", "tenant_name": "Jane Doe", "tenant_phone": "+1 555 010 9999",
                   "property_address": "1 Main St", "monthly_rent": 1500, "webhook_url": "https://hooks.example.com/x"}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.raw);
    assert_eq!(reply.body["success"], true);
    let data = &reply.body["data"];
    let keys: Vec<&str> = data
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        vec![
            "expires_at",
            "status",
            "tenant_email",
            "verification_id",
            "verification_url"
        ]
    );
    assert_eq!(data["status"], "pending");
    assert_eq!(data["tenant_email"], "jane+good@example.com");
    let id = uuid::Uuid::parse_str(data["verification_id"].as_str().unwrap()).unwrap();
    assert_eq!(id.get_version_num(), 4);
    let url = data["verification_url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/t/{id}/", env.base)), "{url}");
    let token = url.rsplit('/').next().unwrap();
    assert!(token.len() >= 43, "at least 256 bits, base64url");
    let expires = ts(&data["expires_at"]);
    assert!(expires >= before + Duration::days(7) && expires <= Utc::now() + Duration::days(7));
    // Rate-limit headers on every authenticated response.
    assert_eq!(reply.header("x-ratelimit-limit"), Some("1000"));
    assert_eq!(reply.header("x-ratelimit-remaining"), Some("999"));
    assert!(
        reply
            .header("x-ratelimit-reset")
            .unwrap()
            .parse::<i64>()
            .unwrap()
            > Utc::now().timestamp()
    );
    // Stored: only the token's hash, never the token.
    let stored = env.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(
        stored.token_hashes,
        vec![domain::secrets::sha256_hex(token.as_bytes())]
    );
    assert_eq!(stored.mode, Mode::Live);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_rejects_bad_input_with_the_envelope() {
    let env = env().await;
    let key = Some(env.test_key.as_str());
    let r = env.call("POST", "/api/v1/verify", key, Some("{}")).await;
    assert_error(&r, 400, "validation_error");
    assert_eq!(r.body["details"][0]["field"], "tenant_email");
    assert_eq!(r.body["details"][0]["code"], "required");

    let r = env
        .call("POST", "/api/v1/verify", key, Some("{\"tenant_email\": "))
        .await;
    assert_error(&r, 400, "invalid_json");

    let r = env.call("POST", "/api/v1/verify", key, Some("[1,2]")).await;
    assert_error(&r, 400, "validation_error");

    let r = env
        .create_verification(&env.test_key, json!({"tenant_email": "secret.person@", "monthly_rent": "1500", "webhook_url": "https://10.0.0.8/hook"}))
        .await;
    assert_error(&r, 400, "validation_error");
    let fields: Vec<&str> = r.body["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, vec!["tenant_email", "monthly_rent", "webhook_url"]);
    assert!(
        !r.raw.contains("secret.person"),
        "the body never echoes an address"
    );

    let r = env
        .call_with(
            "POST",
            "/api/v1/verify",
            key,
            None,
            &[("content-type", "text/plain")],
        )
        .await;
    assert_error(&r, 415, "unsupported_media_type");

    let big =
        json!({"tenant_email": "a@example.com", "tenant_name": "x".repeat(20_000)}).to_string();
    let r = env.call("POST", "/api/v1/verify", key, Some(&big)).await;
    assert_error(&r, 413, "payload_too_large");

    let r = env
        .call_with(
            "POST",
            "/api/v1/verify",
            key,
            Some("{\"tenant_email\":\"a@example.com\"}"),
            &[("idempotency-key", "")],
        )
        .await;
    assert_error(&r, 400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_failures_are_401_with_www_authenticate() {
    let env = env().await;
    let r = env.call("GET", "/api/v1/usage", None, None).await;
    assert_error(&r, 401, "missing_api_key");
    assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
    assert!(r.header("x-ratelimit-limit").is_none());

    let r = env
        .call_with(
            "GET",
            "/api/v1/usage",
            None,
            None,
            &[("authorization", "Basic dXNlcjpwYXNz")],
        )
        .await;
    assert_error(&r, 401, "invalid_authorization");

    // A typo breaks the checksum: rejected without a lookup.
    let mut typo = env.test_key.clone();
    typo.replace_range(12..13, if &typo[12..13] == "a" { "b" } else { "a" });
    let r = env.usage(&typo).await;
    assert_error(&r, 401, "invalid_api_key");
    assert!(!r.raw.contains(&typo));

    // Well-formed but never issued: naming a real account, naming none.
    for account in [devstack::stack::DEMO_ACCOUNT, "acct_nobody"] {
        let unknown = domain::secrets::generate_api_key(account, Mode::Live)
            .unwrap()
            .secret;
        let r = env.usage(&unknown).await;
        assert_error(&r, 401, "invalid_api_key");
    }
    // A key of the demo account's test mode, presented with the live prefix: refused as well.
    let swapped = env.test_key.replacen("tiv_test_", "tiv_live_", 1);
    let r = env.usage(&swapped).await;
    assert_error(&r, 401, "invalid_api_key");

    // Revoked: refused at once, also by a function that has the key cached.
    let r = env.usage(&env.live_key).await;
    assert_eq!(r.status, 200);
    let keys = env
        .store
        .list_api_keys(devstack::stack::DEMO_ACCOUNT)
        .await
        .unwrap();
    let live = keys
        .iter()
        .find(|k| k.key_hash == domain::secrets::sha256_hex(env.live_key.as_bytes()))
        .unwrap();
    assert!(
        env.store
            .revoke_api_key(devstack::stack::DEMO_ACCOUNT, &live.key_id, Utc::now())
            .await
            .unwrap()
    );
    let r = env.usage(&env.live_key).await;
    assert_error(&r, 401, "api_key_revoked");
    // The account's other key still works.
    let r = env.usage(&env.test_key).await;
    assert_eq!(r.status, 200, "{}", r.raw);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_and_subscription_gate_the_api() {
    let env = env().await;
    let account = devstack::stack::OTHER_ACCOUNT;
    env.store
        .update_account(account, Some("starter"), None)
        .await
        .unwrap();
    let r = env.usage(&env.other_live_key).await;
    assert_error(&r, 403, "plan_without_api_access");

    env.store
        .update_account(
            account,
            Some("pro"),
            Some((SubscriptionStatus::PastDue, Utc::now() + Duration::days(3))),
        )
        .await
        .unwrap();
    let r = env.usage(&env.other_live_key).await;
    assert_error(&r, 403, "subscription_inactive");
    assert!(r.header("x-ratelimit-limit").is_some());

    env.store
        .update_account(
            account,
            None,
            Some((SubscriptionStatus::Active, Utc::now() + Duration::days(30))),
        )
        .await
        .unwrap();
    let r = env.usage(&env.other_live_key).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(r.body["data"]["plan"], "pro");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_allowance_runs_out_with_429_and_retry_after() {
    let env = env().await;
    env.store
        .update_account(devstack::stack::DEMO_ACCOUNT, Some("tiny"), None)
        .await
        .unwrap();
    for remaining in ["2", "1", "0"] {
        let r = env.usage(&env.test_key).await;
        assert_eq!(r.status, 200, "{}", r.raw);
        assert_eq!(r.header("x-ratelimit-remaining"), Some(remaining));
        assert_eq!(
            r.body["data"]["api"]["requests_remaining"].to_string(),
            remaining
        );
        assert_eq!(r.body["data"]["api"]["requests_limit"], 3);
    }
    let r = env
        .call("GET", "/api/v1/verifications", Some(&env.test_key), None)
        .await;
    assert_error(&r, 429, "rate_limit_exceeded");
    assert_eq!(r.header("x-ratelimit-remaining"), Some("0"));
    let retry: i64 = r.header("retry-after").unwrap().parse().unwrap();
    let reset: i64 = r.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert!(retry > 0 && retry <= 86_400);
    assert!((Utc::now().timestamp() + retry - reset).abs() <= 2);
    // Other accounts are not affected.
    let r = env.usage(&env.other_live_key).await;
    assert_eq!(r.status, 200);
}

/// A create carries its own metering (one transaction): at the daily allowance's edge, concurrent
/// creates are counted and create together, exactly as many as the allowance has left, and the
/// rate headers of such a create show the count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creates_at_the_daily_allowance_edge_count_and_create_together() {
    let env = env().await;
    let account = devstack::stack::OTHER_ACCOUNT;
    // `tiny` allows 3 requests a day; the first of the day starts the window.
    env.store
        .update_account(account, Some("tiny"), None)
        .await
        .unwrap();
    let r = env.usage(&env.other_test_key).await;
    assert_eq!(r.header("x-ratelimit-remaining"), Some("2"), "{}", r.raw);
    let r = env
        .create_verification(
            &env.other_test_key,
            json!({"tenant_email": "one@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.raw);
    assert_eq!(r.header("x-ratelimit-remaining"), Some("1"));
    // One request left, six creates at once: exactly one is counted and creates.
    let replies = futures::future::join_all((0..6).map(|i| {
        env.create_verification(
            &env.other_test_key,
            json!({"tenant_email": format!("edge{i}@example.com")}),
        )
    }))
    .await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    for r in replies.iter().filter(|r| r.status != 201) {
        assert_error(r, 429, "rate_limit_exceeded");
    }
    let month = domain::usage_month(Utc::now());
    let (stats, _) = env
        .store
        .owner_stats(account, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(stats.total, 2, "only counted requests created");
    let account_now = env.store.get_account(account).await.unwrap().unwrap();
    assert_eq!(account_now.api_requests, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creates_never_exceed_the_monthly_allowance() {
    let env = env().await;
    // `pro` allows 5 verifications a month in these tests; fire 12 at once.
    let attempts = (0..12).map(|i| {
        env.create_verification(
            &env.other_live_key,
            json!({"tenant_email": format!("t{i}@example.com")}),
        )
    });
    let replies = futures::future::join_all(attempts).await;
    let created = replies.iter().filter(|r| r.status == 201).count();
    let refused: Vec<&Reply> = replies.iter().filter(|r| r.status != 201).collect();
    assert_eq!(
        created,
        5,
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in &refused {
        assert_error(r, 403, "verification_limit_reached");
    }
    let usage = env.usage(&env.other_live_key).await;
    let v = &usage.body["data"]["verifications"];
    assert_eq!(
        (
            v["used_this_month"].as_u64(),
            v["limit"].as_u64(),
            v["remaining"].as_u64()
        ),
        (Some(5), Some(5), Some(0))
    );
    assert_eq!(v["total_all_time"], 5);
    // Test keys are never charged: the same account can still create test verifications.
    let r = env
        .create_verification(
            &env.other_test_key,
            json!({"tenant_email": "sandbox@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.raw);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_key_replays_the_first_response() {
    let env = env().await;
    let body = json!({"tenant_email": "idem@example.com", "monthly_rent": 900}).to_string();
    let send = |b: String| {
        let env = &env;
        async move {
            env.call_with(
                "POST",
                "/api/v1/verify",
                Some(&env.test_key),
                Some(&b),
                &[("idempotency-key", "order-42")],
            )
            .await
        }
    };
    let first = send(body.clone()).await;
    assert_eq!(first.status, 201, "{}", first.raw);
    // The same body with keys in another order is the same request.
    let again =
        send(json!({"monthly_rent": 900, "tenant_email": "idem@example.com"}).to_string()).await;
    assert_eq!(again.status, 201, "{}", again.raw);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    for field in ["verification_id", "tenant_email", "status", "expires_at"] {
        assert_eq!(
            first.body["data"][field], again.body["data"][field],
            "{field}"
        );
    }
    // Both links open the same verification (tokens are stored as hashes only).
    let id: uuid::Uuid = first.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        env.store
            .get_verification(id)
            .await
            .unwrap()
            .unwrap()
            .token_hashes
            .len(),
        2
    );

    let other = send(json!({"tenant_email": "someone.else@example.com"}).to_string()).await;
    assert_error(&other, 422, "idempotency_key_reused");

    // Concurrent duplicates: exactly one verification exists afterwards.
    let body = json!({"tenant_email": "race@example.com"}).to_string();
    let replies = futures::future::join_all((0..6).map(|_| {
        let env = &env;
        let body = body.clone();
        async move {
            env.call_with(
                "POST",
                "/api/v1/verify",
                Some(&env.test_key),
                Some(&body),
                &[("idempotency-key", "race-1")],
            )
            .await
        }
    }))
    .await;
    let ids: std::collections::HashSet<String> = replies
        .iter()
        .map(|r| {
            assert_eq!(r.status, 201, "{}", r.raw);
            r.body["data"]["verification_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids.len(), 1);
    let list = env
        .call("GET", "/api/v1/verifications", Some(&env.test_key), None)
        .await;
    assert_eq!(list.body["pagination"]["total"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_shows_tenant_property_and_no_report_until_completed() {
    let env = env().await;
    let id = create_ok(
        &env,
        &env.test_key,
        json!({"tenant_email": "g@example.com", "tenant_name": "Gia", "property_address": "2 Elm St", "monthly_rent": 1200.5}),
    )
    .await;
    let r = env.get_verification(&env.test_key, &id).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let d = &r.body["data"];
    assert_eq!(d["verification_id"], id.as_str());
    assert_eq!(d["status"], "pending");
    assert_eq!(
        d["tenant"],
        json!({"email": "g@example.com", "name": "Gia"})
    );
    assert_eq!(
        d["property"],
        json!({"address": "2 Elm St", "monthly_rent": 1200.5})
    );
    assert!(d.get("income_report").is_none());
    assert!(d["completed_at"].is_null());
    ts(&d["created_at"]);

    // Completed: the report appears.
    let v = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    use domain::income::{PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod};
    let today = Utc::now().date_naive();
    let report = domain::report::build_report(
        &ProviderIncome {
            sources: vec![ProviderIncomeSource::on_cycle(
                "Acme",
                "SALARY",
                PayFrequency::Monthly,
                today,
                12,
                |_| 4000.0,
            )],
            ..ProviderIncome::empty(VerificationMethod::Bank, today)
        },
        v.monthly_rent,
    );
    env.store
        .transition(
            &v,
            &Transition::Complete {
                report: Box::new(report),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let r = env.get_verification(&env.test_key, &id).await;
    let d = &r.body["data"];
    assert_eq!(d["status"], "completed");
    ts(&d["completed_at"]);
    let report = &d["income_report"];
    assert_eq!(report["total_monthly_income"], 4000.0);
    assert_eq!(report["rent_to_income_ratio"], 0.3001);
    assert_eq!(report["passes_3x_rule"], true);
    assert_eq!(report["income_sources"][0]["income_category"], "SALARY");
    assert_eq!(report["income_sources"][0]["pay_frequency"], "MONTHLY");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_and_cancel_hide_other_owners_and_modes() {
    let env = env().await;
    let id = create_ok(
        &env,
        &env.live_key,
        json!({"tenant_email": "mine@example.com"}),
    )
    .await;
    for key in [&env.other_live_key, &env.other_test_key, &env.test_key] {
        let r = env.get_verification(key, &id).await;
        assert_error(&r, 404, "not_found");
        let r = env.cancel_verification(key, &id).await;
        assert_error(&r, 404, "not_found");
    }
    let r = env
        .call(
            "GET",
            "/api/v1/verifications",
            Some(&env.other_live_key),
            None,
        )
        .await;
    assert_eq!(r.body["data"], json!([]));
    assert_eq!(r.body["pagination"]["total"], 0);
    let r = env
        .call("GET", "/api/v1/verifications", Some(&env.test_key), None)
        .await;
    assert_eq!(
        r.body["pagination"]["total"], 0,
        "test keys never see live data"
    );

    let r = env
        .call("GET", "/api/v1/verify", Some(&env.live_key), None)
        .await;
    assert_error(&r, 400, "validation_error");
    let r = env
        .call(
            "GET",
            "/api/v1/verify?verification_id=123",
            Some(&env.live_key),
            None,
        )
        .await;
    assert_error(&r, 400, "validation_error");
    let r = env
        .get_verification(&env.live_key, uuid::Uuid::new_v4())
        .await;
    assert_error(&r, 404, "not_found");
}
