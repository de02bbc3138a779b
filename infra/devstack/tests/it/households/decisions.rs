//! A household decided through its members, its webhook, delivery log, allowance, usage and owner scoping.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn two_members_complete_and_household_completed_is_signed_and_sent_once() {
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
    let v = rig.env.get_verification(&test, &m0).await;
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
pub(super) async fn deliveries(env: &TestEnv, key: &str, query: &str) -> Reply {
    let path = format!("/api/v1/webhooks/deliveries?{query}&limit=100");
    env.call("GET", &path, Some(key), None).await
}

pub(super) async fn redeliver(env: &TestEnv, key: &str, event_id: &str) -> Reply {
    let path = format!("/api/v1/webhooks/redeliver?event_id={event_id}");
    env.call("POST", &path, Some(key), None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn household_completed_is_logged_by_household_and_redelivered_to_its_owner_only() {
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
pub(super) async fn concurrent_creates_at_the_allowance_edge_never_exceed_it() {
    let env = env().await;
    // `pro` allows 5 verifications a month here; two are used, 3 remain: room for one household
    // of two, then one verification more.
    let key = env.other_live_key.clone();
    for email in ["single1@example.com", "single2@example.com"] {
        let r = env
            .create_verification(&key, json!({"tenant_email": email}))
            .await;
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
    let usage = env.usage(&key).await;
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
    let usage = env.usage(&key).await;
    assert_eq!(used(&usage), 4, "{}", usage.raw);
    // What is left still serves a household that fits.
    let r = create(&env, &key, &body("last", &["applicant"], None)).await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let usage = env.usage(&key).await;
    assert_eq!(used(&usage), 5, "{}", usage.raw);
    assert_eq!(usage.body["data"]["verifications"]["remaining"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn usage_counts_each_member_and_idempotency_replays() {
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
    let usage = env.usage(&live).await;
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
    let usage = env.usage(&live).await;
    assert_eq!(usage.body["data"]["verifications"]["used_this_month"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn another_account_never_sees_a_household() {
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
