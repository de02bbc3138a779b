//! The critical path of every API request to DynamoDB (issue 14): how many DynamoDB round trips
//! follow one another, on a cold instance (fresh `ApiDeps`: no cache) and a warm one (its second
//! request), against DynamoDB in moto.
//!
//! A client interceptor numbers the moment each call starts and the moment it finishes (once per
//! call, however many attempts the SDK makes) from one shared sequence; a call that was sent before another one's answer arrived ran beside
//! it. The longest chain of calls each sent after the previous one's answer is the number of
//! sequential round trips (as `infra/bench`'s proxy counts them). Nothing here measures time.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use adapters::dynamo::DynamoStore;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use common::{TestEnv, env};
use domain::webhook::WebhookMessage;
use domain::webhook_log::{AttemptOutcome, DeliveryAttempt, StoredWebhookEvent, WebhookSubject};
use domain::{Mode, Transition, VERIFICATION_LIFETIME};
use ports::Clock;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::handlers::api::ApiDeps;
use service::handlers::cancel_verification::cancel_verification;
use service::handlers::create_verification::create_verification;
use service::handlers::get_report::get_report;
use service::handlers::get_usage::get_usage;
use service::handlers::get_verification::get_verification;
use service::handlers::households;
use service::handlers::list_verifications::list_verifications;
use service::handlers::list_webhook_deliveries::list_webhook_deliveries;
use service::handlers::redeliver_webhook::redeliver_webhook;
use service::handlers::resend_verification::resend_verification;
use service::handlers::review_documents::review_documents;
use service::http::{ApiRequest, ApiResponse};
use test_support::ManualClock;

/// Each DynamoDB call as (sent, answered) on one logical sequence.
#[derive(Debug, Default)]
struct Calls {
    clock: AtomicU64,
    open: Mutex<Vec<u64>>,
    /// (sent, answered, operation) of each answered call.
    done: Mutex<Vec<(u64, u64, String)>>,
}

#[derive(Debug, Clone, Default)]
struct RoundTrips(Arc<Calls>);

