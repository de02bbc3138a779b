//! Resending the tenant's invite, against moto: each resend is a new e-mail with a new link (the
//! earlier ones keep working), a `verification.resent` webhook that the `standardwebhooks` library
//! verifies, a redelivered stream record sends no second e-mail, concurrent resends at the day's
//! limit never exceed it, and test mode follows TEST_MODE_DELIVERY (suppressed: no e-mail and no
//! SMS).

use crate::common;

use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use common::{Receiver, TestEnv, env, fresh_number, sent_emails, sent_sms};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
use domain::resend::MAX_RESENDS_PER_DAY;
use ports::WebhookSecrets;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::config::TestModeDelivery;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

struct Rig {
    env: TestEnv,
    workers: Workers,
    pump: StreamPump,
}

async fn rig() -> Rig {
    let env = env().await;
    let pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
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
    Rig { env, workers, pump }
}

impl Rig {
    /// Hands every new stream record to the outbox; returns the records read.
    async fn drain_stream(&mut self) -> Vec<EventRecord> {
        let mut all = Vec::new();
        for _ in 0..20 {
            let records: Vec<EventRecord> = self
                .pump
                .read()
                .await
                .unwrap()
                .into_iter()
                .map(|r| serde_json::from_value(r).expect("a stream record"))
                .collect();
            if records.is_empty() {
                return all;
            }
            let mut event = Event::default();
            event.records = records.clone();
            let response =
                service::handlers::publish_events::publish_events(&self.workers.outbox, event)
                    .await;
            assert!(response.batch_item_failures.is_empty());
            all.extend(records);
        }
        panic!("the stream did not settle");
    }

    /// `publish-events` as deployed (e-mail, webhooks, SMS and schedules), through the pump.
    async fn drain_stream_reaching(&mut self) {
        for _ in 0..20 {
            let handed = (self.pump)
                .pump_once(&self.workers.outbox, &self.workers.expiry)
                .await
                .unwrap();
            if handed == 0 {
                return;
            }
        }
        panic!("the stream did not settle");
    }

