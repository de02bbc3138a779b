//! The household endpoints against `infra/openapi.yaml`: create (201, replay, 400, 413, 415, 422),
//! get (open, decided), cancel, the members' own views and the list filter, and the
//! `household.completed` webhook after both members complete through the tenant page (the
//! guarantor carrying the applicant to yes).

use super::*;

pub(super) const API_HOUSEHOLDS: &str = "/api/v1/households";

pub(super) fn household_path(id: &str) -> String {
    format!("{API_HOUSEHOLDS}?household_id={id}")
}

/// A valid two-applicant body (the calls of `every_operation`).
pub(super) fn two_applicants(tag: &str) -> String {
    json!({"monthly_rent": 1800, "members": [
        {"tenant_email": format!("{tag}.a@example.com"), "role": "applicant"},
        {"tenant_email": format!("{tag}.b@example.com"), "role": "applicant"}]})
    .to_string()
}

async fn post(rec: &mut Recorder, env: &TestEnv, label: &str, key: &str, body: &str) -> Reply {
    let r = env
        .call("POST", API_HOUSEHOLDS, Some(key), Some(body))
        .await;
    rec.op(label, "POST", API_HOUSEHOLDS, &r);
    r
}

pub(super) async fn drive_households(rec: &mut Recorder) {
    let env = env().await;
    let ttl = TtlDeletions::default();
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, ttl)
        .await
        .unwrap();
    let workers = env.workers();
    env.secrets
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
    let test = env.test_key.clone();

    // Both earn 5,200.00 (sandbox `good`): below the applicant's 3 x 1,800.00, enough for the
    // guarantor's 2 x 1,800.00.
    let body = json!({"property_address": "2 Shared House Lane", "monthly_rent": 1800,
        "webhook_url": receiver.url, "guarantor_multiple": 2,
        "members": [
            {"tenant_email": "hh.alex+good@example.com", "tenant_name": "Alex", "role": "applicant"},
            {"tenant_email": "hh.gus+good@example.com", "role": "guarantor", "tenant_phone": "+1 555 010 7777"}]})
    .to_string();
    let created = env
        .call_with(
            "POST",
            API_HOUSEHOLDS,
            Some(&test),
            Some(&body),
            &[("idempotency-key", "house-1")],
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    rec.op("household create", "POST", API_HOUSEHOLDS, &created);
    let replay = env
        .call_with(
            "POST",
            API_HOUSEHOLDS,
            Some(&test),
            Some(&body),
            &[("idempotency-key", "house-1")],
        )
        .await;
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    rec.op("household replay", "POST", API_HOUSEHOLDS, &replay);
    let other_body = two_applicants("reuse");
    let reused = env
        .call_with(
            "POST",
            API_HOUSEHOLDS,
            Some(&test),
            Some(&other_body),
            &[("idempotency-key", "house-1")],
        )
        .await;
    assert_eq!(reused.status, 422, "{}", reused.raw);
    rec.op("household key reused", "POST", API_HOUSEHOLDS, &reused);

    for (label, raw) in [
        (
            "household duplicate e-mails",
            r#"{"monthly_rent":900,"members":[{"tenant_email":"A@example.com","role":"applicant"},{"tenant_email":"a@EXAMPLE.com","role":"guarantor"}]}"#.to_string(),
        ),
        ("household no members", r#"{"monthly_rent":900}"#.to_string()),
        ("household invalid json", "{\"members\": ".to_string()),
        ("household too large", format!("{{\"x\":\"{}\"}}", "x".repeat(40 * 1024))),
    ] {
        let r = post(rec, &env, label, &test, &raw).await;
        assert!(matches!(r.status, 400 | 413), "{label}: {}", r.raw);
    }
    let r = env
        .call_with(
            "POST",
            API_HOUSEHOLDS,
            Some(&test),
            None,
            &[("content-type", "text/plain")],
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.raw);
    rec.op("household not json", "POST", API_HOUSEHOLDS, &r);

    let household_id = created.body["data"]["household_id"].as_str().unwrap();
    let r = env
        .call("GET", &household_path(household_id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "open", "{}", r.raw);
    rec.op("household open", "GET", API_HOUSEHOLDS, &r);
    for (label, path) in [
        ("household get without id", API_HOUSEHOLDS.to_string()),
        (
            "household get unknown",
            household_path(&uuid::Uuid::new_v4().to_string()),
        ),
    ] {
        let r = env.call("GET", &path, Some(&test), None).await;
        rec.op(label, "GET", API_HOUSEHOLDS, &r);
    }
    let r = env
        .call("DELETE", &household_path("nope"), Some(&test), None)
        .await;
    rec.op("household cancel non-uuid", "DELETE", API_HOUSEHOLDS, &r);
    let r = env
        .call(
            "DELETE",
            &household_path(household_id),
            Some(&env.other_test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.raw);
    rec.op(
        "household cancel other account",
        "DELETE",
        API_HOUSEHOLDS,
        &r,
    );

    // Both members complete through their own links.
    for member in created.body["data"]["members"].as_array().unwrap() {
        let link = member["verification_url"]
            .as_str()
            .unwrap()
            .strip_prefix(&env.base)
            .unwrap()
            .to_string();
        let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
        assert_eq!(p.status, 303, "{}", p.raw);
        let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
        assert_eq!(p.status, 303, "{}", p.raw);
        let id = member["verification_id"].as_str().unwrap();
        let r = env.call("GET", &verify_path(id), Some(&test), None).await;
        assert_eq!(r.body["data"]["household_id"], household_id);
        rec.op("household member get", "GET", API_VERIFY, &r);
    }
    let r = env
        .call(
            "GET",
            &format!("{API_LIST}?household_id={household_id}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.body["pagination"]["total"], 2, "{}", r.raw);
    rec.op("list one household", "GET", API_LIST, &r);
    drain(&mut pump, &workers).await;
    let r = env
        .call("GET", &household_path(household_id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "decided", "{}", r.raw);
    let d = &r.body["data"]["decision"];
    assert_eq!(d["applicants_monthly_income"], 5200.0, "{d}");
    assert_eq!(d["income_required"], 5400.0);
    assert_eq!(d["applicants_meet_requirement"], false);
    assert_eq!(d["guarantor_income_required"], 3600.0);
    assert_eq!(d["guarantor_meets_requirement"], true);
    assert_eq!(d["meets_requirement"], true);
    let rule = d["rule"].as_str().unwrap();
    assert!(
        rule.contains("The highest guarantor income 5,200.00 is enough for the guarantor rule"),
        "{rule}"
    );
    rec.op("household decided", "GET", API_HOUSEHOLDS, &r);
    let r = env
        .call("DELETE", &household_path(household_id), Some(&test), None)
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
    assert_eq!(r.body["code"], "household_closed", "{}", r.raw);
    rec.op("household cancel when final", "DELETE", API_HOUSEHOLDS, &r);
    let open = post(
        rec,
        &env,
        "household to cancel",
        &test,
        &two_applicants("cancel"),
    )
    .await;
    let open_id = open.body["data"]["household_id"].as_str().unwrap();
    let r = env
        .call("DELETE", &household_path(open_id), Some(&test), None)
        .await;
    assert_eq!(
        r.body["data"]["members"][0]["status"], "cancelled",
        "{}",
        r.raw
    );
    rec.op("household cancel open", "DELETE", API_HOUSEHOLDS, &r);

    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    for _ in 0..10 {
        if pump_sqs_once(&sqs, &env.created.webhook_queue_url, &workers.delivery, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let received = receiver.received();
    let households = received
        .iter()
        .filter(|r| r.body.contains("\"household.completed\""))
        .count();
    assert_eq!(households, 1, "one household.completed");
    for (i, r) in received.iter().enumerate() {
        rec.webhook(&format!("household webhook {i}"), r);
    }

    // Its delivery log by household, and its redelivery.
    let log = format!("{API_DELIVERIES}?household_id={household_id}");
    let r = env.call("GET", &log, Some(&test), None).await;
    assert_eq!(r.body["pagination"]["total"], 1, "{}", r.raw);
    rec.op("household delivery log", "GET", API_DELIVERIES, &r);
    let r = env.call("GET", &log, Some(&env.other_test_key), None).await;
    assert_eq!(r.status, 404);
    rec.op(
        "household delivery log, other account",
        "GET",
        API_DELIVERIES,
        &r,
    );
    let both = format!("{log}&verification_id={}", uuid::Uuid::new_v4());
    let r = env.call("GET", &both, Some(&test), None).await;
    assert_eq!(r.status, 400);
    rec.op("delivery log of both", "GET", API_DELIVERIES, &r);
    let event_id = household_event_id(household_id);
    let r = env
        .call(
            "POST",
            &format!("{API_REDELIVER}?event_id={event_id}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.raw);
    assert_eq!(r.body["data"]["household_id"], household_id);
    rec.op("redeliver household.completed", "POST", API_REDELIVER, &r);
}

/// The `webhook-id` of a household's `household.completed`.
fn household_event_id(household_id: &str) -> String {
    format!("msg_{}_household_completed", household_id.replace('-', ""))
}