impl Intercept for RoundTrips {
    fn name(&self) -> &'static str {
        "RoundTrips"
    }

    // Per operation, not per attempt: a call is "sent" when its future first runs and "answered"
    // when it finishes. A transient retry inside one call (a slow, shared emulator) is not a
    // round trip of the design, and a call two futures start together is sent before either
    // finishes, whatever the scheduler does before the wire.
    fn read_before_execution(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let sent = self.0.clock.fetch_add(1, Ordering::SeqCst);
        cfg.interceptor_state().store_put(Sent(sent));
        self.0.open.lock().unwrap().push(sent);
        Ok(())
    }

    fn read_after_execution(
        &self,
        _context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let answered = self.0.clock.fetch_add(1, Ordering::SeqCst);
        if let Some(Sent(sent)) = cfg.load::<Sent>().cloned() {
            let operation = cfg
                .load::<aws_smithy_runtime_api::client::orchestrator::Metadata>()
                .map_or("?", |m| m.name())
                .to_string();
            self.0.open.lock().unwrap().retain(|s| *s != sent);
            self.0
                .done
                .lock()
                .unwrap()
                .push((sent, answered, operation));
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Sent(u64);

impl aws_smithy_types::config_bag::Storable for Sent {
    type Storer = aws_smithy_types::config_bag::StoreReplace<Self>;
}

impl RoundTrips {
    /// (calls, sequential round trips, the calls as `operation sent-answered`) since the last
    /// call: the calls say which chain a count that differs from the expected one came from.
    fn take(&self) -> (usize, usize, String) {
        assert!(
            self.0.open.lock().unwrap().is_empty(),
            "a call is unanswered"
        );
        let mut calls = std::mem::take(&mut *self.0.done.lock().unwrap());
        calls.sort();
        let mut depth = vec![0usize; calls.len()];
        for i in 0..calls.len() {
            depth[i] = 1
                + (0..i)
                    .filter(|&j| calls[j].1 < calls[i].0)
                    .map(|j| depth[j])
                    .max()
                    .unwrap_or(0);
        }
        let trace = calls
            .iter()
            .map(|(sent, answered, op)| format!("{op} {sent}-{answered}"))
            .collect::<Vec<_>>()
            .join(", ");
        (calls.len(), depth.into_iter().max().unwrap_or(0), trace)
    }
}

/// A fresh instance (no caches) over the test's table, with a counting client.
fn instance(env: &TestEnv, counter: &RoundTrips) -> ApiDeps<DynamoStore, ManualClock> {
    let conf = aws_sdk_dynamodb::config::Builder::from(&env.sdk)
        .interceptor(counter.clone())
        .build();
    let store = DynamoStore::new(
        aws_sdk_dynamodb::Client::from_conf(conf),
        env.names.table.clone(),
    );
    let settings = service::config::Settings {
        plans: common::small_plans(),
        ..devstack::local_settings(&env.names.table, &env.base, VERIFICATION_LIFETIME)
    };
    ApiDeps::new(store, ManualClock::at(chrono::Utc::now()), settings)
}

fn request(method: http::Method, path: &str, key: &str) -> ApiRequest {
    ApiRequest::new(method, path).with_header("authorization", &format!("Bearer {key}"))
}

fn create_request(key: &str, email: &str) -> ApiRequest {
    let mut req = request(http::Method::POST, "/api/v1/verify", key)
        .with_header("content-type", "application/json");
    req.body = json!({ "tenant_email": email }).to_string().into_bytes();
    req
}

fn review_request(key: &str, id: &str) -> ApiRequest {
    let path = format!("/api/v1/verify/review?verification_id={id}");
    let mut req =
        request(http::Method::POST, &path, key).with_header("content-type", "application/json");
    req.body = json!({"decision": "accepted", "note": "Checked with the employer."})
        .to_string()
        .into_bytes();
    req
}

fn cancel_household<'a>(
    deps: &'a ApiDeps<DynamoStore, ManualClock>,
    key: &str,
    id: &str,
) -> impl std::future::Future<Output = ApiResponse> + 'a {
    let path = format!("/api/v1/households?household_id={id}");
    households::cancel_household(deps, request(http::Method::DELETE, &path, key))
}

fn household_request(key: &str, tag: &str) -> ApiRequest {
    let mut req = request(http::Method::POST, "/api/v1/households", key)
        .with_header("content-type", "application/json");
    req.body = json!({
        "property_address": "2 Shared House Lane",
        "monthly_rent": 1800,
        "members": [
            { "tenant_email": format!("{tag}.a@example.com"), "role": "applicant" },
            { "tenant_email": format!("{tag}.b@example.com"), "role": "applicant" },
        ],
    })
    .to_string()
    .into_bytes();
    req
}

fn json_of(resp: &ApiResponse) -> Value {
    serde_json::from_str(&resp.body).unwrap_or(Value::Null)
}

/// Round trips of `name`'s request on a fresh instance, then of the same kind of request on that
/// now warm instance, each checked for its status.
struct Measured {
    name: &'static str,
    cold: usize,
    warm: usize,
    /// The calls of both requests, for a count that differs from the expected one.
    calls: String,
}

