//! The retry window's end, test mode's suppressed e-mails, an SMS and scheduler outage, and items that keep their size under failed attempts.

use super::*;

/// An e-mail that cannot go out for the whole retry window ends the verification `failed` for a
/// reason on the service's side: the webhook tells the landlord, and /usage gives the month's
/// verification back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_retry_window_the_verification_fails_and_is_not_charged() {
    let mut rig = rig().await;
    let key = rig.env.live_key.clone();
    let before = used_this_month(&rig.env, &key).await;
    rig.faults.down(Step::Ses);
    let id = rig
        .create(
            &key,
            json!({"tenant_email": "never@example.com", "webhook_url": "http://127.0.0.1:9/hook"}),
        )
        .await;
    assert_eq!(used_this_month(&rig.env, &key).await, before + 1);
    rig.stream_pass().await;
    let start = rig.clock.now();
    let schedule = service::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
    let mut attempt = 0;
    while rig.depth(&rig.env.created.retry_queue_url).await > 0 {
        assert!(
            rig.clock.now() - start
                <= service::handlers::retry_events::RETRY_WINDOW + chrono::Duration::hours(12),
            "given up in time"
        );
        // Within the window the verification waits.
        assert_eq!(rig.verification(id).await.status, Status::Pending);
        rig.clock
            .advance(schedule[attempt.min(schedule.len() - 1)] as i64);
        attempt += 1;
        rig.retry_pass().await;
    }
    assert!(rig.clock.now() - start >= chrono::Duration::hours(24));
    let v = rig.verification(id).await;
    assert_eq!(v.status, Status::Failed);
    assert_eq!(
        v.failure_reason.as_deref(),
        Some(service::handlers::retry_events::EMAIL_UNDELIVERABLE)
    );
    assert!(sent_emails("never@example.com").await.is_empty());
    assert_eq!(
        used_this_month(&rig.env, &key).await,
        before,
        "the allowance is refunded"
    );
    assert_eq!(rig.depth(&rig.env.created.retry_dlq_url).await, 0);
    rig.faults.restore(Step::Ses);
    rig.stream_pass().await;
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let hooks = sqs
        .receive_message()
        .queue_url(&rig.env.created.webhook_queue_url)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    assert_eq!(hooks.len(), 1);
    let event = common::queued_event(&rig.env, hooks[0].body().unwrap()).await;
    let payload: Value = serde_json::from_str(&event.body).unwrap();
    assert_eq!(payload["type"], "verification.failed");
}

