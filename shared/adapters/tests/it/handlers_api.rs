//! The API handlers against the in-memory store: authentication, validation, a failing store,
//! transitions and races, in milliseconds and without moto. The same behaviours on the real wire
//! are covered by `infra/devstack/tests/it/api.rs`.

use crate::support::{body, now, plan, settings_with};
use chrono::Duration;
use domain::plans::Plans;
use domain::report::IncomeReport;
use domain::secrets::{GeneratedKey, account_key_from_random};
use domain::webhook::WebhookMessage;
use domain::webhook_log::StoredWebhookEvent;
use domain::{ApiKeyRecord, Mode, Status, Transition};
use ports::StoreError;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::config::Settings;
use service::handlers::api::ApiDeps;
use service::handlers::cancel_verification::cancel_verification;
use service::handlers::create_verification::create_verification;
use service::handlers::get_verification::get_verification;
use service::handlers::redeliver_webhook::redeliver_webhook;
use service::http::{ApiRequest, ApiResponse};
use test_support::{
    ArmedFaults, FaultPlan, FaultyStore, ManualClock, MemoryStore, StoreOp, active_account,
};
use uuid::Uuid;

pub(crate) const ACCOUNT: &str = "acct_memory";

fn settings() -> Settings {
    settings_with(Plans::new(vec![plan("pro", 5, 1000), plan("tiny", 100, 2)]))
}

pub(crate) struct Keys {
    pub(crate) live: GeneratedKey,
    pub(crate) test: GeneratedKey,
}

/// An account on `plan` with a key per mode.
async fn seed<S: Store>(store: &S, plan: &str) -> Keys {
    seed_account(store, active_account(ACCOUNT, plan, now())).await
}

/// `account` with a key per mode.
async fn seed_account<S: Store>(store: &S, account: domain::Account) -> Keys {
    store.put_account(&account).await.unwrap();
    let key = |mode, random: &str| account_key_from_random(ACCOUNT, mode, random).unwrap();
    let keys = Keys {
        live: key(Mode::Live, "MemoryLiveKeyHandlerTests00001"),
        test: key(Mode::Test, "MemoryTestKeyHandlerTests00001"),
    };
    for (mode, key) in [(Mode::Live, &keys.live), (Mode::Test, &keys.test)] {
        store
            .put_api_key(&ApiKeyRecord {
                key_id: key.key_id.clone(),
                key_hash: key.hash.clone(),
                account_id: ACCOUNT.into(),
                mode,
                display_prefix: key.display_prefix.clone(),
                created_at: now(),
                revoked_at: None,
            })
            .await
            .unwrap();
    }
    keys
}

pub(crate) async fn deps_with<S: Store>(store: S, plan: &str) -> (ApiDeps<S, ManualClock>, Keys) {
    let keys = seed(&store, plan).await;
    (
        ApiDeps::new(store, ManualClock::at(now()), settings()),
        keys,
    )
}

/// A create request without credentials.
fn anonymous_post(body: &Value) -> ApiRequest {
    ApiRequest::new(http::Method::POST, "/api/v1/verify")
        .with_header("content-type", "application/json")
        .with_body(body.to_string())
}

fn post(key: &str, body: &Value) -> ApiRequest {
    anonymous_post(body).with_header("authorization", &format!("Bearer {key}"))
}

pub(crate) fn with_id(method: http::Method, key: &str, id: &str) -> ApiRequest {
    ApiRequest::new(method, &format!("/api/v1/verify?verification_id={id}"))
        .with_header("authorization", &format!("Bearer {key}"))
}

/// Status and `code` of an error answer.
pub(crate) fn refusal(response: &ApiResponse) -> (u16, String) {
    let body = body(response);
    assert_eq!(body["success"], false, "{body}");
    (
        response.status,
        body["code"].as_str().unwrap_or("").to_string(),
    )
}

fn tenant() -> Value {
    json!({ "tenant_email": "tenant@example.com", "tenant_name": "Tess Tenant" })
}

