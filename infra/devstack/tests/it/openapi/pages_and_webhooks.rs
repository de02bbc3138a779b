//! The tenant pages, the webhooks, the delivery log and internal errors, recorded for validation.

use super::*;

/// The tenant page in every state, and the webhooks the state changes send.
pub(super) async fn drive_pages_and_webhooks(rec: &mut Recorder) {
    let env = env().await;
    let ttl = TtlDeletions::default();
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, ttl.clone())
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

    // Through consent to each sandbox scenario.
    let mut links = Vec::new();
    let mut ids = Vec::new();
    for (scenario, rent) in [
        ("good", Some(1500.0)),
        ("gig", None),
        ("voucher", Some(1400.0)),
        ("fail", Some(800.0)),
        ("outage", Some(800.0)),
    ] {
        let mut body = json!({"tenant_email": format!("t+{scenario}@example.com"), "tenant_name": "Tia", "property_address": "9 Oak Lane", "webhook_url": receiver.url});
        if let Some(rent) = rent {
            body["monthly_rent"] = json!(rent);
        }
        if scenario == "fail" {
            // Bank only: with another method left, a refusal would offer it instead of failing.
            body["methods"] = json!(["bank"]);
        }
        if scenario == "voucher" {
            body["rent_subsidy_monthly"] = json!(1000);
            body["income_multiple"] = json!(2.5);
        }
        let r = create(rec, &env, &format!("create {scenario}"), &test, body).await;
        let id = id_of(&r);
        let link = link_of(&env, &r);
        let p = page(&env, "GET", &link, None).await;
        rec.op(&format!("{scenario}: consent page"), "GET", PAGE, &p);
        let p = page(&env, "POST", &link, Some("action=consent")).await;
        rec.op(&format!("{scenario}: consent unticked"), "POST", PAGE, &p);
        let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
        rec.op(&format!("{scenario}: consent"), "POST", PAGE, &p);
        let p = page(&env, "GET", &link, None).await;
        rec.op(&format!("{scenario}: connect page"), "GET", PAGE, &p);
        let p = page(&env, "POST", &link, Some("action=connect")).await;
        rec.op(
            &format!("{scenario}: connect without scenario"),
            "POST",
            PAGE,
            &p,
        );
        let p = page(&env, "POST", &link, Some("action=bogus")).await;
        rec.op(&format!("{scenario}: unknown action"), "POST", PAGE, &p);
        let sample = format!("{link}/samples/genuine.pdf");
        if scenario == "good" {
            let p = page(&env, "GET", &sample, None).await;
            assert_eq!(p.status, 200, "an open test verification offers samples");
            rec.op("sample document", "GET", PAGE_SAMPLE, &p);
        }
        let p = page(
            &env,
            "POST",
            &link,
            Some(&format!("action=connect&scenario={scenario}")),
        )
        .await;
        rec.op(&format!("{scenario}: connect"), "POST", PAGE, &p);
        if scenario == "good" {
            let p = page(&env, "GET", &sample, None).await;
            assert_eq!(p.status, 404, "a completed verification offers none");
            rec.op("sample document, completed", "GET", PAGE_SAMPLE, &p);
        }
        let p = page(&env, "GET", &link, None).await;
        rec.op(&format!("{scenario}: after connect"), "GET", PAGE, &p);
        let pdf = page(&env, "GET", &format!("{link}/report.pdf"), None).await;
        let completed = matches!(scenario, "good" | "gig" | "voucher");
        assert_eq!(pdf.status, if completed { 200 } else { 404 }, "{scenario}");
        rec.op(&format!("{scenario}: report pdf"), "GET", PAGE_PDF, &pdf);
        if completed {
            let p = page(&env, "POST", &link, Some("action=note&note=+")).await;
            assert_eq!(p.status, 400);
            rec.op(&format!("{scenario}: empty note"), "POST", PAGE, &p);
            let p = page(
                &env,
                "POST",
                &link,
                Some("action=note&note=New+job+from+May"),
            )
            .await;
            assert_eq!(p.status, 303);
            rec.op(&format!("{scenario}: note"), "POST", PAGE, &p);
            let p = page(&env, "POST", &link, Some("action=note&note=Another")).await;
            assert_eq!(p.status, 200);
            assert!(p.raw.contains("New job from May"));
            rec.op(&format!("{scenario}: second note"), "POST", PAGE, &p);
        }
        let r = env.call("GET", &verify_path(&id), Some(&test), None).await;
        rec.op(&format!("{scenario}: get"), "GET", API_VERIFY, &r);
        let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
        rec.op(&format!("{scenario}: consent again"), "POST", PAGE, &p);
        if scenario == "good" {
            let note = "a".repeat(service::handlers::tenant_portal::MAX_FORM_BYTES);
            let p = page(
                &env,
                "POST",
                &link,
                Some(&format!("action=note&note={note}")),
            )
            .await;
            assert_eq!(p.status, 413);
            rec.op("form over 16 KiB", "POST", PAGE, &p);
        }
        if scenario == "gig" {
            // Past the window after its close: every path under the link answers the closed page.
            common::completed_days_ago(&env, &id, 31).await;
            for (label, path, at) in [
                ("link ended: page", link.clone(), PAGE),
                (
                    "link ended: report pdf",
                    format!("{link}/report.pdf"),
                    PAGE_PDF,
                ),
                (
                    "link ended: sample",
                    format!("{link}/samples/genuine.pdf"),
                    PAGE_SAMPLE,
                ),
            ] {
                let p = page(&env, "GET", &path, None).await;
                assert_eq!(p.status, 410, "{label}");
                rec.op(label, "GET", at, &p);
            }
        }
        links.push(link);
        ids.push(id);
    }
    let r = env.call("GET", API_LIST, Some(&test), None).await;
    rec.op("list after the scenarios", "GET", API_LIST, &r);

    // "Use another way": the switch to the next method, a stale one, and one without a method.
    let body = json!({"tenant_email": "w@example.com", "methods": ["bank", "payroll"]});
    let r = create(rec, &env, "create to switch", &test, body).await;
    let link = link_of(&env, &r);
    page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    for (name, form, status) in [
        ("switch method", "action=switch_method&method=payroll", 303),
        (
            "switch method again",
            "action=switch_method&method=payroll",
            200,
        ),
        ("switch method without one", "action=switch_method", 400),
    ] {
        let p = page(&env, "POST", &link, Some(form)).await;
        assert_eq!(p.status, status, "{name}: {}", p.raw);
        rec.op(name, "POST", PAGE, &p);
    }

    // Cancelled: the page says so (410), a webhook follows.
    let r = create(
        rec,
        &env,
        "create to cancel",
        &test,
        json!({"tenant_email": "c@example.com", "webhook_url": receiver.url}),
    )
    .await;
    let id = id_of(&r);
    let cancelled = id.clone();
    let link = link_of(&env, &r);
    let r = env
        .call("DELETE", &verify_path(&id), Some(&test), None)
        .await;
    rec.op("cancel with webhook", "DELETE", API_VERIFY, &r);
    let p = page(&env, "GET", &link, None).await;
    rec.op("cancelled page", "GET", PAGE, &p);
    let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    rec.op("cancelled page form", "POST", PAGE, &p);
    let r = env
        .call(
            "POST",
            &format!("{API_RESEND}?verification_id={id}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.raw);
    rec.op("resend a cancelled verification", "POST", API_RESEND, &r);

    // Resent: three a day (each a new e-mail and a `verification.resent` webhook), then 429.
    let r = create(
        rec,
        &env,
        "create to resend",
        &test,
        json!({"tenant_email": "r@example.com", "webhook_url": receiver.url}),
    )
    .await;
    let resend = format!("{API_RESEND}?verification_id={}", id_of(&r));
    for n in 1..=3 {
        let r = env.call("POST", &resend, Some(&test), None).await;
        assert_eq!(r.status, 202, "{}", r.raw);
        rec.op(&format!("resend {n}"), "POST", API_RESEND, &r);
    }
    let r = env.call("POST", &resend, Some(&test), None).await;
    assert_eq!(r.status, 429, "{}", r.raw);
    assert!(r.header("retry-after").is_some());
    rec.op("resend over the day's limit", "POST", API_RESEND, &r);

    // Expired: the page (410) before and after the TTL sweep; the sweep sends a webhook.
    let token = "ExpiredLinkTokenForTheOpenApiTest-0123456789ab";
    let mut late = stored_verification("late@example.com", token);
    late.webhook_url = Some(receiver.url.clone());
    env.store
        .create_verification(&late, None, None)
        .await
        .unwrap();
    let late_link = format!("/t/{}/{token}", late.verification_id);
    let p = page(&env, "GET", &late_link, None).await;
    rec.op("expired page", "GET", PAGE, &p);

    // Invalid links and methods.
    let bad = [
        format!("/t/{}/WrongToken", late.verification_id),
        format!("/t/{}/x", uuid::Uuid::new_v4()),
        "/t/not-a-uuid/x".to_string(),
    ];
    for path in &bad {
        let p = page(&env, "GET", path, None).await;
        rec.op(&format!("GET {path}"), "GET", PAGE, &p);
        let p = page(&env, "POST", path, Some("action=consent&agree=yes")).await;
        rec.op(&format!("POST {path}"), "POST", PAGE, &p);
    }
    for method in ["PUT", "DELETE"] {
        let p = page(&env, method, &links[0], None).await;
        rec.component(
            &format!("{method} on a link"),
            "HtmlMethodNotAllowed",
            true,
            &p,
        );
    }

    // A reminder of a pending verification (its schedule's invocation, as the local pump runs it).
    let reminded = create(
        rec,
        &env,
        "create to remind",
        &test,
        json!({"tenant_email": "t+remind@example.com", "property_address": "9 Oak Lane", "webhook_url": receiver.url}),
    )
    .await;
    let payload = service::handlers::reach_events::ReminderPayload {
        verification_id: id_of(&reminded).parse().unwrap(),
        reminder: "72h".into(),
    };
    service::handlers::send_reminders::send_reminders(&workers.reach, payload)
        .await
        .unwrap();

    // Settle the stream (e-mails, status changes), sweep TTL, deliver every webhook.
    drain(&mut pump, &workers).await;
    let dynamo = aws_sdk_dynamodb::Client::new(&env.sdk);
    sweep_ttl(&dynamo, &env.names.table, &ttl).await.unwrap();
    drain(&mut pump, &workers).await;
    let p = page(&env, "GET", &late_link, None).await;
    rec.op("expired page after the sweep", "GET", PAGE, &p);

    // Every webhook so far delivered first: an erasure drops its verification's queued ones.
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    while pump_sqs_once(&sqs, &env.created.webhook_queue_url, &workers.delivery, 0)
        .await
        .unwrap()
        > 0
    {}
    // The cancelled one's personal data erased (twice: the same answer); a pending one refused.
    let erase = |id: &str| format!("{API_ERASE}?verification_id={id}");
    for (label, id) in [
        ("erase cancelled", cancelled.as_str()),
        ("erase again", cancelled.as_str()),
        ("erase pending", &id_of(&reminded)),
        ("erase without id", ""),
        ("erase unknown id", &uuid::Uuid::new_v4().to_string()),
    ] {
        let path = if id.is_empty() {
            API_ERASE.to_string()
        } else {
            erase(id)
        };
        let r = env.call("DELETE", &path, Some(&test), None).await;
        rec.op(label, "DELETE", API_ERASE, &r);
    }
    let r = env
        .call("GET", &verify_path(&cancelled), Some(&test), None)
        .await;
    rec.op("get erased", "GET", API_VERIFY, &r);
    let r = env.call("GET", API_LIST, Some(&test), None).await;
    rec.op("list with an erased one", "GET", API_LIST, &r);
    // The voucher holder's report, made one from documents, reviewed: `verification.reviewed`.
    common::report_from_documents(&env, &ids[2]).await;
    let review = json!({"decision": "accepted", "note": "Award letter checked with the agency."});
    let r = env.review_documents(&test, &ids[2], review).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    rec.op("review with a webhook", "POST", API_REVIEW, &r);
    drain(&mut pump, &workers).await;
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
    let kinds: BTreeSet<String> = received
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        vec![
            "verification.cancelled",
            "verification.completed",
            "verification.erased",
            "verification.expired",
            "verification.failed",
            "verification.in_progress",
            "verification.reminder_sent",
            "verification.resent",
            "verification.reviewed"
        ]
    );
    for (i, r) in received.iter().enumerate() {
        rec.webhook(&format!("webhook {i}"), r);
    }
    drive_webhook_history(rec, &env, &ids[0]).await;
}