/// In a deployed stack (suppress) a test key e-mails nobody, and its `verification_url` still
/// opens the tenant page; live verifications are e-mailed. The local stack sends both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_mode_e_mails_are_suppressed_unless_the_stack_sends_them() {
    let mut rig = rig().await;
    rig.deps.test_mode_delivery = TestModeDelivery::Suppress;
    let test_key = rig.env.test_key.clone();
    let live_key = rig.env.live_key.clone();
    let r = rig
        .env
        .create_verification(
            &test_key,
            json!({"tenant_email": "relay-target@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201);
    let url = r.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .to_string();
    rig.create(
        &live_key,
        json!({"tenant_email": "live-tenant@example.com"}),
    )
    .await;
    rig.stream_pass().await;
    assert!(sent_emails("relay-target@example.com").await.is_empty());
    assert_eq!(sent_emails("live-tenant@example.com").await.len(), 1);
    assert_eq!(rig.depth(&rig.env.created.retry_queue_url).await, 0);
    let page = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(&url)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);

    // The local stack's workers send test-mode e-mails (so `make dev` shows every one).
    let workers = devstack::Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    assert_eq!(workers.outbox.test_mode_delivery, TestModeDelivery::Send);
    rig.deps.test_mode_delivery = TestModeDelivery::Send;
    rig.create(
        &test_key,
        json!({"tenant_email": "local-shown@example.com"}),
    )
    .await;
    rig.stream_pass().await;
    assert_eq!(sent_emails("local-shown@example.com").await.len(), 1);
}

/// SNS and the scheduler fail every attempt the back-off makes in 30 hours while 50 verifications
/// with phone numbers are created among others: every tenant e-mail and every webhook of the
/// others goes out in the stream pass that brings it, no record waits on the stream, and no
/// verification item grows while the SMS and schedules are retried; once both are back, each SMS
/// goes out once and each schedule exists once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sms_and_scheduler_outage_holds_nothing_else_and_grows_no_item() {
    let mut rig = rig().await;
    // Failed work hides for an hour of real time; `retry_round` makes it due as the clock moves.
    rig.deps.retry_backoff = vec![3600];
    let key = rig.env.test_key.clone();
    rig.faults.down(Step::Sns);
    rig.faults.down(Step::Scheduler);
    let start = rig.clock.now();
    let mut texted = Vec::new();
    let mut others = Vec::new();
    for i in 0..50 {
        let (raw, e164) = fresh_number();
        let to = format!("outage-sms{i}@example.com");
        let body = json!({"tenant_email": to, "tenant_phone": raw});
        texted.push((rig.create(&key, body).await, to, e164));
        if i % 5 == 4 {
            // Another landlord's verification: e-mail only, cancelled (its webhook is queued).
            let to = format!("outage-other{i}@example.com");
            let body = json!({"tenant_email": to, "reminders": false, "webhook_url": "http://127.0.0.1:9/hook"});
            let id = rig.create(&key, body).await;
            rig.stream_pass().await;
            let path = format!("/api/v1/verify?verification_id={id}");
            let cancel = rig.env.call("DELETE", &path, Some(&key), None).await;
            assert_eq!(cancel.status, 200, "{}", cancel.raw);
            others.push(to);
            rig.stream_pass().await;
            assert!(rig.backlog.is_empty(), "no record waits on the stream");
        }
    }
    rig.stream_pass().await;
    assert!(rig.backlog.is_empty());
    // Before any retry: every e-mail went out once, every webhook is queued.
    for to in texted.iter().map(|(_, to, _)| to).chain(&others) {
        assert_eq!(sent_emails(to).await.len(), 1, "{to}");
    }
    assert_eq!(
        rig.depth(&rig.env.created.webhook_queue_url).await,
        others.len()
    );
    assert!(
        rig.depth(&rig.env.created.retry_queue_url).await >= 100,
        "SMS and schedules wait"
    );
    let mut first = HashMap::new();
    for (id, _, _) in &texted {
        first.insert(*id, rig.size(*id).await);
    }

    let schedule = service::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
    let mut attempt = 0;
    let mut rounds = 0;
    loop {
        rig.clock
            .advance(schedule[attempt.min(schedule.len() - 1)] as i64);
        attempt += 1;
        if rig.clock.now() - start > chrono::Duration::hours(30) {
            break;
        }
        assert!(rig.retry_round().await >= 100, "every piece is tried again");
        rounds += 1;
        rig.stream_pass().await;
        assert!(rig.backlog.is_empty());
        for (id, _, e164) in &texted {
            assert_eq!(rig.size(*id).await, first[id], "a retry grows no item");
            assert!(sent_sms(e164).await.is_empty());
        }
    }
    assert!(rounds >= 10, "{rounds} rounds in 30 hours");
    assert_eq!(rig.depth(&rig.env.created.retry_dlq_url).await, 0);

    rig.faults.restore(Step::Sns);
    rig.faults.restore(Step::Scheduler);
    rig.retry_round().await;
    assert_eq!(rig.depth(&rig.env.created.retry_queue_url).await, 0);
    let scheduler = aws_sdk_scheduler::Client::new(&rig.env.sdk);
    let listed = scheduler
        .list_schedules()
        .group_name(&rig.env.names.schedule_group)
        .max_results(100)
        .send()
        .await
        .unwrap();
    let names: Vec<String> = (listed.schedules().iter())
        .filter_map(|s| s.name().map(String::from))
        .collect();
    for (id, to, e164) in &texted {
        assert_eq!(sent_sms(e164).await.len(), 1, "{to}: one SMS");
        let mine = names
            .iter()
            .filter(|n| n.contains(&id.simple().to_string()))
            .count();
        assert_eq!(mine, 2, "{to}: both reminder schedules, once each");
        assert_eq!(sent_emails(to).await.len(), 1, "{to}: still one e-mail");
        // The SMS went out: its claim item says so, and the verification did not grow at all.
        let sms = domain::reach::Message::InviteSms;
        let state = common::claim_state(&rig.env, *id, &sms).await;
        assert_eq!(state.as_deref(), Some("sent"), "{to}");
        assert_eq!(rig.size(*id).await, first[id], "{to}");
    }
    assert_eq!(names.len(), 2 * texted.len());
    assert_eq!(
        rig.depth(&rig.env.created.webhook_queue_url).await,
        others.len()
    );
}