pub(crate) async fn created_id<S: Store>(deps: &ApiDeps<S, ManualClock>, key: &str) -> Uuid {
    let response = create_verification(deps, post(key, &tenant())).await;
    assert_eq!(response.status, 201, "{}", response.body);
    body(&response)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn every_authentication_failure_is_a_401_with_its_code() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let bare = anonymous_post(&tenant());
    let basic = anonymous_post(&tenant()).with_header("authorization", "Basic dXNlcjpwdw==");
    let malformed = post("tiv_test_short", &tenant());
    let unknown = post(
        &account_key_from_random(ACCOUNT, Mode::Test, "NobodysKeyHandlerTests00000001")
            .unwrap()
            .secret,
        &tenant(),
    );
    for (request, code) in [
        (bare, "missing_api_key"),
        (basic, "invalid_authorization"),
        (malformed, "invalid_api_key"),
        (unknown, "invalid_api_key"),
    ] {
        let response = create_verification(&deps, request).await;
        assert_eq!(refusal(&response), (401, code.to_string()));
    }
    // A key revoked after it was used (and cached) is refused by the metering write.
    assert_eq!(created_status(&deps, &keys.test.secret).await, 201);
    let key_id = keys.test.key_id.clone();
    assert!(
        deps.store
            .revoke_api_key(ACCOUNT, &key_id, now())
            .await
            .unwrap()
    );
    let response = create_verification(&deps, post(&keys.test.secret, &tenant())).await;
    assert_eq!(refusal(&response), (401, "api_key_revoked".into()));
    // And a fresh process, without the cache, refuses it from the key record.
    let cold = ApiDeps::new(deps.store.clone(), ManualClock::at(now()), settings());
    let response = create_verification(&cold, post(&keys.test.secret, &tenant())).await;
    assert_eq!(refusal(&response), (401, "api_key_revoked".into()));
    // The other key of the account still works.
    assert_eq!(created_status(&deps, &keys.live.secret).await, 201);
}

async fn created_status<S: Store>(deps: &ApiDeps<S, ManualClock>, key: &str) -> u16 {
    create_verification(deps, post(key, &tenant())).await.status
}

#[tokio::test]
async fn validation_errors_are_400_with_field_details() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let response = create_verification(&deps, post(key, &json!({}))).await;
    assert_eq!(refusal(&response), (400, "validation_error".into()));
    let details = &body(&response)["details"];
    assert_eq!(details[0]["field"], "tenant_email", "{details}");
    assert_eq!(details[0]["code"], "required", "{details}");

    let bad = json!({ "tenant_email": "not-an-address", "monthly_rent": -5 });
    let response = create_verification(&deps, post(key, &bad)).await;
    assert_eq!(refusal(&response), (400, "validation_error".into()));
    let fields: Vec<String> = body(&response)["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap().to_string())
        .collect();
    assert!(fields.contains(&"tenant_email".to_string()), "{fields:?}");
    assert!(fields.contains(&"monthly_rent".to_string()), "{fields:?}");

    let request = post(key, &tenant()).with_body("{not json");
    let response = create_verification(&deps, request).await;
    assert_eq!(refusal(&response), (400, "invalid_json".into()));

    let request = with_id(http::Method::GET, key, "not-a-uuid");
    let response = get_verification(&deps, request).await;
    assert_eq!(response.status, 400, "{}", response.body);
}

