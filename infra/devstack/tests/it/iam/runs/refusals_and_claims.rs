//! Runs over refused requests (keys, limits, closed or foreign verifications) and held or rejected message claims.

use super::*;

/// Refusals: a bad key, a day's requests used up, the month's live verifications used up, a
/// cancel of a closed verification, another account's verification.
pub async fn refusals(rig: &mut Rig) {
    rig.expect("GET", "/api/v1/usage", Some("sk_test_not_a_key"), None, 401)
        .await;
    // A well-formed key naming an account that does not exist, on every API function: the
    // metering write finds no account and reads it to say so.
    let ghost = domain::secrets::generate_api_key("acct_ghost", domain::Mode::Test)
        .unwrap()
        .secret;
    let id = uuid::Uuid::new_v4();
    for (method, path) in api_routes(id, id, id) {
        let body = (method == "POST").then(|| json!({"tenant_email": "iam.ghost@example.com"}));
        rig.expect(method, &path, Some(&ghost), body, 401).await;
    }
    let tiny = rig.tiny_key.clone();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(rig.call("GET", "/api/v1/usage", Some(&tiny), None).await.0);
    }
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
    let other = rig.other_live_key.clone();
    let mut last = (0, Value::Null);
    for i in 0..7 {
        let body = json!({"tenant_email": format!("iam.limit{i}+good@example.com")});
        last = rig.call("POST", VERIFY, Some(&other), Some(body)).await;
    }
    assert!(last.0 >= 400 && last.0 < 500 && last.0 != 401, "{last:?}");
    let body = json!({"monthly_rent": 900, "members": [{"tenant_email": "iam.limit.h+good@example.com", "role": "applicant"}]});
    let (s, r) = rig.call("POST", HOUSEHOLDS, Some(&other), Some(body)).await;
    assert!((400..500).contains(&s) && s != 401, "{s} {r}");
    let key = rig.live_key.clone();
    let created = rig
        .expect(
            "POST",
            VERIFY,
            Some(&key),
            Some(json!({"tenant_email": "iam.closed+good@example.com"})),
            201,
        )
        .await;
    let id = created_id(&created, "verification_id");
    rig.expect(
        "DELETE",
        &format!("{VERIFY}?verification_id={id}"),
        Some(&key),
        None,
        200,
    )
    .await;
    // Closed: refused (400 or 409, whichever the handler names it), after the key is metered.
    let (s, _) = rig
        .call(
            "DELETE",
            &format!("{VERIFY}?verification_id={id}"),
            Some(&key),
            None,
        )
        .await;
    assert!(s == 400 || s == 409, "{s}");
    let (s, _) = rig
        .call(
            "POST",
            &format!("{VERIFY}/resend?verification_id={id}"),
            Some(&key),
            None,
        )
        .await;
    assert!(s == 400 || s == 409, "{s}");
    rig.expect(
        "GET",
        &format!("{VERIFY}?verification_id={id}"),
        Some(&other),
        None,
        404,
    )
    .await;
    rig.drain().await;
}

/// Held claims: a reminder whose claim another attempt holds (send-reminders reads the stored
/// event), and an invite e-mail refused for good (publish-events fails the verification).
pub async fn held_claims(rig: &mut Rig) {
    use domain::reach::Message;
    use service::handlers::reach_events::ReminderPayload;
    let key = rig.live_key.clone();
    let (_, phone) = common::fresh_number();
    let created = rig.expect("POST", VERIFY, Some(&key), Some(json!({"tenant_email": "iam.held+good@example.com", "tenant_phone": phone, "webhook_url": rig.receiver.url.clone()})), 201).await;
    let id: uuid::Uuid = created_id(&created, "verification_id").parse().unwrap();
    rig.drain().await;
    let now = chrono::Utc::now();
    for message in [
        Message::ReminderEmail("72h".into()),
        Message::ReminderSms("72h".into()),
    ] {
        rig.store
            .claim_message(id, &message, "other-attempt", now)
            .await
            .unwrap();
    }
    let reach = &rig.workers[&Function::SendReminders].reach;
    let payload = ReminderPayload {
        verification_id: id,
        reminder: "72h".into(),
    };
    let held = service::handlers::send_reminders::send_reminders(reach, payload).await;
    assert!(held.is_err(), "another attempt holds the reminder");
    // A reminder whose e-mail SES refuses for now: send-reminders gives its claim back (the
    // retry may send at once) and reports the failure for its retry.
    let created = rig
        .expect(
            "POST",
            VERIFY,
            Some(&key),
            Some(json!({"tenant_email": "iam.release+good@example.com"})),
            201,
        )
        .await;
    let released: uuid::Uuid = created_id(&created, "verification_id").parse().unwrap();
    rig.drain().await;
    let reach = &rig.workers[&Function::SendReminders].reach;
    let ses_down = service::handlers::send_reminders::ReachDeps {
        store: reach.store.clone(),
        mailer: Flaky::new(reach.mailer.clone()),
        texter: reach.texter.clone(),
        queue: reach.queue.clone(),
        clock: reach.clock,
        public_base_url: reach.public_base_url.clone(),
        test_mode_delivery: reach.test_mode_delivery,
        reminder_offsets: reach.reminder_offsets.clone(),
        sms: Default::default(),
    };
    ses_down.mailer.down.set(true);
    let payload = ReminderPayload {
        verification_id: released,
        reminder: "72h".into(),
    };
    let failed = service::handlers::send_reminders::send_reminders(&ses_down, payload).await;
    assert!(
        failed.is_err(),
        "a transient SES failure is reported for a retry"
    );
    // A permanent rejection of the invite: the verification fails.
    let (s, bounced) = rig
        .call(
            "POST",
            VERIFY,
            Some(&key),
            Some(json!({"tenant_email": "iam.held+bounce@example.com"})),
        )
        .await;
    assert_eq!(s, 201);
    rig.drain().await;
    let id: uuid::Uuid = created_id(&bounced, "verification_id").parse().unwrap();
    let stored = rig.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.status, domain::Status::Failed);
}