macro_rules! measure {
    ($env:expr, $counter:expr, $name:expr, $status:expr, $call:expr) => {{
        let deps = instance($env, $counter);
        let mut trips = Vec::new();
        let mut calls = Vec::new();
        for round in 0..2usize {
            let resp: ApiResponse = $call(&deps, round).await;
            assert_eq!(resp.status, $status, "{} ({round}): {}", $name, resp.body);
            let (_, depth, trace) = $counter.take();
            trips.push(depth);
            calls.push(trace);
        }
        Measured {
            name: $name,
            cold: trips[0],
            warm: trips[1],
            calls: calls.join(" | "),
        }
    }};
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_api_request_is_two_sequential_round_trips_cold_and_warm() {
    let env = env().await;
    devstack::stack::seed_fixtures(&env.store).await.unwrap();
    let key = env.test_key.as_str();
    let counter = RoundTrips::default();
    // Verifications to cancel, made by another instance (the first request of a UTC day is
    // `the_first_request_of_a_utc_day_is_one_sequential_round_trip`).
    let setup = instance(&env, &counter);
    let mut pending = Vec::new();
    for n in 0..2 {
        let resp =
            create_verification(&setup, create_request(key, &format!("rt{n}@example.com"))).await;
        assert_eq!(resp.status, 201, "{}", resp.body);
        pending.push(
            json_of(&resp)["data"]["verification_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // Two the tenant has started.
    let mut started = Vec::new();
    for n in 0..2 {
        let resp =
            create_verification(&setup, create_request(key, &format!("st{n}@example.com"))).await;
        assert_eq!(resp.status, 201, "{}", resp.body);
        let id: uuid::Uuid = json_of(&resp)["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let v = env.store.get_verification(id).await.unwrap().unwrap();
        env.store
            .transition(&v, &Transition::Start, chrono::Utc::now())
            .await
            .unwrap();
        started.push(id.to_string());
    }
    // Four households, each with a member pending and one in progress; the third member is
    // pending in the first two and completed in the last two.
    let mut households = Vec::new();
    for n in 0..4 {
        let members: Vec<Value> = (0..3)
            .map(|i| json!({"tenant_email": format!("hh{n}.{i}@example.com"), "role": "applicant"}))
            .collect();
        let mut req = request(http::Method::POST, "/api/v1/households", key)
            .with_header("content-type", "application/json");
        req.body = json!({"monthly_rent": 1800, "members": members})
            .to_string()
            .into_bytes();
        let resp = households::create_household(&setup, req).await;
        assert_eq!(resp.status, 201, "{}", resp.body);
        let body = json_of(&resp);
        let ids: Vec<uuid::Uuid> = (body["data"]["members"].as_array().unwrap().iter())
            .map(|m| m["verification_id"].as_str().unwrap().parse().unwrap())
            .collect();
        let complete = Transition::Complete {
            report: Box::new(domain::report::IncomeReport::empty_for_tests()),
        };
        let third = match n {
            0 | 1 => vec![],
            _ => vec![Transition::Start, complete],
        };
        for (id, transitions) in ids.iter().zip([vec![], vec![Transition::Start], third]) {
            for t in transitions {
                let v = env.store.get_verification(*id).await.unwrap().unwrap();
                env.store
                    .transition(&v, &t, chrono::Utc::now())
                    .await
                    .unwrap();
            }
        }
        households.push(body["data"]["household_id"].as_str().unwrap().to_string());
    }
    // Two verifications completed from documents, for the review.
    let mut reviewable = Vec::new();
    for n in 0..2 {
        let email = format!("rv{n}@example.com");
        let resp = create_verification(&setup, create_request(key, &email)).await;
        assert_eq!(resp.status, 201, "{}", resp.body);
        let id: uuid::Uuid = json_of(&resp)["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let mut report = domain::report::IncomeReport::empty_for_tests();
        report.documents = Some(vec![]);
        let complete = Transition::Complete {
            report: Box::new(report),
        };
        for t in [Transition::Start, complete] {
            let v = env.store.get_verification(id).await.unwrap().unwrap();
            env.store
                .transition(&v, &t, chrono::Utc::now())
                .await
                .unwrap();
        }
        reviewable.push(id.to_string());
    }
    counter.take();
    let completed = devstack::stack::FIXTURE_COMPLETED;
    // For the endpoints of issues 12 and 13: a verification to resend, a delivery attempt logged
    // and an event archived for the completed one, and a household.
    let resp = create_verification(&setup, create_request(key, "resend@example.com")).await;
    assert_eq!(resp.status, 201, "{}", resp.body);
    let to_resend = json_of(&resp)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let completed_id: uuid::Uuid = completed.parse().unwrap();
    let attempt = DeliveryAttempt {
        event_id: format!("msg_{}_completed", completed_id.simple()),
        event_type: "verification.completed".into(),
        subject: WebhookSubject::Verification(completed_id),
        attempt: 1,
        attempted_at: chrono::Utc::now(),
        outcome: AttemptOutcome::Delivered,
        http_status: Some(200),
        error: None,
        duration_ms: 12,
        final_attempt: false,
    };
    env.store
        .record_delivery_attempt(devstack::stack::DEMO_ACCOUNT, &attempt)
        .await
        .unwrap();
    let message = WebhookMessage {
        webhook_id: attempt.event_id.clone(),
        account_id: devstack::stack::DEMO_ACCOUNT.into(),
        url: "https://hooks.example.com/round-trips".into(),
        body: json!({
            "type": "verification.completed",
            "timestamp": "2026-11-25T00:00:00Z",
            "data": { "verification_id": completed_id },
        })
        .to_string(),
    };
    env.store
        .put_webhook_event(&StoredWebhookEvent::of(&message, chrono::Utc::now()).unwrap())
        .await
        .unwrap();
    let mut household = request(http::Method::POST, "/api/v1/households", key)
        .with_header("content-type", "application/json");
    household.body = json!({
        "property_address": "1 Round Trip Road",
        "monthly_rent": 1500,
        "members": [
            { "tenant_email": "hh0@example.com", "role": "applicant" },
            { "tenant_email": "hh1@example.com", "role": "guarantor" },
        ],
    })
    .to_string()
    .into_bytes();
    let resp = households::create_household(&setup, household).await;
    assert_eq!(resp.status, 201, "{}", resp.body);
    let household_id = json_of(&resp)["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let member_to_resend = json_of(&resp)["data"]["members"][0]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    counter.take();
    let get = |path: String| request(http::Method::GET, &path, key);

    let measured = [
        measure!(&env, &counter, "create-verification", 201, |deps, n| {
            create_verification(deps, create_request(key, &format!("new{n}@example.com")))
        }),
        // A live key: its monthly allowance is the account's plan's, checked on the account item
        // in the same condition as the plan, so a cold instance needs not know the plan.
        measure!(
            &env,
            &counter,
            "create-verification, live key",
            201,
            |deps, n| {
                create_verification(
                    deps,
                    create_request(&env.live_key, &format!("live{n}@example.com")),
                )
            }
        ),
        measure!(&env, &counter, "create-household", 201, |deps, n| {
            service::handlers::households::create_household(
                deps,
                household_request(key, &format!("hh{n}")),
            )
        }),
        measure!(
            &env,
            &counter,
            "create-household, live key",
            201,
            |deps, n| {
                service::handlers::households::create_household(
                    deps,
                    household_request(&env.live_key, &format!("livehh{n}")),
                )
            }
        ),
        measure!(&env, &counter, "get-verification", 200, |deps, _| {
            get_verification(
                deps,
                get(format!("/api/v1/verify?verification_id={completed}")),
            )
        }),
        measure!(
            &env,
            &counter,
            "cancel-verification",
            200,
            |deps, n: usize| {
                let id = pending[n].clone();
                cancel_verification(
                    deps,
                    request(
                        http::Method::DELETE,
                        &format!("/api/v1/verify?verification_id={id}"),
                        key,
                    ),
                )
            }
        ),
        // One in progress: the same one write (its condition accepts either open status, and
        // both are counted in the one `open` counter, so it need not know which).
        measure!(
            &env,
            &counter,
            "cancel-verification, in progress",
            200,
            |deps, n: usize| {
                let id = started[n].clone();
                cancel_verification(
                    deps,
                    request(
                        http::Method::DELETE,
                        &format!("/api/v1/verify?verification_id={id}"),
                        key,
                    ),
                )
            }
        ),
        // Refused (a completed one): the one write says no, with the verification as its
        // condition saw it (which tells why); the request is then counted alone.
        measure!(
            &env,
            &counter,
            "cancel-verification, completed",
            400,
            |deps, _| {
                cancel_verification(
                    deps,
                    request(
                        http::Method::DELETE,
                        &format!("/api/v1/verify?verification_id={completed}"),
                        key,
                    ),
                )
            }
        ),
        // One transaction, no read: the count, the household's `cancelled_at` and the cancel of
        // each member its id names.
        measure!(&env, &counter, "cancel-household", 200, |deps, n: usize| {
            cancel_household(deps, key, &households[n])
        }),
        // The first write refuses (the completed member's condition) uncounted; the second names
        // the open members alone.
        measure!(
            &env,
            &counter,
            "cancel-household, a member completed",
            200,
            |deps, n: usize| cancel_household(deps, key, &households[2 + n])
        ),
        measure!(&env, &counter, "list-verifications", 200, |deps, _| {
            list_verifications(deps, get("/api/v1/verifications".into()))
        }),
        // Filters whose `total` needs COUNTs (open ones past expiry, in-progress ones): capped
        // at `COUNT_CAP` items each, they run beside the metering write too.
        measure!(
            &env,
            &counter,
            "list-verifications, pending",
            200,
            |deps, _| {
                list_verifications(deps, get("/api/v1/verifications?status=pending".into()))
            }
        ),
        measure!(
            &env,
            &counter,
            "list-verifications, in_progress",
            200,
            |deps, _| {
                list_verifications(deps, get("/api/v1/verifications?status=in_progress".into()))
            }
        ),
        measure!(
            &env,
            &counter,
            "list-verifications, expired",
            200,
            |deps, _| {
                list_verifications(deps, get("/api/v1/verifications?status=expired".into()))
            }
        ),
        // Past the first 100 items a page's cost grows with its offset: it follows the write.
        measure!(
            &env,
            &counter,
            "list-verifications, offset 100",
            200,
            |deps, _| { list_verifications(deps, get("/api/v1/verifications?offset=100".into()),) }
        ),
        // A household's members: the household and one bounded Query of its members (at most
        // seven items) beside the metering write.
        measure!(
            &env,
            &counter,
            "list-verifications, household",
            200,
            |deps, _| {
                list_verifications(
                    deps,
                    get(format!("/api/v1/verifications?household_id={household_id}")),
                )
            }
        ),
        measure!(&env, &counter, "get-usage", 200, |deps, _| {
            get_usage(deps, get("/api/v1/usage".into()))
        }),
        measure!(&env, &counter, "get-report", 200, |deps, _| {
            get_report(
                deps,
                get(format!("/api/v1/verify/report?verification_id={completed}")),
            )
        }),
        // Twice the same verification: the day's second resend is one write too.
        measure!(&env, &counter, "resend-verification", 202, |deps, _| {
            resend_verification(
                deps,
                request(
                    http::Method::POST,
                    &format!("/api/v1/verify/resend?verification_id={to_resend}"),
                    key,
                ),
            )
        }),
        // A household member's: the same one write as any verification's.
        measure!(
            &env,
            &counter,
            "resend-verification, household member",
            202,
            |deps, _| {
                resend_verification(
                    deps,
                    request(
                        http::Method::POST,
                        &format!("/api/v1/verify/resend?verification_id={member_to_resend}"),
                        key,
                    ),
                )
            }
        ),
        measure!(&env, &counter, "list-webhook-deliveries", 200, |deps, _| {
            list_webhook_deliveries(
                deps,
                get(format!(
                    "/api/v1/webhooks/deliveries?verification_id={completed}"
                )),
            )
        }),
        measure!(&env, &counter, "redeliver-webhook", 202, |deps, _| {
            redeliver_webhook(
                deps,
                request(
                    http::Method::POST,
                    &format!("/api/v1/webhooks/redeliver?event_id={}", message.webhook_id),
                    key,
                ),
            )
        }),
        // Refused: the one write refuses with the event and the subject its id names as its
        // conditions saw them, which say why (404; 409 for a verification without webhook_url,
        // which never had events); the request is then counted alone.
        measure!(
            &env,
            &counter,
            "redeliver-webhook, unknown event",
            404,
            |deps, _| {
                let unknown = uuid::Uuid::new_v4().simple();
                redeliver_webhook(
                    deps,
                    request(
                        http::Method::POST,
                        &format!("/api/v1/webhooks/redeliver?event_id=msg_{unknown}_completed"),
                        key,
                    ),
                )
            }
        ),
        measure!(
            &env,
            &counter,
            "redeliver-webhook, no webhook_url",
            409,
            |deps, _| {
                let id: uuid::Uuid = to_resend.parse().unwrap();
                redeliver_webhook(
                    deps,
                    request(
                        http::Method::POST,
                        &format!(
                            "/api/v1/webhooks/redeliver?event_id=msg_{}_completed",
                            id.simple()
                        ),
                        key,
                    ),
                )
            }
        ),
        measure!(&env, &counter, "get-household", 200, |deps, _| {
            households::get_household(
                deps,
                get(format!("/api/v1/households?household_id={household_id}")),
            )
        }),
        // A second review of the same report is refused with the verification as the condition
        // saw it, then counted alone.
        measure!(&env, &counter, "review-documents", 200, |deps, n: usize| {
            review_documents(deps, review_request(key, &reviewable[n]))
        }),
        measure!(
            &env,
            &counter,
            "review-documents, reviewed",
            409,
            |deps, _| { review_documents(deps, review_request(key, &reviewable[0]),) }
        ),
    ];
    let table: Vec<String> = measured
        .iter()
        .map(|m| format!("{}: cold {}, warm {} ({})", m.name, m.cold, m.warm, m.calls))
        .collect();
    println!("sequential DynamoDB round trips\n{}", table.join("\n"));
    // What holds today: two round trips for every read and for a create (a verification or a
    // household, test or live), cold and warm. Every key names its account, so none is looked
    // up: one BatchGetItem reads the account (its keys, plan and subscription, which no API
    // function may write) and its usage, then the one write counts the request. A cancel of an
    // open verification (pending or in progress) is one transaction with its count after that
    // read; a refused one is one more (the transaction refuses with the items its conditions
    // saw, which say why, then the request is counted alone on the usage read beside it). A
    // household's cancel is one transaction with its count and the cancels of the members its id
    // names; a member completed before it makes that transaction refuse uncounted, and a second
    // round names the others. A resend and a redelivery request are one transaction with their
    // count; the delivery log (short) and a household with its members are read beside the
    // metering read. A review reads the verification first: an acceptance computes the report
    // again from its documents, and the transaction is conditioned on the report's revision as
    // read.
    let expected = [
        ("create-verification", 2, 2),
        ("create-verification, live key", 2, 2),
        ("create-household", 2, 2),
        ("create-household, live key", 2, 2),
        ("get-verification", 2, 2),
        ("cancel-verification", 2, 2),
        ("cancel-verification, in progress", 2, 2),
        ("cancel-verification, completed", 3, 3),
        ("cancel-household", 2, 2),
        ("cancel-household, a member completed", 4, 4),
        ("list-verifications", 2, 2),
        ("list-verifications, pending", 2, 2),
        ("list-verifications, in_progress", 2, 2),
        ("list-verifications, expired", 2, 2),
        ("list-verifications, offset 100", 3, 3),
        ("list-verifications, household", 2, 2),
        ("get-usage", 2, 2),
        ("get-report", 2, 2),
        ("resend-verification", 2, 2),
        ("resend-verification, household member", 2, 2),
        ("list-webhook-deliveries", 2, 2),
        ("redeliver-webhook", 2, 2),
        ("redeliver-webhook, unknown event", 3, 3),
        ("redeliver-webhook, no webhook_url", 3, 3),
        ("get-household", 2, 2),
        ("review-documents", 3, 3),
        ("review-documents, reviewed", 4, 4),
    ];
    let got: Vec<(&str, usize, usize)> =
        measured.iter().map(|m| (m.name, m.cold, m.warm)).collect();
    assert_eq!(got, expected, "{}", table.join("; "));
}

// After `measure!`: a macro is in scope only below its definition.
mod refusals_and_new_days;