#[tokio::test]
async fn a_store_error_is_the_enveloped_500_without_its_text() {
    let faults = ArmedFaults::default();
    let store = FaultyStore {
        inner: MemoryStore::new(),
        faults: faults.clone(),
    };
    let (deps, keys) = deps_with(store, "pro").await;
    // The create that carries its own metering; then a replay of an Idempotency-Key, which the
    // one write refuses with the key's record: the first verification's read, then its new link.
    let replayed =
        || post(&keys.live.secret, &tenant()).with_header("idempotency-key", "replayed-create-1");
    assert_eq!(create_verification(&deps, replayed()).await.status, 201);
    for (op, request) in [
        (StoreOp::MeterAndCreate, post(&keys.test.secret, &tenant())),
        (StoreOp::MeterAndCreate, replayed()),
        (StoreOp::GetVerification, replayed()),
        (StoreOp::AddRecentLinkToken, replayed()),
    ] {
        faults.arm(op, 1);
        let request_id = request.request_id.clone();
        let response = create_verification(&deps, request).await;
        assert_eq!(refusal(&response), (500, "internal_error".into()), "{op:?}");
        let body = body(&response);
        assert_eq!(body["request_id"], request_id.as_str());
        assert!(!response.body.contains("injected"), "{}", response.body);
    }
    // Once the store is back, the same requests go through (the replay answers the first 201).
    assert_eq!(created_status(&deps, &keys.test.secret).await, 201);
    assert_eq!(create_verification(&deps, replayed()).await.status, 201);
}

/// The armed operations answer as the store does when concurrent writes outlast its retries.
#[derive(Clone, Default)]
struct Contended(ArmedFaults);

impl FaultPlan for Contended {
    fn check(&self, op: StoreOp) -> Result<(), StoreError> {
        self.0.check(op).map_err(|_| StoreError::Busy)
    }
}

#[tokio::test]
async fn contention_outlasting_the_retries_is_an_enveloped_503_busy_that_changes_nothing() {
    let faults = Contended::default();
    let store = FaultyStore {
        inner: MemoryStore::new(),
        faults: faults.clone(),
    };
    let (deps, keys) = deps_with(store, "pro").await;
    let id = created_id(&deps, &keys.test.secret).await;
    let before = deps.store.get_account(ACCOUNT).await.unwrap().unwrap();
    // The writes carrying their own metering, and the metering write of the usual way.
    for (op, request) in [
        (StoreOp::MeterAndCreate, post(&keys.test.secret, &tenant())),
        (
            StoreOp::MeterApiRequest,
            with_id(http::Method::GET, &keys.test.secret, &id.to_string()),
        ),
        (
            StoreOp::MeterAndCancel,
            with_id(http::Method::DELETE, &keys.test.secret, &id.to_string()),
        ),
    ] {
        faults.0.arm(op, u32::MAX);
        let request_id = request.request_id.clone();
        let response = match op {
            StoreOp::MeterAndCreate => create_verification(&deps, request).await,
            StoreOp::MeterApiRequest => get_verification(&deps, request).await,
            _ => cancel_verification(&deps, request).await,
        };
        faults.0.restore(op);
        assert_eq!(refusal(&response), (503, "busy".into()), "{op:?}");
        assert_eq!(response.header("retry-after"), Some("1"), "{op:?}");
        let body = body(&response);
        assert_eq!(body["success"], false);
        assert_eq!(body["request_id"], request_id.as_str());
    }
    // Nothing was counted, created or cancelled.
    let after = deps.store.get_account(ACCOUNT).await.unwrap().unwrap();
    assert_eq!(after.api_requests, before.api_requests);
    let month = domain::usage_month(now());
    let (stats, _) = deps
        .store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!((stats.total, stats.open), (1, 1));
    let (live, _) = deps
        .store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!(live.total, 0);
}