    async fn create(&self, email: &str, webhook_url: Option<&str>) -> uuid::Uuid {
        let mut body = json!({"tenant_email": email, "property_address": "4 Elm Row"});
        if let Some(url) = webhook_url {
            body["webhook_url"] = json!(url);
        }
        let r = self.env.create_verification(&self.env.test_key, body).await;
        assert_eq!(r.status, 201, "{}", r.raw);
        r.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    async fn resend(&self, id: uuid::Uuid) -> common::Reply {
        self.env.resend_verification(&self.env.test_key, &id).await
    }
}

/// The tenant links in an e-mail as moto recorded it.
fn links(env: &TestEnv, mail: &Value) -> Vec<String> {
    let text = mail.to_string();
    let prefix = format!("{}/t/", env.base);
    let mut out: Vec<String> = text
        .match_indices(&prefix)
        .map(|(at, _)| {
            text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/:.-_".contains(*c))
                .collect()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resend_mails_a_new_link_once_and_tells_the_webhook() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let to = format!("resend.{}@example.com", uuid::Uuid::new_v4().simple());
    let id = rig.create(&to, Some(&receiver.url)).await;
    rig.drain_stream().await;
    assert_eq!(sent_emails(&to).await.len(), 1);

    let r = rig.resend(id).await;
    assert_eq!(r.status, 202, "{}", r.raw);
    assert_eq!(r.body["data"]["verification_id"], id.to_string());
    assert_eq!(r.body["data"]["status"], "pending");
    assert_eq!(
        r.body["resends"],
        json!({"today": 1, "limit": 3, "remaining_today": 2})
    );
    assert!(r.header("x-ratelimit-remaining").is_some(), "metered");
    let records = rig.drain_stream().await;
    let mails = sent_emails(&to).await;
    assert_eq!(mails.len(), 2, "one more e-mail");
    let (first, second) = (links(&rig.env, &mails[0]), links(&rig.env, &mails[1]));
    assert_eq!((first.len(), second.len()), (1, 1));
    assert_ne!(first, second, "a new link");
    assert!(mails[1].to_string().contains("4 Elm Row"));
    // Both links open the tenant page.
    for link in first.iter().chain(&second) {
        let path = link.trim_start_matches(&rig.env.base);
        let page = rig.env.call("GET", path, None, None).await;
        assert_eq!(page.status, 200, "{path}");
    }

    // The stream delivers the resend's record again: no third e-mail, the same webhook id.
    let modify: Vec<EventRecord> = records
        .into_iter()
        .filter(|r| r.event_name == "MODIFY")
        .collect();
    assert!(!modify.is_empty());
    let mut again = Event::default();
    again.records = modify;
    service::handlers::publish_events::publish_events(&rig.workers.outbox, again).await;
    assert_eq!(sent_emails(&to).await.len(), 2, "each round is sent once");

    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    for _ in 0..5 {
        if pump_sqs_once(
            &sqs,
            &rig.env.created.webhook_queue_url,
            &rig.workers.delivery,
            0,
        )
        .await
        .unwrap()
            == 0
        {
            break;
        }
    }
    let got = receiver.received();
    let resent: Vec<_> = got
        .iter()
        .filter(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["type"] == "verification.resent"
        })
        .collect();
    assert!(!resent.is_empty(), "a verification.resent webhook");
    let expected_id = format!("msg_{}_resent_1", id.simple());
    assert!(
        resent
            .iter()
            .all(|r| r.header("webhook-id") == Some(expected_id.as_str()))
    );
    let body: Value = serde_json::from_str(&resent[0].body).unwrap();
    assert_eq!(body["data"]["verification_id"], id.to_string());
    common::verify_with_standard_webhooks(SECRET, resent[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_resends_at_the_limit_never_exceed_it() {
    let rig = rig().await;
    let id = rig.create("race@example.com", None).await;
    let replies = futures::future::join_all((0..8).map(|_| rig.resend(id))).await;
    let accepted = replies.iter().filter(|r| r.status == 202).count();
    let limited: Vec<_> = replies.iter().filter(|r| r.status == 429).collect();
    assert_eq!(
        accepted,
        MAX_RESENDS_PER_DAY as usize,
        "{:?}",
        replies.iter().map(|r| &r.raw).collect::<Vec<_>>()
    );
    assert_eq!(limited.len(), 8 - accepted);
    for r in &limited {
        assert_eq!(r.body["code"], "resend_limit_reached");
        let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=86_400).contains(&retry));
    }
    let stored = rig.env.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.invite_round, MAX_RESENDS_PER_DAY);
    assert_eq!(stored.resends_on_day, MAX_RESENDS_PER_DAY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_mode_resends_follow_test_mode_delivery() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let to = format!("quiet.{}@example.com", uuid::Uuid::new_v4().simple());
    let (raw, e164) = fresh_number();
    let r = rig
        .env
        .create_verification(
            &rig.env.test_key,
            json!({"tenant_email": to, "tenant_phone": raw, "webhook_url": receiver.url}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let id: uuid::Uuid = r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    rig.drain_stream_reaching().await;
    assert_eq!(
        sent_emails(&to).await.len(),
        1,
        "the local stack sends test mail"
    );
    assert_eq!(sent_sms(&e164).await.len(), 1, "and test SMS");
    // A deployed stack: test mode reaches nobody, by e-mail or by SMS.
    rig.workers.outbox.test_mode_delivery = TestModeDelivery::Suppress;
    assert_eq!(rig.resend(id).await.status, 202);
    rig.drain_stream_reaching().await;
    assert_eq!(
        sent_emails(&to).await.len(),
        1,
        "suppressed: nobody is mailed"
    );
    assert_eq!(
        sent_sms(&e164).await.len(),
        1,
        "suppressed: nobody is texted"
    );
    assert_eq!(
        common::queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        1,
        "the landlord's webhook still goes out"
    );
    // The same resend with delivery on is texted: the SMS above was held back by the setting,
    // not missing.
    rig.workers.outbox.test_mode_delivery = TestModeDelivery::Send;
    assert_eq!(rig.resend(id).await.status, 202);
    rig.drain_stream_reaching().await;
    assert_eq!(sent_sms(&e164).await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resend_whose_claim_fails_is_finished_by_the_retry_queue() {
    use test_support::{ArmedFaults, FaultyStore, StoreOp};
    let mut rig = rig().await;
    let to = format!("retry.{}@example.com", uuid::Uuid::new_v4().simple());
    let id = rig.create(&to, None).await;
    rig.drain_stream().await;
    assert_eq!(rig.resend(id).await.status, 202);
    // The table refuses the round's claim once: the work goes to the retry queue, not lost.
    let faults = ArmedFaults::default();
    faults.arm(StoreOp::ClaimMessage, 1);
    let o = &rig.workers.outbox;
    let outbox = service::handlers::publish_events::OutboxDeps {
        store: FaultyStore {
            inner: rig.env.store.clone(),
            faults: faults.clone(),
        },
        mailer: o.mailer.clone(),
        texter: o.texter.clone(),
        scheduler: o.scheduler.clone(),
        queue: o.queue.clone(),
        retry_queue: o.retry_queue.clone(),
        provider: adapters::live_provider::LiveProvider::local_sandbox(),
        clock: ports::SystemClock,
        public_base_url: o.public_base_url.clone(),
        test_mode_delivery: o.test_mode_delivery,
        reminder_offsets: o.reminder_offsets.clone(),
        retry_backoff: vec![0],
        sms: Default::default(),
    };
    let records: Vec<EventRecord> = rig
        .pump
        .read()
        .await
        .unwrap()
        .into_iter()
        .map(|r| serde_json::from_value(r).unwrap())
        .collect();
    let mut event = Event::default();
    event.records = records;
    let response = service::handlers::publish_events::publish_events(&outbox, event).await;
    assert!(
        response.batch_item_failures.is_empty(),
        "acknowledged: handed off"
    );
    assert_eq!(sent_emails(&to).await.len(), 1, "not sent yet");
    assert_eq!(
        common::queue_depth(&rig.env, &rig.env.created.retry_queue_url).await,
        1
    );
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    devstack::pump::pump_queue_once(&sqs, &rig.env.created.retry_queue_url, 0, |event| {
        service::handlers::retry_events::retry_events(&outbox, event)
    })
    .await
    .unwrap();
    assert_eq!(
        sent_emails(&to).await.len(),
        2,
        "the retry sent the resent invite"
    );
}
