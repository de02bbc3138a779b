//! Households end to end on moto: the allowance checked for all members at once under concurrent
//! creates, two members completing in the sandbox and `household.completed` verified with the
//! `standardwebhooks` package (member events still fire), its delivery log by `household_id` and
//! its redelivery, a member's invite SMS, the decision
//! written exactly once (eight
//! concurrent writers: `dynamo_store.rs`, on both stores), a failed decision write finished by the
//! retry queue, cancellation, usage, and isolation between accounts.

mod common;

use std::time::Duration;

use chrono::Utc;
use common::{
    Receiver, Reply, TestEnv, env, fresh_number, queue_depth, sent_emails, sent_sms,
    verify_with_standard_webhooks,
};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_retry_once, pump_sqs_once};
use serde_json::{Value, json};
use shared::adapters::dynamo::DynamoStore;
use shared::adapters::scheduler::EventBridgeScheduler;
use shared::adapters::ses::SesMailer;
use shared::adapters::sns::SnsTexter;
use shared::adapters::sqs::SqsQueue;
use shared::adapters::testing::{ArmedFaults, FaultyStore, StoreOp};
use shared::config::TestModeDelivery;
use shared::handlers::publish_events::OutboxDeps;
use shared::ports::store::prelude::*;
use shared::ports::{NoticeStore, SystemClock, WebhookSecrets};
use uuid::Uuid;

const HOUSEHOLDS: &str = "/api/v1/households";
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn household_path(id: &str) -> String {
    format!("{HOUSEHOLDS}?household_id={id}")
}

fn body(tag: &str, roles: &[&str], webhook: Option<&str>) -> String {
    let members: Vec<Value> = (roles.iter().enumerate())
        .map(|(i, role)| json!({"tenant_email": format!("{tag}.{i}+good@example.com"), "role": role}))
        .collect();
    let mut b = json!({"property_address": "2 Shared House Lane", "monthly_rent": 1800, "members": members});
    if let Some(url) = webhook {
        b["webhook_url"] = json!(url);
    }
    b.to_string()
}

async fn create(env: &TestEnv, key: &str, body: &str) -> Reply {
    env.call("POST", HOUSEHOLDS, Some(key), Some(body)).await
}

struct Rig {
    env: TestEnv,
    pump: StreamPump,
    workers: Workers,
    receiver: Receiver,
}

async fn rig() -> Rig {
    let env = env().await;
    let pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    let workers = Workers::new(
        &env.sdk,
        &env.names,
        &env.created,
        &env.base,
        vec![0],
        &env.webhook_origins,
    );
    env.store
        .put_webhook_secrets(
            devstack::stack::DEMO_ACCOUNT,
            &WebhookSecrets {
                current: Some(SECRET.into()),
                previous: None,
                previous_valid_until: None,
            },
        )
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    Rig {
        env,
        pump,
        workers,
        receiver,
    }
}

impl Rig {
    async fn drain<S: Store + NoticeStore>(
        &mut self,
        outbox: &OutboxDeps<S, SesMailer, SnsTexter, EventBridgeScheduler, SqsQueue, SystemClock>,
    ) {
        for _ in 0..30 {
            if self
                .pump
                .pump_once(outbox, &self.workers.expiry)
                .await
                .unwrap()
                == 0
            {
                return;
            }
        }
        panic!("the stream did not settle");
    }

    async fn deliver(&self) {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        for _ in 0..10 {
            let n = pump_sqs_once(
                &sqs,
                &self.env.created.webhook_queue_url,
                &self.workers.delivery,
                0,
            )
            .await
            .unwrap();
            if n == 0 {
                return;
            }
        }
    }