#[tokio::test]
async fn a_store_failure_while_checking_a_redeliverys_owner_is_a_500_not_a_404() {
    let faults = ArmedFaults::default();
    let store = FaultyStore {
        inner: MemoryStore::new(),
        faults: faults.clone(),
    };
    let (deps, keys) = deps_with(store, "pro").await;
    let mut with_hook = tenant();
    with_hook["webhook_url"] = json!("https://hooks.example.com/x");
    let response = create_verification(&deps, post(&keys.test.secret, &with_hook)).await;
    assert_eq!(response.status, 201, "{}", response.body);
    let id: Uuid = body(&response)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let message = WebhookMessage {
        webhook_id: format!("msg_{}_completed", id.simple()),
        account_id: ACCOUNT.into(),
        url: "https://hooks.example.com/x".into(),
        body: json!({"type": "verification.completed", "timestamp": "t", "data": {"verification_id": id}})
            .to_string(),
    };
    let event = StoredWebhookEvent::of(&message, now()).unwrap();
    deps.store.put_webhook_event(&event).await.unwrap();
    let redeliver = |key: &str| {
        ApiRequest::new(
            http::Method::POST,
            &format!("/api/v1/webhooks/redeliver?event_id={}", message.webhook_id),
        )
        .with_header("authorization", &format!("Bearer {key}"))
    };
    // The live key: the one write checks the verification's mode. When that write fails, it is
    // a store failure (500), not an event that is not the caller's.
    faults.arm(StoreOp::MeterAndRedeliver, 1);
    let response = redeliver_webhook(&deps, redeliver(&keys.live.secret)).await;
    assert_eq!(refusal(&response), (500, "internal_error".into()));
    assert!(!response.body.contains("injected"), "{}", response.body);
    // The store back: the other mode's event is not found; the owner's key queues it.
    let response = redeliver_webhook(&deps, redeliver(&keys.live.secret)).await;
    assert_eq!(refusal(&response), (404, "not_found".into()));
    let response = redeliver_webhook(&deps, redeliver(&keys.test.secret)).await;
    assert_eq!(response.status, 202, "{}", response.body);
    assert_eq!(body(&response)["data"]["verification_id"], json!(id));
    let stored = deps.store.get_webhook_event(&message.webhook_id).await;
    assert_eq!(stored.unwrap().map(|e| e.redeliveries), Some(1));
}

#[tokio::test]
async fn cancel_moves_an_open_verification_once() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await.to_string();
    let response = cancel_verification(&deps, with_id(http::Method::DELETE, key, &id)).await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(body(&response)["data"]["status"], "cancelled");
    let response = cancel_verification(&deps, with_id(http::Method::DELETE, key, &id)).await;
    assert_eq!(
        refusal(&response),
        (400, "verification_not_cancellable".into())
    );
    let response = get_verification(&deps, with_id(http::Method::GET, key, &id)).await;
    // A cancelled verification reads as expired (it carries `cancelled_at`).
    assert_eq!(
        body(&response)["data"]["status"],
        "expired",
        "{}",
        response.body
    );
    // Another account's verification, or another mode's, does not exist for this key.
    let live = &keys.live.secret;
    let response = cancel_verification(&deps, with_id(http::Method::DELETE, live, &id)).await;
    assert_eq!(refusal(&response), (404, "not_found".into()));
}

/// Completes the verification the moment the handler is about to write its cancel (the one write
/// that carries the metering, or the transition after the read): the tenant's completion wins the
/// race with the cancel's conditional write.
struct CompletionWinsRace {
    store: MemoryStore,
}

impl FaultPlan for CompletionWinsRace {
    fn check(&self, op: StoreOp) -> Result<(), StoreError> {
        if op == StoreOp::Transition || op == StoreOp::MeterAndCancel {
            let open = self
                .store
                .verifications()
                .into_iter()
                .filter(|v| v.status.is_open());
            for v in open {
                let report = IncomeReport::empty_for_tests();
                let completed = Transition::Complete {
                    report: Box::new(report),
                }
                .apply(&v, now());
                self.store.insert_verification(&completed);
            }
        }
        Ok(())
    }
}

