//! Reminders and SMS on the real wire, against moto: the create stores the number in E.164 (or
//! records it unusable and still e-mails), publish-events texts the invite through SNS and creates
//! the two one-time schedules in EventBridge Scheduler, and the local schedule pump fires them at
//! their time (an injected instant: moto never fires them), through send-reminders to SES and SNS,
//! once each; the `verification.reminder_sent` webhook is stored, logged and redelivered like any
//! other event. Timing and de-duplication in detail, with a manual clock, are in
//! `shared/adapters/tests/it/reminders.rs`.

use crate::common;

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use common::{
    Receiver, TestEnv, env, fresh_number, sent_emails, sent_sms, verify_with_standard_webhooks,
};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
use devstack::schedules::{at_time, pump_schedules_once};
use domain::Verification;
use domain::reach::Message;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::handlers::reach_events::ReminderPayload;

struct Rig {
    env: TestEnv,
    workers: Workers,
    pump: StreamPump,
    scheduler: aws_sdk_scheduler::Client,
}

async fn rig() -> Rig {
    let env = env().await;
    let pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    let workers = env.workers();
    let scheduler = aws_sdk_scheduler::Client::new(&env.sdk);
    Rig {
        env,
        workers,
        pump,
        scheduler,
    }
}

impl Rig {
    async fn drain_stream(&mut self) {
        for _ in 0..20 {
            let handed = self
                .pump
                .pump_once(&self.workers.outbox, &self.workers.expiry)
                .await
                .unwrap();
            if handed == 0 {
                return;
            }
        }
        panic!("the stream did not settle");
    }

    async fn create(&mut self, body: Value) -> Verification {
        let reply = self
            .env
            .create_verification(&self.env.live_key.clone(), body)
            .await;
        assert_eq!(reply.status, 201, "{}", reply.raw);
        let id = reply.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        self.drain_stream().await;
        self.env.store.get_verification(id).await.unwrap().unwrap()
    }

    /// The group's schedules: name -> (at, input).
    async fn schedules(&self) -> HashMap<String, (DateTime<Utc>, String)> {
        let group = &self.env.names.schedule_group;
        let listed = self
            .scheduler
            .list_schedules()
            .group_name(group)
            .send()
            .await
            .unwrap();
        let mut out = HashMap::new();
        for summary in listed.schedules() {
            let name = summary.name().unwrap();
            let s = self
                .scheduler
                .get_schedule()
                .group_name(group)
                .name(name)
                .send()
                .await
                .unwrap();
            assert_eq!(
                s.action_after_completion().map(|a| a.as_str()),
                Some("DELETE"),
                "{name}"
            );
            assert_eq!(s.schedule_expression_timezone(), Some("UTC"));
            let at = at_time(s.schedule_expression().unwrap()).unwrap();
            let input = s.target().unwrap().input().unwrap().to_string();
            out.insert(name.to_string(), (at, input));
        }
        out
    }

    /// One pass of `deliver-webhook` over the webhook queue: the messages it handled.
    async fn deliver_webhooks(&self) -> usize {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        let queue = &self.env.created.webhook_queue_url;
        pump_sqs_once(&sqs, queue, &self.workers.delivery, 0)
            .await
            .unwrap()
    }

    async fn fire_due(&self, now: DateTime<Utc>) -> usize {
        let mut attempts = HashMap::new();
        pump_schedules_once(
            &self.scheduler,
            &self.env.names.schedule_group,
            &self.workers.reach,
            &mut attempts,
            now,
        )
        .await
        .unwrap()
    }
}