/// A hundred failed attempts at each of the invite e-mail, the invite SMS and a reminder (its
/// e-mail and SMS), with SES and SNS down and no claim ever given back (each attempt takes over
/// the last one's lease), leave the verification and each message's claim item as large as the
/// first attempt left them; once SES and SNS are back, each message goes out once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_failed_attempts_at_one_message_leave_its_items_the_same_size() {
    use service::handlers::outbox_work::{RetryMessage, RetryWork};
    use service::handlers::reach_events::ReminderPayload;
    use service::handlers::send_reminders::{ReachDeps, send_reminders};
    let rig = rig().await;
    let key = rig.env.test_key.clone();
    let (raw, e164) = fresh_number();
    let to = format!("hundred-{}@example.com", Uuid::new_v4().simple());
    let id = rig
        .create(&key, json!({"tenant_email": to, "tenant_phone": raw}))
        .await;
    for step in [Step::Ses, Step::Sns, Step::Release] {
        rig.faults.down(step);
    }
    // The first reminder's point, 72 h before expiry.
    rig.clock.advance(96 * 3600);
    let reach = ReachDeps {
        store: rig.deps.store.clone(),
        mailer: rig.deps.mailer.clone(),
        texter: rig.deps.texter.clone(),
        queue: rig.deps.queue.clone(),
        clock: rig.clock.clone(),
        public_base_url: rig.deps.public_base_url.clone(),
        test_mode_delivery: TestModeDelivery::Send,
        reminder_offsets: rig.deps.reminder_offsets.clone(),
        sms: Default::default(),
    };
    let retries = |work: Vec<RetryWork>| {
        let mut event = aws_lambda_events::event::sqs::SqsEvent::default();
        for (i, work) in work.into_iter().enumerate() {
            let mut message = aws_lambda_events::event::sqs::SqsMessage::default();
            message.message_id = Some(i.to_string());
            let body = RetryMessage {
                work,
                first_failed_at: rig.clock.now(),
            };
            message.body = Some(serde_json::to_string(&body).unwrap());
            event.records.push(message);
        }
        event
    };
    let work = || {
        vec![
            RetryWork::TenantEmail {
                verification_id: id,
            },
            RetryWork::InviteSms {
                verification_id: id,
            },
        ]
    };
    let payload = || ReminderPayload {
        verification_id: id,
        reminder: "72h".into(),
    };
    let claim_keys = [
        "invite_email",
        "invite_sms",
        "reminder_72h_email",
        "reminder_72h_sms",
    ];
    let sizes = || async {
        let mut claims = Vec::new();
        for message in claim_keys {
            claims.push(stored_item_size(&rig.env, keys::message_claim(id, message)).await);
        }
        (
            stored_item_size(&rig.env, keys::verification(id)).await,
            claims,
        )
    };
    let before = sizes().await;
    let mut after = Vec::new();
    for _ in 0..100 {
        let response =
            service::handlers::retry_events::retry_events(&rig.deps, retries(work())).await;
        assert_eq!(response.batch_item_failures.len(), 2, "both fail again");
        assert!(send_reminders(&reach, payload()).await.is_err());
        after.push(sizes().await);
        // Past both leases: the next attempt takes over this one's claims.
        rig.clock.advance(6 * 60);
    }
    assert!(after.iter().all(|s| *s == after[0]), "{after:?}");
    assert!(
        after[0].1.iter().all(|size| *size > 0),
        "each message's claim item is there, never released: {after:?}"
    );
    assert!(after[0].0 > before.0, "the first attempt bound its links");
    let v = rig.verification(id).await;
    assert_eq!(
        v.message_links.keys().collect::<Vec<_>>(),
        vec![
            "invite_email",
            "invite_sms",
            "reminder_72h_email",
            "reminder_72h_sms"
        ]
    );
    assert_eq!(v.token_hashes.len(), 1, "the create response's link only");
    assert!(sent_emails(&to).await.is_empty() && sent_sms(&e164).await.is_empty());

    for step in [Step::Ses, Step::Sns, Step::Release] {
        rig.faults.restore(step);
    }
    for _ in 0..2 {
        let response =
            service::handlers::retry_events::retry_events(&rig.deps, retries(work())).await;
        assert!(response.batch_item_failures.is_empty());
        send_reminders(&reach, payload()).await.unwrap();
    }
    assert_eq!(
        sent_emails(&to).await.len(),
        2,
        "the invite and the reminder, once each"
    );
    assert_eq!(
        sent_sms(&e164).await.len(),
        2,
        "the invite and the reminder, once each"
    );
}