#[tokio::test]
async fn cancel_racing_completion_answers_with_the_completed_state() {
    let memory = MemoryStore::new();
    let store = FaultyStore {
        inner: memory.clone(),
        faults: CompletionWinsRace {
            store: memory.clone(),
        },
    };
    let (deps, keys) = deps_with(store, "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    let response =
        cancel_verification(&deps, with_id(http::Method::DELETE, key, &id.to_string())).await;
    assert_eq!(
        refusal(&response),
        (400, "verification_not_cancellable".into())
    );
    assert!(response.body.contains("completed"), "{}", response.body);
    let stored = memory.verification(id).unwrap();
    assert_eq!(stored.status, Status::Completed);
    assert!(stored.cancelled_at.is_none());
}

#[tokio::test]
async fn concurrent_creates_at_the_allowance_edge_create_exactly_the_allowance() {
    // Plan pro: 5 live verifications a month (test ones are never charged).
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    for _ in 0..3 {
        assert_eq!(created_status(&deps, &keys.live.secret).await, 201);
    }
    let racing = (0..6).map(|_| create_verification(&deps, post(&keys.live.secret, &tenant())));
    let responses = futures::future::join_all(racing).await;
    let created = responses.iter().filter(|r| r.status == 201).count();
    let refused: Vec<_> = responses.iter().filter(|r| r.status != 201).collect();
    assert_eq!(created, 2);
    for response in refused {
        assert_eq!(
            refusal(response),
            (403, "verification_limit_reached".into())
        );
    }
    let (stats, month) = deps
        .store
        .owner_stats(ACCOUNT, Mode::Live, "2026-03")
        .await
        .unwrap();
    assert_eq!((stats.total, stats.open, month.created), (5, 5, 5));
    // Test mode is not charged.
    assert_eq!(created_status(&deps, &keys.test.secret).await, 201);
}

#[tokio::test]
async fn concurrent_live_creates_on_cold_instances_at_the_monthly_edge_create_exactly_the_allowance()
 {
    // Plan pro: 5 live verifications a month. Each create runs on its own fresh instance, which
    // knows no plan: the write that counts the request checks the plan's allowance itself.
    let store = MemoryStore::new();
    let keys = seed(&store, "pro").await;
    let cold = || ApiDeps::new(store.clone(), ManualClock::at(now()), settings());
    for _ in 0..3 {
        let response = create_verification(&cold(), post(&keys.live.secret, &tenant())).await;
        assert_eq!(response.status, 201, "{}", response.body);
    }
    let instances: Vec<_> = (0..6).map(|_| cold()).collect();
    let racing = (instances.iter())
        .map(|deps| create_verification(deps, post(&keys.live.secret, &tenant())));
    let responses = futures::future::join_all(racing).await;
    let created = responses.iter().filter(|r| r.status == 201).count();
    assert_eq!(created, 2);
    for response in responses.iter().filter(|r| r.status != 201) {
        assert_eq!(
            refusal(response),
            (403, "verification_limit_reached".into())
        );
    }
    let (stats, month) = store
        .owner_stats(ACCOUNT, Mode::Live, "2026-03")
        .await
        .unwrap();
    assert_eq!((stats.total, month.created), (5, 5));
}

#[tokio::test]
async fn the_daily_api_allowance_refuses_with_429_and_resets_next_day() {
    // Plan tiny: 2 API requests a day.
    let (deps, keys) = deps_with(MemoryStore::new(), "tiny").await;
    let key = &keys.test.secret;
    assert_eq!(created_status(&deps, key).await, 201);
    assert_eq!(created_status(&deps, key).await, 201);
    let response = create_verification(&deps, post(key, &tenant())).await;
    assert_eq!(refusal(&response), (429, "rate_limit_exceeded".into()));
    assert_eq!(response.header("x-ratelimit-remaining"), Some("0"));
    deps.clock.advance(Duration::days(1));
    assert_eq!(created_status(&deps, key).await, 201);
}

#[tokio::test]
async fn a_keys_burst_refuses_it_with_429_and_retry_after_while_the_day_has_room() {
    // Plan burst: 3 requests at once per key, then one a second; 1,000 a day.
    let mut burst = plan("burst", 50, 1000);
    burst.key_burst = domain::KeyBurst {
        requests: 3,
        per_second: 1,
    };
    let store = MemoryStore::new();
    let keys = seed(&store, "burst").await;
    let deps = ApiDeps::new(
        store,
        ManualClock::at(now()),
        settings_with(Plans::new(vec![burst])),
    );
    let id = Uuid::new_v4().to_string();
    let read = |key: &str| with_id(http::Method::GET, key, &id);
    for _ in 0..3 {
        let response = get_verification(&deps, read(&keys.test.secret)).await;
        assert_eq!(response.status, 404, "{}", response.body);
    }
    let response = get_verification(&deps, read(&keys.test.secret)).await;
    assert_eq!(refusal(&response), (429, "rate_limit_exceeded".into()));
    assert_eq!(response.header("retry-after"), Some("1"));
    assert!(
        body(&response)["error"]
            .as_str()
            .unwrap()
            .contains("this API key")
    );
    // The day has room (the refused request is not counted), and the account's other key
    // isn't held back.
    assert_eq!(response.header("x-ratelimit-remaining"), Some("997"));
    let other = get_verification(&deps, read(&keys.live.secret)).await;
    assert_eq!(other.status, 404, "{}", other.body);
    deps.clock.advance(Duration::seconds(1));
    let again = get_verification(&deps, read(&keys.test.secret)).await;
    assert_eq!(again.status, 404, "{}", again.body);
}

#[tokio::test]
async fn an_idempotency_key_replays_its_verification_and_refuses_another_body() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let request = || post(key, &tenant()).with_header("idempotency-key", "order-1");
    let first = create_verification(&deps, request()).await;
    let again = create_verification(&deps, request()).await;
    assert_eq!(first.status, 201, "{}", first.body);
    assert!(again.status < 300, "{}", again.body);
    let id = |r: &ApiResponse| body(r)["data"]["verification_id"].clone();
    assert_eq!(id(&first), id(&again));
    let other = json!({ "tenant_email": "someone.else@example.com" });
    let conflicting = post(key, &other).with_header("idempotency-key", "order-1");
    let response = create_verification(&deps, conflicting).await;
    assert_eq!(refusal(&response), (422, "idempotency_key_reused".into()));
}