fn fresh_email() -> String {
    format!("reach-{}+good@example.com", uuid::Uuid::new_v4().simple())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invite_sms_schedules_and_reminders_on_moto_each_once() {
    let mut rig = rig().await;
    let (raw, e164) = fresh_number();
    let email = fresh_email();
    let v = rig
        .create(json!({
            "tenant_email": email, "tenant_phone": raw,
            "property_address": "9 Harbour Rd", "monthly_rent": 1200
        }))
        .await;
    assert_eq!(v.sms_phone.as_deref(), Some(e164.as_str()));
    // The invite: by e-mail and by SMS, once (moto's double INSERT and a redelivered batch
    // included: the pump hands the records again below).
    let invites = sent_sms(&e164).await;
    assert_eq!(invites.len(), 1, "{invites:?}");
    assert!(invites[0].contains("9 Harbour Rd") && invites[0].contains("/t/"));
    assert!(invites[0].ends_with("Reply STOP to opt out."));
    assert_eq!(sent_emails(&email).await.len(), 1);

    // Two one-time schedules, 72 h and 24 h before expiry.
    let schedules = rig.schedules().await;
    let mine: Vec<_> = schedules
        .iter()
        .filter(|(name, _)| name.contains(&v.verification_id.simple().to_string()))
        .collect();
    assert_eq!(mine.len(), 2, "{schedules:?}");
    let mut times: Vec<DateTime<Utc>> = mine.iter().map(|(_, (at, _))| *at).collect();
    times.sort();
    let whole_seconds = |t: DateTime<Utc>| t.timestamp();
    assert_eq!(
        times.iter().map(|t| whole_seconds(*t)).collect::<Vec<_>>(),
        vec![
            whole_seconds(v.expires_at - Duration::hours(72)),
            whole_seconds(v.expires_at - Duration::hours(24))
        ]
    );
    for (_, (_, input)) in &mine {
        let payload: ReminderPayload = serde_json::from_str(input).unwrap();
        assert_eq!(payload.verification_id, v.verification_id);
        assert!(!input.contains(&email) && !input.contains(&e164[2..]));
    }

    // Before the first point nothing fires.
    let before = v.expires_at - Duration::hours(73);
    rig.fire_due(before).await;
    assert_eq!(sent_emails(&email).await.len(), 1);

    // At 72 h before expiry: the first reminder, by e-mail and SMS; its schedule is gone.
    rig.fire_due(v.expires_at - Duration::hours(72)).await;
    let emails = sent_emails(&email).await;
    assert_eq!(emails.len(), 2);
    assert!(
        emails
            .iter()
            .any(|m| m["subject"].as_str().unwrap_or("").starts_with("Reminder:"))
    );
    assert_eq!(sent_sms(&e164).await.len(), 2);
    let left = rig.schedules().await;
    assert_eq!(
        left.keys()
            .filter(|n| n.contains(&v.verification_id.simple().to_string()))
            .count(),
        1
    );
    // A redelivered invocation of the same schedule sends nothing more.
    let payload = ReminderPayload {
        verification_id: v.verification_id,
        reminder: "72h".into(),
    };
    service::handlers::send_reminders::send_reminders(&rig.workers.reach, payload)
        .await
        .unwrap();
    rig.fire_due(v.expires_at - Duration::hours(72)).await;
    assert_eq!(sent_emails(&email).await.len(), 2);
    assert_eq!(sent_sms(&e164).await.len(), 2);

    // The tenant completes before the second point: it sends nothing.
    let now = Utc::now();
    rig.env
        .store
        .transition(&v, &domain::Transition::Start, now)
        .await
        .unwrap();
    let started = rig
        .env
        .store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    let report = serde_json::from_value(json!({
        "total_monthly_income": 5000.0, "income_sources": [],
        "verification_method": "bank", "confidence_score": 0.9,
        "rent_to_income_ratio": null, "passes_3x_rule": null,
        "as_of": "2026-11-20"
    }))
    .unwrap();
    rig.env
        .store
        .transition(
            &started,
            &domain::Transition::Complete {
                report: Box::new(report),
            },
            now,
        )
        .await
        .unwrap();
    rig.drain_stream().await;
    rig.fire_due(v.expires_at - Duration::hours(24)).await;
    assert_eq!(
        sent_emails(&email).await.len(),
        2,
        "no reminder after completion"
    );
    assert_eq!(sent_sms(&e164).await.len(), 2);
    for sent in [
        Message::InviteSms,
        Message::ReminderEmail("72h".into()),
        Message::ReminderSms("72h".into()),
    ] {
        let state = common::claim_state(&rig.env, v.verification_id, &sent).await;
        assert_eq!(state.as_deref(), Some("sent"), "{}", sent.key());
    }
    for unsent in [
        Message::ReminderEmail("24h".into()),
        Message::ReminderSms("24h".into()),
    ] {
        let state = common::claim_state(&rig.env, v.verification_id, &unsent).await;
        assert_eq!(state, None, "{}", unsent.key());
    }
    // Nothing logged the number (in any form) or the address.
    let logs = common::captured_logs();
    assert!(logs.contains("SMS sent"), "the SMS path logs");
    for private in [e164.as_str(), &e164[2..], &raw[6..], email.as_str()] {
        assert!(!logs.contains(private), "logs carry {private}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_sent_event_is_logged_and_redelivered_with_its_id_and_body() {
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let mut rig = rig().await;
    rig.env
        .secrets
        .put_webhook_secrets(
            devstack::stack::DEMO_ACCOUNT,
            &ports::WebhookSecrets {
                current: Some(SECRET.into()),
                previous: None,
                previous_valid_until: None,
            },
        )
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], std::time::Duration::ZERO).await;
    let v = rig
        .create(json!({"tenant_email": fresh_email(), "webhook_url": receiver.url}))
        .await;
    rig.fire_due(v.expires_at - Duration::hours(72)).await;
    assert_eq!(rig.deliver_webhooks().await, 1);
    let event_id = format!("msg_{}_reminder_sent_72h", v.verification_id.simple());
    let first = receiver.received();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].header("webhook-id"), Some(event_id.as_str()));
    // Logged under its verification, like every event.
    let key = rig.env.live_key.clone();
    let deliveries = format!(
        "/api/v1/webhooks/deliveries?verification_id={}",
        v.verification_id
    );
    let r = rig.env.call("GET", &deliveries, Some(&key), None).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(r.body["data"][0]["event_id"], event_id.as_str());
    assert_eq!(
        r.body["data"][0]["event_type"],
        "verification.reminder_sent"
    );

    // Stored before it was queued: the API redelivers it (it answered 404 before).
    let redeliver = format!("/api/v1/webhooks/redeliver?event_id={event_id}");
    let r = rig.env.call("POST", &redeliver, Some(&key), None).await;
    assert_eq!(r.status, 202, "{}", r.raw);
    assert_eq!(r.body["data"]["event_type"], "verification.reminder_sent");
    rig.drain_stream().await;
    assert_eq!(rig.deliver_webhooks().await, 1);
    let got = receiver.received();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].header("webhook-id"), Some(event_id.as_str()));
    assert_eq!(got[1].body, got[0].body, "the same bytes");
    verify_with_standard_webhooks(SECRET, &got[1]);
    let r = rig.env.call("GET", &deliveries, Some(&key), None).await;
    assert_eq!(r.body["pagination"]["total"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_false_and_an_unusable_number_keep_the_verification_and_its_email() {
    let mut rig = rig().await;
    let email = fresh_email();
    // Seven to fifteen digits (the contract's check), yet no number in any region.
    let v = rig
        .create(json!({"tenant_email": email, "tenant_phone": "000-000-0000", "reminders": false}))
        .await;
    assert_eq!(v.sms_phone, None);
    assert_eq!(v.sms, Some(domain::verification::SmsReach::Unusable));
    assert!(v.reminders_off);
    assert_eq!(
        sent_emails(&email).await.len(),
        1,
        "the e-mail still goes out"
    );
    assert!(sent_sms("+0000000000").await.is_empty());
    let schedules = rig.schedules().await;
    assert!(
        !schedules
            .keys()
            .any(|n| n.contains(&v.verification_id.simple().to_string())),
        "reminders: false schedules nothing"
    );
    // A bool only.
    let reply = rig
        .env
        .create_verification(
            &rig.env.live_key.clone(),
            json!({"tenant_email": fresh_email(), "reminders": "no"}),
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body["details"][0]["field"], "reminders");
}

/// The claim on DynamoDB itself: of concurrent claims exactly one wins; a live lease holds the
/// others off, a run-out one is taken over; once sent it stays sent; a cancelled verification
/// closes every message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_message_claim_is_one_conditional_write_with_one_winner() {
    use domain::reach::MESSAGE_LEASE;
    use ports::{ClaimStart, MessageClaim};
    let mut rig = rig().await;
    let v = rig
        .create(json!({"tenant_email": fresh_email(), "reminders": false}))
        .await;
    let store = rig.env.store.clone();
    let notice = Message::ReminderEmail("72h".into());
    let now = Utc::now();
    let claims = futures::future::join_all((0..6).map(|i| {
        let (store, notice) = (store.clone(), notice.clone());
        async move {
            store
                .claim_message(v.verification_id, &notice, &format!("hash{i}"), now)
                .await
                .unwrap()
        }
    }))
    .await;
    let winners = claims.iter().filter(|c| **c == ClaimStart::Claimed).count();
    assert_eq!(winners, 1, "{claims:?}");
    assert!(claims.iter().all(|c| matches!(
        c,
        ClaimStart::Claimed | ClaimStart::Refused(MessageClaim::Held)
    )));
    // The winner crashed: after its lease another attempt takes over.
    let later = now + MESSAGE_LEASE + Duration::seconds(1);
    let id = v.verification_id;
    let took_over = store.claim_message(id, &notice, "h", later).await.unwrap();
    assert_eq!(took_over, ClaimStart::Claimed);
    store.mark_message_sent(id, &notice, later).await.unwrap();
    store.mark_message_sent(id, &notice, later).await.unwrap();
    let again = store.claim_message(id, &notice, "h", later).await.unwrap();
    assert_eq!(again, ClaimStart::Refused(MessageClaim::Sent));
    let state = common::claim_state(&rig.env, id, &notice).await;
    assert_eq!(state.as_deref(), Some("sent"));
    // Released, then the verification is cancelled: closed.
    let sms = Message::ReminderSms("72h".into());
    assert_eq!(
        store.claim_message(id, &sms, "h", later).await.unwrap(),
        ClaimStart::Claimed
    );
    store.release_message(id, &sms).await.unwrap();
    let current = store.get_verification(id).await.unwrap().unwrap();
    store
        .transition(&current, &domain::Transition::Cancel, later)
        .await
        .unwrap();
    assert_eq!(
        store.claim_message(id, &sms, "h", later).await.unwrap(),
        ClaimStart::Closed
    );
}