/// The delivery log and redelivery, once the scenarios' webhooks went out.
pub(super) async fn drive_webhook_history(rec: &mut Recorder, env: &TestEnv, delivered: &str) {
    let test = env.test_key.clone();
    let deliveries =
        |id: &str, extra: &str| format!("{API_DELIVERIES}?verification_id={id}{extra}");
    let r = env
        .call("GET", &deliveries(delivered, ""), Some(&test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert!(
        r.body["pagination"]["total"].as_u64().unwrap() >= 2,
        "{}",
        r.raw
    );
    rec.op("delivery log", "GET", API_DELIVERIES, &r);
    let event_id = r.body["data"][0]["event_id"].as_str().unwrap().to_string();
    let r = env
        .call(
            "GET",
            &deliveries(delivered, "&limit=ten"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 400);
    rec.op("delivery log, bad limit", "GET", API_DELIVERIES, &r);
    let r = env
        .call(
            "GET",
            &deliveries(delivered, ""),
            Some(&env.other_test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    rec.op("delivery log, other account", "GET", API_DELIVERIES, &r);

    let redeliver = |id: &str| format!("{API_REDELIVER}?event_id={id}");
    let r = env
        .call("POST", &redeliver(&event_id), Some(&test), None)
        .await;
    assert_eq!(r.status, 202, "{}", r.raw);
    rec.op("redeliver", "POST", API_REDELIVER, &r);
    let r = env
        .call(
            "POST",
            &redeliver(&event_id),
            Some(&env.other_test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    rec.op("redeliver, other account", "POST", API_REDELIVER, &r);
    let r = env.call("POST", API_REDELIVER, Some(&test), None).await;
    assert_eq!(r.status, 400);
    rec.op("redeliver without an event id", "POST", API_REDELIVER, &r);
    // An id naming the caller's verification without a webhook_url: 409.
    let plain = env
        .create_verification(&test, json!({"tenant_email": "nohook@example.com"}))
        .await;
    let plain_id: uuid::Uuid = id_of(&plain).parse().unwrap();
    let r = env
        .call(
            "POST",
            &redeliver(&format!("msg_{}_in_progress", plain_id.simple())),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
    rec.op("redeliver, no webhook_url", "POST", API_REDELIVER, &r);
    let r = env
        .call(
            "POST",
            &format!("{API_RESEND}?verification_id={}", uuid::Uuid::new_v4()),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    rec.op("resend an unknown verification", "POST", API_RESEND, &r);
}

/// Runs the stream pump until it has nothing new (bounded).
pub(super) async fn drain(pump: &mut StreamPump, workers: &Workers) {
    for _ in 0..30 {
        if pump
            .pump_once(&workers.outbox, &workers.expiry)
            .await
            .unwrap()
            == 0
        {
            return;
        }
    }
    panic!("the stream did not settle");
}

/// The store gone: every operation and the page answer 500 without internals.
pub(super) async fn drive_internal_errors(rec: &mut Recorder) {
    let env = env().await;
    let test = env.test_key.clone();
    let r = env
        .create_verification(&test, json!({"tenant_email": "x@example.com"}))
        .await;
    let link = link_of(&env, &r);
    let dynamo = aws_sdk_dynamodb::Client::new(&env.sdk);
    dynamo
        .delete_table()
        .table_name(&env.names.table)
        .send()
        .await
        .unwrap();
    every_operation(rec, &env, "500 without a table", Some(&test)).await;
    let p = page(&env, "GET", &link, None).await;
    rec.op("500 page", "GET", PAGE, &p);
    let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    rec.op("500 page form", "POST", PAGE, &p);
    let p = page(&env, "GET", &format!("{link}/report.pdf"), None).await;
    rec.op("500 report pdf", "GET", PAGE_PDF, &p);
    let p = page(&env, "GET", &format!("{link}/samples/scan.pdf"), None).await;
    rec.op("500 sample document", "GET", PAGE_SAMPLE, &p);
}

// ---------------------------------------------------------------------------------------------
// Tests