#[tokio::test]
async fn rent_terms_are_validated_stored_and_shown_and_bound_to_the_idempotency_key() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    for (body, field, code) in [
        (
            json!({"tenant_email": "t@example.com", "rent_subsidy_monthly": 300}),
            "rent_subsidy_monthly",
            "requires_monthly_rent",
        ),
        (
            json!({"tenant_email": "t@example.com", "monthly_rent": 900, "rent_subsidy_monthly": 1200}),
            "rent_subsidy_monthly",
            "out_of_range",
        ),
        (
            json!({"tenant_email": "t@example.com", "income_multiple": 0.5}),
            "income_multiple",
            "out_of_range",
        ),
        (
            json!({"tenant_email": "t@example.com", "income_multiple": "3x"}),
            "income_multiple",
            "invalid_type",
        ),
    ] {
        let response = create_verification(&deps, post(key, &body)).await;
        assert_eq!(
            refusal(&response),
            (400, "validation_error".into()),
            "{body}"
        );
        let detail = &self::body(&response)["details"][0];
        assert_eq!(
            (detail["field"].as_str(), detail["code"].as_str()),
            (Some(field), Some(code))
        );
        // The message names the field, never the value sent.
        assert!(!response.body.contains("1200") && !response.body.contains("3x"));
    }

    let voucher = json!({"tenant_email": "t@example.com", "monthly_rent": 1400, "rent_subsidy_monthly": 1000.004, "income_multiple": 2.5});
    let request = || post(key, &voucher).with_header("idempotency-key", "voucher-1");
    let created = create_verification(&deps, request()).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id: Uuid = body(&created)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let stored = deps.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.rent_subsidy_monthly, Some(1000.0));
    assert_eq!(stored.income_multiple, Some(2.5));
    let shown = get_verification(&deps, with_id(http::Method::GET, key, &id.to_string())).await;
    let data = &body(&shown)["data"];
    assert_eq!(data["property"]["rent_subsidy_monthly"], 1000.0);
    assert_eq!(data["income_multiple"], 2.5);
    // Same key, same body: the same verification; a different subsidy is another body.
    let again = create_verification(&deps, request()).await;
    assert_eq!(body(&again)["data"]["verification_id"], id.to_string());
    let other = json!({"tenant_email": "t@example.com", "monthly_rent": 1400, "rent_subsidy_monthly": 900, "income_multiple": 2.5});
    let response = create_verification(
        &deps,
        post(key, &other).with_header("idempotency-key", "voucher-1"),
    )
    .await;
    assert_eq!(refusal(&response), (422, "idempotency_key_reused".into()));
}