    /// Consents and connects a member through its own link, in the sandbox scenario `scenario`.
    async fn complete(&self, member: &Value, scenario: &str) {
        let link = member["verification_url"]
            .as_str()
            .unwrap()
            .strip_prefix(&self.env.base)
            .unwrap()
            .to_string();
        for form in [
            "action=consent&agree=yes".to_string(),
            format!("action=connect&scenario={scenario}"),
        ] {
            let resp = reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap()
                .post(format!("{}{link}", self.env.base))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status().as_u16(), 303);
        }
    }

    fn households_completed(&self) -> Vec<common::Received> {
        self.receiver
            .received()
            .into_iter()
            .filter(|r| r.body.contains("\"household.completed\""))
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_members_complete_and_household_completed_is_signed_and_sent_once() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let url = rig.receiver.url.clone();
    let created = create(
        &rig.env,
        &test,
        &body("pair", &["applicant", "applicant"], Some(&url)),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let household_id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    // Drained with a second set of workers (the rig's own are borrowed by the pump's call).
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.drain(&w.outbox).await;
    // Each member gets their own invite, once.
    for i in 0..2 {
        assert_eq!(
            sent_emails(&format!("pair.{i}+good@example.com"))
                .await
                .len(),
            1
        );
    }
    rig.complete(&members[0], "good").await;
    rig.drain(&w.outbox).await;
    let r = rig
        .env
        .call("GET", &household_path(&household_id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "open");
    assert_eq!(
        r.body["data"]["open_members"],
        json!([members[1]["verification_id"]])
    );
    rig.complete(&members[1], "good").await;
    rig.drain(&w.outbox).await;
    rig.deliver().await;

    let r = rig
        .env
        .call("GET", &household_path(&household_id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "decided", "{}", r.raw);
    let decision = &r.body["data"]["decision"];
    // Each earns 5,200.00 a month in the sandbox's `good` scenario: neither meets 3 x 1,800.00
    // alone, together they do.
    assert_eq!(decision["applicants_monthly_income"], 10400.0, "{decision}");
    assert_eq!(decision["applicants_meet_requirement"], true);
    assert_eq!(decision["meets_requirement"], true);
    assert_eq!(decision["made_without"], json!([]));
    let sent = rig.households_completed();
    assert_eq!(sent.len(), 1, "household.completed exactly once");
    verify_with_standard_webhooks(SECRET, &sent[0]);
    let payload: Value = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(payload["data"]["household_id"], household_id);
    assert_eq!(
        &payload["data"]["decision"], decision,
        "the webhook carries what GET shows"
    );
    assert_eq!(
        sent[0].header("webhook-id").unwrap(),
        format!("msg_{}_household_completed", household_id.replace('-', ""))
    );
    // The members' own events still fire.
    let member_completed = rig
        .receiver
        .received()
        .iter()
        .filter(|r| r.body.contains("\"verification.completed\""))
        .count();
    assert_eq!(member_completed, 2);

    // A repeated decision write is refused: the decision is stored once.
    let id: Uuid = household_id.parse().unwrap();
    let stored = rig.env.store.get_household(id).await.unwrap().unwrap();
    assert!(stored.decided_at.is_some());
    let again = stored.decision.clone().unwrap();
    assert!(
        !rig.env
            .store
            .record_household_decision(id, &again, Utc::now())
            .await
            .unwrap()
    );
    // Members show their household and role; the list filters by household.
    let m0 = members[0]["verification_id"].as_str().unwrap();
    let v = rig
        .env
        .call(
            "GET",
            &format!("/api/v1/verify?verification_id={m0}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(v.body["data"]["household_id"], household_id);
    assert_eq!(v.body["data"]["role"], "applicant");
    let list = rig
        .env
        .call(
            "GET",
            &format!("/api/v1/verifications?household_id={household_id}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(list.body["pagination"]["total"], 2, "{}", list.raw);
    let roles: Vec<&str> = list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["applicant", "applicant"]);
}

/// GET /api/v1/webhooks/deliveries with `query` (whose log) and the largest page.
async fn deliveries(env: &TestEnv, key: &str, query: &str) -> Reply {
    let path = format!("/api/v1/webhooks/deliveries?{query}&limit=100");
    env.call("GET", &path, Some(key), None).await
}

async fn redeliver(env: &TestEnv, key: &str, event_id: &str) -> Reply {
    let path = format!("/api/v1/webhooks/redeliver?event_id={event_id}");
    env.call("POST", &path, Some(key), None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn household_completed_is_logged_by_household_and_redelivered_to_its_owner_only() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut rig = rig().await;
    // The household's event fails its first attempt; every other delivery is accepted.
    let failed_once = Arc::new(AtomicBool::new(false));
    let respond: devstack::receiver::Respond = Arc::new(move |_, r: &common::Received| {
        let household_event = r.body.contains("\"household.completed\"");
        if household_event && !failed_once.swap(true, Ordering::SeqCst) {
            500
        } else {
            200
        }
    });
    let receiver = devstack::receiver::Receiver::start(0, "/hook", Duration::ZERO, respond)
        .await
        .unwrap();
    common::webhook_origins().allow(&receiver.origin()).unwrap();
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("logged", &["applicant", "applicant"], Some(&receiver.url)),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let household_id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.drain(&w.outbox).await;
    for member in &members {
        rig.complete(member, "good").await;
        rig.drain(&w.outbox).await;
    }
    rig.deliver().await;
    let event_id = format!("msg_{}_household_completed", household_id.replace('-', ""));
    let sent: Vec<common::Received> = (receiver.received().into_iter())
        .filter(|r| r.header("webhook-id") == Some(event_id.as_str()))
        .collect();
    assert_eq!(sent.len(), 2, "a failure, then the retry");

    // The log by household: the failure and the success, newest first.
    let by_household = format!("household_id={household_id}");
    let r = deliveries(&rig.env, &test, &by_household).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(r.body["pagination"]["total"], 2, "{}", r.raw);
    let log = r.body["data"].as_array().unwrap();
    assert!(log.iter().all(|a| a["event_id"] == event_id.as_str()
        && a["event_type"] == "household.completed"));
    let summary = |a: &Value| {
        (
            a["attempt"].clone(),
            a["outcome"].clone(),
            a["http_status"].clone(),
        )
    };
    assert_eq!(summary(&log[0]), (json!(2), json!("delivered"), json!(200)));
    assert_eq!(summary(&log[1]), (json!(1), json!("failed"), json!(500)));
    // A member's log holds its own events only.
    let member_id = members[0]["verification_id"].as_str().unwrap();
    let r = deliveries(&rig.env, &test, &format!("verification_id={member_id}")).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let member_log = r.body["data"].as_array().unwrap();
    assert!(!member_log.is_empty());
    assert!(
        member_log.iter().all(|a| a["event_type"]
            .as_str()
            .unwrap()
            .starts_with("verification.")),
        "{}",
        r.raw
    );
    // One or the other, not both.
    let both = format!("{by_household}&verification_id={member_id}");
    assert_eq!(deliveries(&rig.env, &test, &both).await.status, 400);

    // Another account's key, and the other mode's: not found, for the log and the event.
    for key in [&rig.env.other_test_key, &rig.env.live_key] {
        assert_eq!(deliveries(&rig.env, key, &by_household).await.status, 404);
        assert_eq!(redeliver(&rig.env, key, &event_id).await.status, 404);
    }

    // The owner redelivers it: the same id and body, freshly signed, verified by the library.
    let r = redeliver(&rig.env, &test, &event_id).await;
    assert_eq!(r.status, 202, "{}", r.raw);
    assert_eq!(r.body["data"]["household_id"], household_id.as_str());
    assert_eq!(r.body["data"]["event_type"], "household.completed");
    rig.drain(&w.outbox).await;
    rig.deliver().await;
    let sent: Vec<common::Received> = (receiver.received().into_iter())
        .filter(|r| r.header("webhook-id") == Some(event_id.as_str()))
        .collect();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[2].body, sent[1].body, "the same bytes");
    verify_with_standard_webhooks(SECRET, &sent[2]);
    let r = deliveries(&rig.env, &test, &by_household).await;
    assert_eq!(r.body["pagination"]["total"], 3);
    assert_eq!(
        summary(&r.body["data"][0]),
        (json!(1), json!("delivered"), json!(200))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creates_at_the_allowance_edge_never_exceed_it() {
    let env = env().await;
    // `pro` allows 5 verifications a month here; two are used, 3 remain: room for one household
    // of two, then one verification more.
    let key = env.other_live_key.clone();
    for email in ["single1@example.com", "single2@example.com"] {
        let r = env.create(&key, json!({"tenant_email": email})).await;
        assert_eq!(r.status, 201, "{}", r.raw);
    }
    let bodies: Vec<String> = (0..5)
        .map(|i| body(&format!("edge{i}"), &["applicant", "applicant"], None))
        .collect();
    let replies = futures::future::join_all(bodies.iter().map(|b| create(&env, &key, b))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let created = statuses.iter().filter(|s| **s == 201).count();
    assert_eq!(created, 1, "{statuses:?}");
    for r in replies.iter().filter(|r| r.status != 201) {
        assert_eq!(r.status, 403, "{}", r.raw);
        assert_eq!(r.body["code"], "verification_limit_reached");
    }
    // Nothing partial: exactly 2 + 2 verifications exist, and usage counts each member.
    let used = |usage: &Reply| usage.body["data"]["verifications"]["used_this_month"].clone();
    let usage = env.call("GET", "/api/v1/usage", Some(&key), None).await;
    assert_eq!(used(&usage), 4, "{}", usage.raw);
    assert_eq!(usage.body["data"]["verifications"]["remaining"], 1);
    let list = env
        .call("GET", "/api/v1/verifications", Some(&key), None)
        .await;
    assert_eq!(list.body["pagination"]["total"], 4);
    // A household larger than what is left is refused whole, though one member would fit.
    let r = create(&env, &key, &body("late", &["applicant", "guarantor"], None)).await;
    assert_eq!(r.status, 403, "{}", r.raw);
    assert_eq!(r.body["code"], "verification_limit_reached");
    let usage = env.call("GET", "/api/v1/usage", Some(&key), None).await;
    assert_eq!(used(&usage), 4, "{}", usage.raw);
    // What is left still serves a household that fits.
    let r = create(&env, &key, &body("last", &["applicant"], None)).await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let usage = env.call("GET", "/api/v1/usage", Some(&key), None).await;
    assert_eq!(used(&usage), 5, "{}", usage.raw);
    assert_eq!(usage.body["data"]["verifications"]["remaining"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_counts_each_member_and_idempotency_replays() {
    let env = env().await;
    let live = env.live_key.clone();
    let b = body("usage", &["applicant", "applicant", "guarantor"], None);
    let first = env
        .call_with(
            "POST",
            HOUSEHOLDS,
            Some(&live),
            Some(&b),
            &[("idempotency-key", "hh-9")],
        )
        .await;
    assert_eq!(first.status, 201, "{}", first.raw);
    let replay = env
        .call_with(
            "POST",
            HOUSEHOLDS,
            Some(&live),
            Some(&b),
            &[("idempotency-key", "hh-9")],
        )
        .await;
    assert_eq!(replay.status, 201);
    assert_eq!(
        replay.body["data"]["household_id"],
        first.body["data"]["household_id"]
    );
    let other = body("usage2", &["applicant"], None);
    let reused = env
        .call_with(
            "POST",
            HOUSEHOLDS,
            Some(&live),
            Some(&other),
            &[("idempotency-key", "hh-9")],
        )
        .await;
    assert_eq!(reused.status, 422);
    let usage = env.call("GET", "/api/v1/usage", Some(&live), None).await;
    assert_eq!(
        usage.body["data"]["verifications"]["used_this_month"], 3,
        "{}",
        usage.raw
    );
    // Duplicate e-mails are a 400 naming the field, and write nothing.
    let dup = r#"{"monthly_rent":900,"members":[{"tenant_email":"x@example.com","role":"applicant"},{"tenant_email":"X@Example.com","role":"applicant"}]}"#;
    let r = create(&env, &live, dup).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["details"][0]["field"], "members[1].tenant_email");
    assert_eq!(r.body["details"][0]["code"], "duplicate");
    let usage = env.call("GET", "/api/v1/usage", Some(&live), None).await;
    assert_eq!(usage.body["data"]["verifications"]["used_this_month"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_account_never_sees_a_household() {
    let env = env().await;
    let created = create(
        &env,
        &env.test_key,
        &body("iso", &["applicant", "guarantor"], None),
    )
    .await;
    let id = created.body["data"]["household_id"].as_str().unwrap();
    for method in ["GET", "DELETE"] {
        let r = env
            .call(method, &household_path(id), Some(&env.other_test_key), None)
            .await;
        assert_eq!(r.status, 404, "{method}: {}", r.raw);
        assert_eq!(r.body["code"], "not_found");
        // Nor does the same account's live key (the other mode).
        let r = env
            .call(method, &household_path(id), Some(&env.live_key), None)
            .await;
        assert_eq!(r.status, 404, "{method}");
    }
    let list = env
        .call(
            "GET",
            &format!("/api/v1/verifications?household_id={id}"),
            Some(&env.other_test_key),
            None,
        )
        .await;
    assert_eq!(
        (list.status, list.body["pagination"]["total"].clone()),
        (200, json!(0))
    );
    let own = env
        .call(
            "GET",
            &format!("/api/v1/verifications?household_id={id}"),
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(own.body["pagination"]["total"], 2);
    // Nothing was cancelled by the refused DELETE.
    let r = env
        .call("GET", &household_path(id), Some(&env.test_key), None)
        .await;
    assert_eq!(r.body["data"]["status"], "open");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_open_members_and_keeps_completed_ones() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("cancel", &["applicant", "applicant"], None),
    )
    .await;
    let id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.complete(&members[0], "good").await;
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let statuses: Vec<&str> = r.body["data"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "cancelled"]);
    // The stream cancels the open member's own item; a cancelled household is never decided.
    rig.drain(&w.outbox).await;
    let member = |i: usize| -> Uuid {
        members[i]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let stored = rig
        .env
        .store
        .get_verification(member(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status.as_str(), "expired");
    assert!(stored.cancelled_at.is_some());
    let kept = rig
        .env
        .store
        .get_verification(member(0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.status.as_str(), "completed");
    let r = rig
        .env
        .call("GET", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "cancelled", "{}", r.raw);
    assert!(r.body["data"]["decision"].is_null());
    let shown: Vec<&str> = (r.body["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["completed", "expired"]);
    // A second cancel changes nothing.
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    let statuses: Vec<&str> = r.body["data"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "expired"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_decision_write_is_finished_by_the_retry_queue() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let url = rig.receiver.url.clone();
    let created = create(
        &rig.env,
        &test,
        &body("fault", &["applicant", "applicant"], Some(&url)),
    )
    .await;
    let id: Uuid = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let faults = ArmedFaults::default();
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let faulty: OutboxDeps<
        FaultyStore<DynamoStore, ArmedFaults>,
        SesMailer,
        SnsTexter,
        EventBridgeScheduler,
        SqsQueue,
        SystemClock,
    > = OutboxDeps {
        store: FaultyStore {
            inner: rig.env.store.clone(),
            faults: faults.clone(),
        },
        mailer: SesMailer::new(
            aws_sdk_sesv2::Client::new(&rig.env.sdk),
            rig.env.names.sender.clone(),
        ),
        texter: rig.workers.outbox.texter.clone(),
        scheduler: rig.workers.outbox.scheduler.clone(),
        queue: SqsQueue::new(sqs.clone(), rig.env.created.webhook_queue_url.clone()),
        retry_queue: SqsQueue::new(sqs.clone(), rig.env.created.retry_queue_url.clone()),
        clock: SystemClock,
        public_base_url: rig.env.base.clone(),
        test_mode_delivery: TestModeDelivery::Send,
        reminder_offsets: rig.workers.outbox.reminder_offsets.clone(),
        retry_backoff: vec![0],
    };
    rig.drain(&faulty).await;
    faults.down(StoreOp::RecordHouseholdDecision);
    rig.complete(&members[0], "good").await;
    rig.complete(&members[1], "good").await;
    rig.drain(&faulty).await;
    assert!(
        rig.env
            .store
            .get_household(id)
            .await
            .unwrap()
            .unwrap()
            .decision
            .is_none()
    );
    assert!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await >= 1,
        "handed to the retry queue"
    );
    faults.restore(StoreOp::RecordHouseholdDecision);
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    for _ in 0..5 {
        if pump_retry_once(&sqs, &rig.env.created.retry_queue_url, &w.outbox, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let decided = rig.env.store.get_household(id).await.unwrap().unwrap();
    assert!(decided.decision.is_some(), "the retry stored the decision");
    rig.drain(&w.outbox).await;
    rig.deliver().await;
    assert_eq!(rig.households_completed().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_with_a_phone_gets_the_invite_sms_once() {
    let mut rig = rig().await;
    let (raw, e164) = fresh_number();
    let tag = format!("sms{}", Uuid::new_v4().simple());
    let b = json!({
        "property_address": "2 Shared House Lane", "monthly_rent": 1800,
        "members": [
            {"tenant_email": format!("{tag}.0+good@example.com"), "tenant_phone": raw, "role": "applicant"},
            {"tenant_email": format!("{tag}.1+good@example.com"), "role": "guarantor"},
        ]
    });
    let created = create(&rig.env, &rig.env.live_key.clone(), &b.to_string()).await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let ids: Vec<Uuid> = (created.body["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["verification_id"].as_str().unwrap().parse().unwrap())
        .collect();
    // publish-events, as deployed (e-mail, webhooks, SMS and schedules); twice, as a redelivered
    // batch would be.
    for _ in 0..2 {
        for _ in 0..20 {
            let handed = (rig.pump)
                .pump_once(&rig.workers.outbox, &rig.workers.expiry)
                .await
                .unwrap();
            if handed == 0 {
                break;
            }
        }
    }
    let texts = sent_sms(&e164).await;
    assert_eq!(
        texts.len(),
        1,
        "the member with a phone is texted once: {texts:?}"
    );
    assert!(texts[0].contains("2 Shared House Lane"), "{}", texts[0]);
    assert!(
        texts[0].contains(&format!("/t/{}/", ids[0])),
        "their own link"
    );
    let with_phone = rig
        .env
        .store
        .get_verification(ids[0])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(with_phone.sms_phone.as_deref(), Some(e164.as_str()));
    let without = rig
        .env
        .store
        .get_verification(ids[1])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(without.sms_phone, None, "no phone, no SMS");
    for i in 0..2 {
        assert_eq!(
            sent_emails(&format!("{tag}.{i}+good@example.com"))
                .await
                .len(),
            1,
            "each member is still e-mailed"
        );
    }
}

/// A member's link (path after the base).
fn link_of(env: &TestEnv, member: &Value) -> String {
    (member["verification_url"].as_str().unwrap())
        .strip_prefix(&env.base)
        .unwrap()
        .to_string()
}

/// A tenant form post on the member's page: its status and body.
async fn tenant_post(env: &TestEnv, link: &str, form: &str) -> (u16, String) {
    let resp = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(format!("{}{link}", env.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

fn member_id(member: &Value) -> Uuid {
    member["verification_id"].as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cancel_is_one_write_on_the_household_and_no_tenant_step_succeeds_after_it() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("one", &["applicant", "applicant"], None),
    )
    .await;
    let id: Uuid = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.drain(&w.outbox).await;
    let link = link_of(&rig.env, &members[0]);
    let (status, _) = tenant_post(&rig.env, &link, "action=consent&agree=yes").await;
    assert_eq!(status, 303);
    let usage = |r: &Reply| {
        r.header("x-ratelimit-remaining")
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    let r = rig
        .env
        .call(
            "DELETE",
            &household_path(&id.to_string()),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let after_cancel = usage(&r);
    // The one transaction wrote the household (and the count) only: the members are still open
    // in their own items until the stream applies the cancel.
    let household = rig.env.store.get_household(id).await.unwrap().unwrap();
    assert!(household.cancelled_at.is_some());
    for (m, open) in members.iter().zip(["in_progress", "pending"]) {
        let v = rig
            .env
            .store
            .get_verification(member_id(m))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.status.as_str(), open);
    }
    // The tenant's next step is refused in its own transaction and shows the cancelled page.
    let (status, page) = tenant_post(&rig.env, &link, "action=connect&scenario=good").await;
    assert_eq!(status, 410, "the closed page: {page}");
    assert!(page.contains("This request was cancelled"), "{page}");
    let (_, page) = tenant_post(
        &rig.env,
        &link_of(&rig.env, &members[1]),
        "action=consent&agree=yes",
    )
    .await;
    assert!(page.contains("This request was cancelled"), "{page}");
    let v = rig
        .env
        .store
        .get_verification(member_id(&members[0]))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        v.status.as_str(),
        "in_progress",
        "the refused step wrote nothing"
    );
    // GET shows the household and its open members cancelled at once.
    let r = rig
        .env
        .call("GET", &household_path(&id.to_string()), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "cancelled", "{}", r.raw);
    assert_eq!(usage(&r), after_cancel - 1, "each request counted once");
    // The stream cancels both members' own items.
    rig.drain(&w.outbox).await;
    for m in &members {
        let v = rig
            .env
            .store
            .get_verification(member_id(m))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.status.as_str(), "expired");
        assert_eq!(v.cancelled_at, household.cancelled_at);
    }
}

/// A cancel that reaches a household after every member has closed but before the outbox stored
/// its decision (the stream lags the members by a moment) changes nothing: the household is
/// still decided, once, and `household.completed` is still sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_after_every_member_closed_keeps_the_decision() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(&rig.env, &test, &body("closedfirst", &["applicant"], None)).await;
    let id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.complete(&members[0], "good").await;
    // Not drained yet: no decision stored when the landlord cancels.
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(
        r.body["data"]["members"][0]["status"], "completed",
        "{}",
        r.raw
    );
    rig.drain(&w.outbox).await;
    let household = rig
        .env
        .store
        .get_household(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(household.cancelled_at.is_some());
    assert!(household.decision.is_some(), "decided as if not cancelled");
    let r = rig
        .env
        .call("GET", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "decided", "{}", r.raw);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_step_racing_the_cancel_either_lands_before_it_or_is_refused() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    let mut outcomes = vec![];
    for round in 0..4 {
        let created = create(
            &rig.env,
            &test,
            &body(&format!("race{round}"), &["applicant"], None),
        )
        .await;
        let id = created.body["data"]["household_id"]
            .as_str()
            .unwrap()
            .to_string();
        let member = created.body["data"]["members"][0].clone();
        let link = link_of(&rig.env, &member);
        let (status, _) = tenant_post(&rig.env, &link, "action=consent&agree=yes").await;
        assert_eq!(status, 303);
        let path = household_path(&id);
        let (tenant, cancel) = tokio::join!(
            tenant_post(&rig.env, &link, "action=connect&scenario=good"),
            rig.env.call("DELETE", &path, Some(&test), None)
        );
        assert_eq!(cancel.status, 200, "{}", cancel.raw);
        rig.drain(&w.outbox).await;
        let v = rig
            .env
            .store
            .get_verification(member_id(&member))
            .await
            .unwrap()
            .unwrap();
        let household = rig
            .env
            .store
            .get_household(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        if tenant.0 == 303 {
            // The tenant's step landed first: the member stays completed with its report, and
            // the cancel, which found every member closed, changed nothing: the household is
            // decided. The two timestamps do not order the writes (each is its request's start),
            // so they are not compared.
            assert_eq!(v.status.as_str(), "completed", "round {round}");
            assert!(v.cancelled_at.is_none());
            assert!(v.income_report.is_some());
            assert!(household.decision.is_some(), "round {round}");
        } else {
            // The cancel landed first: the step was refused and the member is cancelled.
            assert!(
                tenant.1.contains("This request was cancelled"),
                "round {round}: {}",
                tenant.1
            );
            assert_eq!(v.status.as_str(), "expired", "round {round}");
            assert!(v.cancelled_at.is_some());
            assert!(v.income_report.is_none());
        }
        outcomes.push(tenant.0);
    }
    println!("tenant step outcomes: {outcomes:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_member_cancel_in_the_stream_is_retried_until_every_member_is_cancelled() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("sfault", &["applicant", "guarantor"], None),
    )
    .await;
    let id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let faults = ArmedFaults::default();
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let faulty: OutboxDeps<
        FaultyStore<DynamoStore, ArmedFaults>,
        SesMailer,
        SnsTexter,
        EventBridgeScheduler,
        SqsQueue,
        SystemClock,
    > = OutboxDeps {
        store: FaultyStore {
            inner: rig.env.store.clone(),
            faults: faults.clone(),
        },
        mailer: SesMailer::new(
            aws_sdk_sesv2::Client::new(&rig.env.sdk),
            rig.env.names.sender.clone(),
        ),
        texter: rig.workers.outbox.texter.clone(),
        scheduler: rig.workers.outbox.scheduler.clone(),
        queue: SqsQueue::new(sqs.clone(), rig.env.created.webhook_queue_url.clone()),
        retry_queue: SqsQueue::new(sqs.clone(), rig.env.created.retry_queue_url.clone()),
        clock: SystemClock,
        public_base_url: rig.env.base.clone(),
        test_mode_delivery: TestModeDelivery::Send,
        reminder_offsets: rig.workers.outbox.reminder_offsets.clone(),
        retry_backoff: vec![0],
    };
    rig.drain(&faulty).await;
    let queued_before = queue_depth(&rig.env, &rig.env.created.retry_queue_url).await;
    faults.down(StoreOp::CancelOpen);
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    rig.drain(&faulty).await;
    for m in &members {
        let v = rig
            .env
            .store
            .get_verification(member_id(m))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.status.as_str(), "pending", "the stream's cancel failed");
    }
    assert!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await > queued_before,
        "not acknowledged as done: handed to the retry queue"
    );
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    faults.restore(StoreOp::CancelOpen);
    for _ in 0..5 {
        if pump_retry_once(&sqs, &rig.env.created.retry_queue_url, &w.outbox, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    for m in &members {
        let v = rig
            .env
            .store
            .get_verification(member_id(m))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.status.as_str(), "expired", "the retry cancelled it");
        assert!(v.cancelled_at.is_some());
    }
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await,
        0
    );
}
