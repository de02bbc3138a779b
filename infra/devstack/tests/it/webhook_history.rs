//! The webhook delivery log and redelivery, against moto: every attempt is logged (success,
//! failure with the HTTP status or the network error class, the final attempt before the DLQ);
//! a redelivered event (also one from the DLQ) carries the same `webhook-id` and body with a fresh
//! signature that the `standardwebhooks` Python library verifies; the API scopes both to the
//! caller; a log write that fails neither retries a delivered webhook nor goes unreported;
//! secrets the store cannot read retry the webhook without logging an attempt; an event that
//! cannot be stored is not queued and not lost (the retry queue redoes it).

use crate::common;

use std::time::Duration;

use chrono::Utc;
use common::{Receiver, TestEnv, env, queue_depth, verify_with_standard_webhooks};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
use domain::Transition;
use ports::WebhookSecrets;
use ports::store::prelude::*;
use serde_json::json;
use service::handlers::deliver_webhook::{DeliveryDeps, deliver_webhooks};
use test_support::{ArmedFaults, FaultyStore, StoreOp};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const DELIVERIES: &str = "/api/v1/webhooks/deliveries";
const REDELIVER: &str = "/api/v1/webhooks/redeliver";

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
    // Zero back-off: a failed webhook is visible again at once.
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
    async fn drain_stream(&mut self) {
        for _ in 0..20 {
            if self
                .pump
                .pump_once(&self.workers.outbox, &self.workers.expiry)
                .await
                .unwrap()
                == 0
            {
                return;
            }
        }
        panic!("the stream did not settle");
    }

    async fn pump_queue(&self) -> usize {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        pump_sqs_once(
            &sqs,
            &self.env.created.webhook_queue_url,
            &self.workers.delivery,
            0,
        )
        .await
        .unwrap()
    }

    /// A test verification with `webhook_url`, moved to in_progress (its webhook is queued once
    /// the stream is drained). Returns its id.
    async fn started(&mut self, webhook_url: &str) -> uuid::Uuid {
        let r = self
            .env
            .create_verification(
                &self.env.test_key,
                json!({"tenant_email": "hook@example.com", "webhook_url": webhook_url}),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.raw);
        let id: uuid::Uuid = r.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let v = self.env.store.get_verification(id).await.unwrap().unwrap();
        self.env
            .store
            .transition(&v, &Transition::Start, Utc::now())
            .await
            .unwrap();
        self.drain_stream().await;
        id
    }

    async fn deliveries(&self, id: uuid::Uuid, key: &str) -> common::Reply {
        self.env
            .call(
                "GET",
                &format!("{DELIVERIES}?verification_id={id}&limit=100"),
                Some(key),
                None,
            )
            .await
    }

    async fn redeliver(&self, event_id: &str, key: &str) -> common::Reply {
        self.env
            .call(
                "POST",
                &format!("{REDELIVER}?event_id={event_id}"),
                Some(key),
                None,
            )
            .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_then_a_success_are_logged_newest_first_and_a_redelivery_verifies() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![500, 200], Duration::ZERO).await;
    let id = rig.started(&receiver.url).await;
    assert_eq!(rig.pump_queue().await, 1);
    assert_eq!(rig.pump_queue().await, 1);
    assert_eq!(receiver.received().len(), 2);

    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(r.body["pagination"]["total"], 2);
    let log = r.body["data"].as_array().unwrap();
    let event_id = format!("msg_{}_in_progress", id.simple());
    assert_eq!(log[0]["event_id"], event_id.as_str());
    assert_eq!(log[0]["event_type"], "verification.in_progress");
    assert_eq!(
        (
            &log[0]["attempt"],
            &log[0]["outcome"],
            &log[0]["http_status"]
        ),
        (&json!(2), &json!("delivered"), &json!(200))
    );
    assert_eq!(
        (
            &log[1]["attempt"],
            &log[1]["outcome"],
            &log[1]["http_status"]
        ),
        (&json!(1), &json!("failed"), &json!(500))
    );
    assert!(
        log.iter()
            .all(|a| a["final_attempt"] == false && a["error"].is_null())
    );
    assert!(log[0]["attempted_at"].as_str().unwrap() >= log[1]["attempted_at"].as_str().unwrap());

    // Paging: offset 1, limit 1 is the older attempt.
    let r = rig
        .env
        .call(
            "GET",
            &format!("{DELIVERIES}?verification_id={id}&limit=1&offset=1"),
            Some(&rig.env.test_key),
            None,
        )
        .await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["data"][0]["attempt"], 1);
    assert_eq!(
        r.body["pagination"],
        json!({"limit": 1, "offset": 1, "total": 2})
    );

    // Another account, the other mode: not found, for the log and for the event.
    for key in [&rig.env.other_test_key, &rig.env.live_key] {
        assert_eq!(rig.deliveries(id, key).await.status, 404);
        assert_eq!(rig.redeliver(&event_id, key).await.status, 404);
    }
    // Nothing was queued by the refused requests.
    rig.drain_stream().await;
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0
    );

    // Redelivery: the same id and body, freshly signed, verified by the reference library.
    let r = rig.redeliver(&event_id, &rig.env.test_key).await;
    assert_eq!(r.status, 202, "{}", r.raw);
    assert_eq!(r.body["data"]["event_id"], event_id.as_str());
    rig.drain_stream().await;
    assert_eq!(rig.pump_queue().await, 1);
    let got = receiver.received();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2].header("webhook-id"), Some(event_id.as_str()));
    assert_eq!(got[2].body, got[1].body, "the same bytes");
    verify_with_standard_webhooks(SECRET, &got[2]);
    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(r.body["pagination"]["total"], 3);
    assert_eq!(r.body["data"][0]["attempt"], 1, "a redelivery starts at 1");
    assert_eq!(r.body["data"][0]["outcome"], "delivered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_lettered_event_is_logged_as_final_and_can_be_redelivered() {
    let mut rig = rig().await;
    let max = devstack::stack::WEBHOOK_MAX_RECEIVES as usize;
    // Fails every attempt the queue allows, then accepts the redelivery.
    let mut statuses = vec![503; max];
    statuses.push(200);
    let receiver = Receiver::start(statuses, Duration::ZERO).await;
    let id = rig.started(&receiver.url).await;
    let mut attempts = 0;
    for _ in 0..(max + 3) {
        if rig.pump_queue().await == 0
            && queue_depth(&rig.env, &rig.env.created.webhook_dlq_url).await == 1
        {
            break;
        }
        attempts += 1;
    }
    assert_eq!(attempts, max);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_dlq_url).await,
        1
    );
    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(r.body["pagination"]["total"], max as u64);
    let log = r.body["data"].as_array().unwrap();
    assert_eq!(log[0]["attempt"], max as u64);
    assert_eq!(
        log[0]["final_attempt"], true,
        "the last attempt before the DLQ"
    );
    assert_eq!(log[0]["http_status"], 503);
    assert!(log[1..].iter().all(|a| a["final_attempt"] == false));
    assert!(common::captured_logs().contains("webhook_dead_lettered"));

    let event_id = log[0]["event_id"].as_str().unwrap().to_string();
    let r = rig.redeliver(&event_id, &rig.env.test_key).await;
    assert_eq!(r.status, 202, "{}", r.raw);
    rig.drain_stream().await;
    assert_eq!(rig.pump_queue().await, 1);
    let got = receiver.received();
    assert_eq!(got.len(), max + 1);
    assert_eq!(got[max].header("webhook-id"), Some(event_id.as_str()));
    assert_eq!(got[max].body, got[0].body);
    assert_ne!(
        got[max].header("webhook-signature"),
        None,
        "signed at delivery"
    );
    verify_with_standard_webhooks(SECRET, &got[max]);
    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(r.body["data"][0]["outcome"], "delivered");
    assert_eq!(r.body["data"][0]["attempt"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_is_not_listening_is_logged_as_a_connect_error() {
    let mut rig = rig().await;
    let closed_origin = format!("http://127.0.0.1:{}", devstack::moto::free_port());
    rig.env.webhook_origins.allow(&closed_origin).unwrap();
    let id = rig.started(&format!("{closed_origin}/hook")).await;
    assert_eq!(rig.pump_queue().await, 1);
    let r = rig.deliveries(id, &rig.env.test_key).await;
    let entry = &r.body["data"][0];
    assert_eq!(entry["outcome"], "failed");
    assert_eq!(entry["error"], "connect");
    assert!(entry["http_status"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_write_that_fails_neither_retries_the_delivered_webhook_nor_goes_unreported() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let id = rig.started(&receiver.url).await;
    let faults = ArmedFaults::default();
    faults.down(StoreOp::RecordDeliveryAttempt);
    let delivery = DeliveryDeps {
        store: FaultyStore {
            inner: rig.env.store.clone(),
            faults: faults.clone(),
        },
        secrets: rig.workers.delivery.secrets.clone(),
        queue: rig.workers.delivery.queue.clone(),
        clock: ports::SystemClock,
        client: rig.workers.delivery.client.clone(),
        backoff: vec![0],
        max_attempts: rig.workers.delivery.max_attempts,
    };
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let handed =
        devstack::pump::pump_queue_once(&sqs, &rig.env.created.webhook_queue_url, 0, |event| {
            deliver_webhooks(&delivery, event)
        })
        .await
        .unwrap();
    assert_eq!(handed, 1);
    assert_eq!(receiver.received().len(), 1, "delivered once");
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0,
        "not retried"
    );
    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(r.body["pagination"]["total"], 0);
    // Reported: an error line with the alarm and the entry's fields.
    let logs = common::captured_logs();
    let line = logs
        .lines()
        .find(|l| l.contains("webhook_log_write_failed") && l.contains(&id.to_string()))
        .expect("the lost log entry is in the function's logs");
    assert!(line.contains("\"ERROR\""), "{line}");
    assert!(
        line.contains("Some(200)"),
        "the entry's HTTP status: {line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_secrets_retry_the_webhook_without_logging_an_attempt() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let id = rig.started(&receiver.url).await;
    let faults = ArmedFaults::default();
    faults.down(StoreOp::GetWebhookSecrets);
    let delivery = DeliveryDeps {
        store: rig.env.store.clone(),
        secrets: FaultyStore {
            inner: rig.workers.delivery.secrets.clone(),
            faults: faults.clone(),
        },
        queue: rig.workers.delivery.queue.clone(),
        clock: ports::SystemClock,
        client: rig.workers.delivery.client.clone(),
        backoff: vec![0],
        max_attempts: rig.workers.delivery.max_attempts,
    };
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let url = rig.env.created.webhook_queue_url.clone();
    // One batch through the handler; the ids it reported failed.
    let batch = || async {
        let failed = std::sync::Mutex::new(Vec::new());
        let handed = devstack::pump::pump_queue_once(&sqs, &url, 0, |event| async {
            let response = deliver_webhooks(&delivery, event).await;
            let ids = response.batch_item_failures.iter();
            *failed.lock().unwrap() = ids.map(|f| f.item_identifier.clone()).collect();
            response
        })
        .await
        .unwrap();
        (handed, failed.into_inner().unwrap())
    };

    let (handed, failed) = batch().await;
    assert_eq!((handed, failed.len()), (1, 1), "reported failed: retried");
    assert!(receiver.received().is_empty(), "nothing was sent");
    assert_eq!(queue_depth(&rig.env, &url).await, 1, "still queued");
    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(
        r.body["pagination"]["total"], 0,
        "no attempt logged: {}",
        r.raw
    );
    let webhook_id = format!("msg_{}_in_progress", id.simple());
    let logs = common::captured_logs();
    let line = (logs.lines())
        .find(|l| l.contains("webhook secrets could not be read") && l.contains(&webhook_id))
        .expect("the store failure is logged as such");
    assert!(
        line.contains("injected fault at GetWebhookSecrets"),
        "{line}"
    );

    // Secrets Manager is back: the next batch delivers it, once.
    faults.restore(StoreOp::GetWebhookSecrets);
    let (handed, failed) = batch().await;
    assert_eq!((handed, failed.len()), (1, 0));
    let received = receiver.received();
    assert_eq!(received.len(), 1, "delivered once");
    verify_with_standard_webhooks(SECRET, &received[0]);
    assert_eq!(queue_depth(&rig.env, &url).await, 0);
    let r = rig.deliveries(id, &rig.env.test_key).await;
    assert_eq!(r.body["pagination"]["total"], 1, "{}", r.raw);
    assert_eq!(r.body["data"][0]["outcome"], "delivered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_that_cannot_be_stored_is_not_queued_and_the_retry_queue_finishes_it_from_the_table()
 {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let r = rig
        .env
        .create_verification(
            &rig.env.test_key,
            json!({"tenant_email": "hook@example.com", "webhook_url": receiver.url}),
        )
        .await;
    let id: uuid::Uuid = r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    rig.drain_stream().await;
    let v = rig.env.store.get_verification(id).await.unwrap().unwrap();
    rig.env
        .store
        .transition(&v, &Transition::Start, Utc::now())
        .await
        .unwrap();
    // The outbox's store refuses the event: the webhook is not queued unstored.
    let faults = ArmedFaults::default();
    faults.down(StoreOp::PutWebhookEvent);
    let outbox = wiring_outbox_with(
        &rig,
        FaultyStore {
            inner: rig.env.store.clone(),
            faults: faults.clone(),
        },
    );
    for _ in 0..5 {
        if rig
            .pump
            .pump_once(&outbox, &rig.workers.expiry)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0,
        "never queued without being stored"
    );
    // Handed to the retry queue by keys: no body, nothing of the tenant.
    let handed = common::queue_bodies(&rig.env, &rig.env.created.retry_queue_url).await;
    assert_eq!(handed.len(), 1, "handed to the retry queue: {handed:?}");
    assert!(!handed[0].contains("hook@example.com"), "{}", handed[0]);
    let message: serde_json::Value = serde_json::from_str(&handed[0]).unwrap();
    let of = json!({"subject": "verification", "verification_id": id, "event": "in_progress"});
    assert_eq!(
        message["work"],
        json!({"kind": "webhook", "of": of}),
        "{message}"
    );
    // The table is back: the retry stores and queues it; it can then be redelivered.
    faults.restore(StoreOp::PutWebhookEvent);
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    devstack::pump::pump_queue_once(&sqs, &rig.env.created.retry_queue_url, 0, |event| {
        service::handlers::retry_events::retry_events(&outbox, event)
    })
    .await
    .unwrap();
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        1
    );
    let event_id = format!("msg_{}_in_progress", id.simple());
    let stored = rig.env.store.get_webhook_event(&event_id).await.unwrap();
    let stored = stored.expect("the retry stored the event");
    assert_eq!(
        stored.subject,
        domain::webhook_log::WebhookSubject::Verification(id)
    );
    // Built from the table: the event the first attempt would have sent.
    let body: serde_json::Value = serde_json::from_str(&stored.message.body).unwrap();
    assert_eq!(body["type"], "verification.in_progress", "{body}");
    assert_eq!(
        body["data"]["tenant"]["email"], "hook@example.com",
        "{body}"
    );
}

/// The outbox's deps with another store (the fault plan's), the rest as the rig's.
fn wiring_outbox_with<S>(
    rig: &Rig,
    store: S,
) -> service::handlers::publish_events::OutboxDeps<
    S,
    adapters::ses::SesMailer,
    adapters::sns::SnsTexter,
    adapters::scheduler::EventBridgeScheduler,
    adapters::sqs::SqsQueue,
    ports::SystemClock,
    adapters::live_provider::LiveProvider,
> {
    let o = &rig.workers.outbox;
    service::handlers::publish_events::OutboxDeps {
        store,
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
    }
}