#[tokio::test]
async fn a_create_names_its_methods_and_unknown_or_unavailable_ones_are_named_back() {
    let mut settings = settings();
    settings.live_income = service::config::LiveIncome::of(&[service::config::Provider::Argyle]);
    let store = MemoryStore::new();
    let keys = seed(&store, "pro").await;
    let deps = ApiDeps::new(store, ManualClock::at(now()), settings.clone());
    let with_methods = |methods: Value| {
        let mut b = tenant();
        b["methods"] = methods;
        b
    };

    // Live keys here have payroll (Argyle); the order is kept, a repeat dropped.
    let response = create_verification(
        &deps,
        post(
            &keys.live.secret,
            &with_methods(json!(["payroll", "payroll"])),
        ),
    )
    .await;
    assert_eq!(response.status, 201, "{}", response.body);
    let id = body(&response)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = get_verification(&deps, with_id(http::Method::GET, &keys.live.secret, &id)).await;
    assert_eq!(body(&shown)["data"]["methods"], json!(["payroll"]));

    // Without `methods` nothing is stored, and GET shows none (the defaults apply).
    let id = created_id(&deps, &keys.test.secret).await.to_string();
    let shown = get_verification(&deps, with_id(http::Method::GET, &keys.test.secret, &id)).await;
    assert!(body(&shown)["data"].get("methods").is_none());

    for (key, methods, code, named) in [
        (
            &keys.live.secret,
            json!(["bank", "crypto"]),
            "unknown_method",
            "crypto",
        ),
        (
            &keys.live.secret,
            json!(["bank"]),
            "unavailable_method",
            "bank",
        ),
        (
            &keys.test.secret,
            json!(["payroll", "document"]),
            "unavailable_method",
            "document",
        ),
        (
            &keys.live.secret,
            json!(["document"]),
            "unavailable_method",
            "document",
        ),
        (&keys.live.secret, json!([]), "invalid_type", "methods"),
        (&keys.live.secret, json!("bank"), "invalid_type", "methods"),
        (&keys.live.secret, json!([1]), "invalid_type", "methods"),
    ] {
        let response = create_verification(&deps, post(key, &with_methods(methods.clone()))).await;
        assert_eq!(
            refusal(&response),
            (400, "validation_error".into()),
            "{methods}"
        );
        let detail = &body(&response)["details"][0];
        assert_eq!(detail["field"], "methods", "{methods}");
        assert_eq!(detail["code"], code, "{methods}");
        assert!(
            detail["message"].as_str().unwrap().contains(named),
            "{methods}: {detail}"
        );
    }
    // A stack with a documents bucket offers uploads to both kinds of key.
    let mut with_bucket = settings;
    with_bucket.documents = true;
    let store = MemoryStore::new();
    let keys = seed(&store, "pro").await;
    let deps = ApiDeps::new(store, ManualClock::at(now()), with_bucket);
    for (key, methods) in [
        (&keys.test.secret, json!(["payroll", "document"])),
        (&keys.live.secret, json!(["document", "payroll"])),
    ] {
        let response = create_verification(&deps, post(key, &with_methods(methods.clone()))).await;
        assert_eq!(response.status, 201, "{methods}: {}", response.body);
        let id = body(&response)["data"]["verification_id"]
            .as_str()
            .unwrap()
            .to_string();
        let shown = get_verification(&deps, with_id(http::Method::GET, key, &id)).await;
        assert_eq!(body(&shown)["data"]["methods"], methods);
    }
}

#[tokio::test]
async fn a_number_of_a_country_sms_may_not_reach_is_a_400_naming_tenant_phone() {
    let store = MemoryStore::new();
    let (deps, keys) = deps_with(store.clone(), "pro").await;
    let key = &keys.live.secret;
    let with_phone = |phone: &str| {
        let mut body = tenant();
        body["tenant_phone"] = json!(phone);
        body
    };
    // The UK has its own code; Jamaica and the Dominican Republic share +1 with the US.
    for phone in ["+44 20 7946 0958", "+1 876 555 0123", "+1 (809) 555-0123"] {
        let response = create_verification(&deps, post(key, &with_phone(phone))).await;
        assert_eq!(
            refusal(&response),
            (400, "validation_error".into()),
            "{phone}"
        );
        let e = body(&response);
        assert_eq!(e["details"][0]["field"], "tenant_phone", "{e}");
        assert_eq!(e["details"][0]["code"], "country_not_allowed", "{e}");
        let message = e["error"].as_str().unwrap();
        assert!(
            message.contains("US, CA"),
            "the countries allowed: {message}"
        );
        let digits = phone.replace(|c: char| !c.is_ascii_digit(), "");
        assert!(
            !response.body.contains(&digits[digits.len() - 7..]),
            "no number echoed"
        );
    }
    assert!(
        store.verifications().is_empty(),
        "nothing written for a 400"
    );
    // A US and a Canadian number are texted; no valid number at all still goes by e-mail.
    for (phone, sms) in [
        ("(415) 555-2671", Some("+14155552671")),
        ("+1 416 555 0123", Some("+14165550123")),
        ("000-000-0000", None),
    ] {
        let response = create_verification(&deps, post(key, &with_phone(phone))).await;
        assert_eq!(response.status, 201, "{phone}: {}", response.body);
        let id: Uuid = body(&response)["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let stored = store.get_verification(id).await.unwrap().unwrap();
        assert_eq!(stored.sms_phone.as_deref(), sms, "{phone}");
    }
}

/// `GET /api/v1/usage`'s `sms` for `key`.
async fn sms_of(deps: &ApiDeps<MemoryStore, ManualClock>, key: &str) -> Value {
    let request = ApiRequest::new(http::Method::GET, "/api/v1/usage")
        .with_header("authorization", &format!("Bearer {key}"));
    let response = service::handlers::get_usage::get_usage(deps, request).await;
    assert_eq!(response.status, 200, "{}", response.body);
    body(&response)["data"]["sms"].clone()
}

#[tokio::test]
async fn usage_reports_the_months_sms_against_the_plans_allowance() {
    let mut texting = plan("pro", 5, 1000);
    texting.sms_per_month = 10;
    let settings = settings_with(Plans::new(vec![texting]));
    let fresh = MemoryStore::new();
    let keys = seed(&fresh, "pro").await;
    let deps = ApiDeps::new(fresh, ManualClock::at(now()), settings.clone());
    assert_eq!(
        sms_of(&deps, &keys.live.secret).await,
        json!({"used_this_month": 0, "limit": 10, "remaining": 10})
    );
    // Seven texts this month, counted on the account: both keys see the account's figures.
    let mut account = active_account(ACCOUNT, "pro", now());
    account.sms_month = domain::sms::sms_month(now());
    account.sms_sent = 7;
    let store = MemoryStore::new();
    let keys = seed_account(&store, account).await;
    let deps = ApiDeps::new(store.clone(), ManualClock::at(now()), settings.clone());
    for key in [&keys.live.secret, &keys.test.secret] {
        assert_eq!(
            sms_of(&deps, key).await,
            json!({"used_this_month": 7, "limit": 10, "remaining": 3})
        );
    }
    // Last month's count is no count this month.
    let next_month = ApiDeps::new(store, ManualClock::at(now() + Duration::days(31)), settings);
    assert_eq!(
        sms_of(&next_month, &keys.live.secret).await["used_this_month"],
        0
    );
}
