//! The stream as outbox, against moto: tenant e-mail exactly once, SES failures, webhooks with
//! retries, DLQ and partial batches, Standard Webhooks signatures checked by the Python library,
//! and TTL expiry vs a person's delete.

use crate::common;

use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use chrono::Utc;
use common::{Receiver, TestEnv, env, queue_depth, sent_emails};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once, sweep_ttl};
use domain::webhook::WebhookMessage;
use domain::{Mode, NewVerificationInput, Status, Verification};
use ports::WebhookSecrets;
use ports::store::prelude::*;
use serde_json::{Value, json};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

struct Rig {
    env: TestEnv,
    workers: Workers,
    pump: StreamPump,
    ttl: TtlDeletions,
}

async fn rig() -> Rig {
    let env = env().await;
    let ttl = TtlDeletions::default();
    let pump = StreamPump::new(&env.sdk, &env.names.table, ttl.clone())
        .await
        .unwrap();
    // Zero back-off: a failed webhook is visible again at once, so retries run without waiting.
    let workers = env.workers();
    for account in [
        devstack::stack::DEMO_ACCOUNT,
        devstack::stack::OTHER_ACCOUNT,
    ] {
        let secrets = WebhookSecrets {
            current: Some(SECRET.into()),
            previous: None,
            previous_valid_until: None,
        };
        env.secrets
            .put_webhook_secrets(account, &secrets)
            .await
            .unwrap();
    }
    Rig {
        env,
        workers,
        pump,
        ttl,
    }
}

impl Rig {
    /// Runs the stream pump until it has nothing new (bounded).
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

    async fn pump_retries(&self) -> usize {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        devstack::pump::pump_retry_once(
            &sqs,
            &self.env.created.retry_queue_url,
            &self.workers.outbox,
            0,
        )
        .await
        .unwrap()
    }

    async fn create(&self, body: Value) -> String {
        let r = self.env.create_verification(&self.env.test_key, body).await;
        assert_eq!(r.status, 201, "{}", r.raw);
        r.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    async fn verification(&self, id: &str) -> Verification {
        self.env
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap()
    }
}

fn event(records: Vec<Value>) -> Event {
    let mut e = Event::default();
    e.records = records
        .into_iter()
        .map(|r| serde_json::from_value::<EventRecord>(r).unwrap())
        .collect();
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tenant_email_goes_out_once_even_when_the_insert_is_delivered_twice() {
    let mut rig = rig().await;
    let id = rig
        .create(json!({"tenant_email": "once@example.com", "tenant_name": "Olive", "property_address": "3 Pine Rd", "monthly_rent": 1100}))
        .await;
    let records = rig.pump.read().await.unwrap();
    let insert: Vec<Value> = records
        .into_iter()
        .filter(|r| {
            r["eventName"] == "INSERT" && r["dynamodb"]["Keys"]["SK"]["S"] == "VERIFICATION"
        })
        .collect();
    assert_eq!(insert.len(), 1);
    for _ in 0..2 {
        let response = service::handlers::publish_events::publish_events(
            &rig.workers.outbox,
            event(vec![insert[0].clone(), insert[0].clone()]),
        )
        .await;
        assert!(response.batch_item_failures.is_empty());
    }
    let mails = sent_emails("once@example.com").await;
    assert_eq!(mails.len(), 1, "exactly one e-mail");
    let mail = &mails[0];
    assert_eq!(
        mail["subject"],
        "Demo Lettings asks you to verify your income"
    );
    let html = mail["body"].as_str().unwrap();
    assert!(html.contains("3 Pine Rd") && html.contains("Hello,") && html.contains("expires on"));
    assert!(!html.contains("Olive"), "the greeting names nobody");
    // The link in the e-mail opens the tenant page.
    let start = html
        .find(&format!("{}/t/{id}/", rig.env.base))
        .expect("link in the e-mail");
    let link: String = html[start..]
        .chars()
        .take_while(|c| !matches!(c, '"' | '<' | ' '))
        .collect();
    let page = reqwest::get(&link).await.unwrap();
    assert_eq!(page.status(), 200);
    // Opening changes nothing (mail scanners fetch links too); the tenant's consent starts it.
    assert_eq!(rig.verification(&id).await.status, Status::Pending);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ses_failing_then_recovering_sends_once() {
    let mut rig = rig().await;
    rig.create(json!({"tenant_email": "flaky@example.com"}))
        .await;
    let records: Vec<Value> = rig
        .pump
        .read()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r["eventName"] == "INSERT")
        .collect();
    // SES unreachable: nothing is sent, the work goes to the retry queue and the record is
    // acknowledged (the shard moves on).
    let down = devstack::moto::sdk_config("http://127.0.0.1:1").await;
    let broken = service::handlers::publish_events::OutboxDeps {
        mailer: adapters::ses::SesMailer::new(
            aws_sdk_sesv2::Client::new(&down),
            rig.env.names.sender.clone(),
        ),
        texter: rig.workers.outbox.texter.clone(),
        scheduler: rig.workers.outbox.scheduler.clone(),
        queue: rig.workers.outbox.queue.clone(),
        retry_queue: rig.workers.outbox.retry_queue.clone(),
        provider: adapters::live_provider::LiveProvider::local_sandbox(),
        store: rig.env.store.clone(),
        clock: ports::SystemClock,
        public_base_url: rig.env.base.clone(),
        test_mode_delivery: service::config::TestModeDelivery::Send,
        reminder_offsets: rig.workers.outbox.reminder_offsets.clone(),
        retry_backoff: vec![0],
        sms: Default::default(),
    };
    let response =
        service::handlers::publish_events::publish_events(&broken, event(records.clone())).await;
    assert!(response.batch_item_failures.is_empty());
    assert!(sent_emails("flaky@example.com").await.is_empty());
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await,
        1
    );
    // SES back: the retry sends, once; a late duplicate of the record sends nothing more.
    assert_eq!(rig.pump_retries().await, 1);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await,
        0
    );
    let response =
        service::handlers::publish_events::publish_events(&rig.workers.outbox, event(records))
            .await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(sent_emails("flaky@example.com").await.len(), 1);
}

/// moto refuses a sender identity it does not know with SES's "Email address not verified": the
/// service's fault, so the verification stays pending, the e-mail waits on the retry queue with
/// an alarm in the logs, and goes out once the identity is fixed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_sender_is_the_operators_fault_not_the_tenants() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let id = rig
        .create(json!({"tenant_email": "operator@example.com", "webhook_url": receiver.url}))
        .await;
    let good_mailer = std::mem::replace(
        &mut rig.workers.outbox.mailer,
        adapters::ses::SesMailer::new(
            aws_sdk_sesv2::Client::new(&rig.env.sdk),
            "nobody@unverified.test",
        ),
    );
    rig.drain_stream().await;
    assert_eq!(rig.verification(&id).await.status, Status::Pending);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await,
        1
    );
    assert!(common::captured_logs().contains("\"alarm\":\"ses_operator_error\""));
    // Still misconfigured: retried again, still not failed.
    assert_eq!(rig.pump_retries().await, 1);
    assert_eq!(rig.verification(&id).await.status, Status::Pending);
    // Fixed: the retry sends the e-mail; no webhook was ever due.
    rig.workers.outbox.mailer = good_mailer;
    assert_eq!(rig.pump_retries().await, 1);
    assert_eq!(sent_emails("operator@example.com").await.len(), 1);
    assert_eq!(rig.verification(&id).await.status, Status::Pending);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await,
        0
    );
    rig.drain_stream().await;
    rig.pump_queue().await;
    assert!(receiver.received().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_sends_a_signed_webhook_a_stock_library_verifies() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let r = rig
        .env
        .create_verification(&rig.env.test_key, json!({"tenant_email": "hook+good@example.com", "monthly_rent": 1500, "webhook_url": receiver.url}))
        .await;
    let id = r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = r.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .to_string();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    http.get(&link).send().await.unwrap();
    for form in ["action=consent&agree=yes", "action=connect&scenario=good"] {
        let resp = http
            .post(&link)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 303);
    }
    rig.drain_stream().await;
    assert_eq!(rig.pump_queue().await, 2);
    let got = receiver.received();
    let types: Vec<String> = got
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut sorted = types.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        vec!["verification.completed", "verification.in_progress"]
    );
    let completed = got
        .iter()
        .find(|r| r.body.contains("verification.completed"))
        .unwrap();
    let body: Value = serde_json::from_str(&completed.body).unwrap();
    assert_eq!(body["data"]["verification_id"], id.as_str());
    assert_eq!(body["data"]["status"], "completed");
    assert_eq!(
        body["data"]["income_report"]["total_monthly_income"],
        5200.0
    );
    assert_eq!(body["data"]["income_report"]["passes_3x_rule"], true);
    assert!(body["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(completed.header("content-type"), Some("application/json"));
    assert!(completed.header("webhook-id").unwrap().starts_with("msg_"));
    common::verify_with_standard_webhooks(SECRET, completed);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_a_secret_rotation_both_secrets_sign() {
    let rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let new_secret = domain::secrets::generate_webhook_secret();
    let secrets = WebhookSecrets {
        current: Some(new_secret.clone()),
        previous: Some(SECRET.into()),
        previous_valid_until: Some(Utc::now() + chrono::Duration::hours(1)),
    };
    rig.env
        .secrets
        .put_webhook_secrets(devstack::stack::DEMO_ACCOUNT, &secrets)
        .await
        .unwrap();
    let message = WebhookMessage {
        webhook_id: "msg_rotation".into(),
        account_id: devstack::stack::DEMO_ACCOUNT.into(),
        url: receiver.url.clone(),
        body: json!({"type": "verification.expired", "timestamp": "2026-11-21T00:00:00.000Z", "data": {}}).to_string(),
    };
    common::queue_webhook(&rig.env.store, &rig.workers.delivery.queue, &message).await;
    rig.pump_queue().await;
    let got = receiver.received();
    assert_eq!(
        got[0]
            .header("webhook-signature")
            .unwrap()
            .split(' ')
            .count(),
        2
    );
    common::verify_with_standard_webhooks(&new_secret, &got[0]);
    common::verify_with_standard_webhooks(SECRET, &got[0]);
}

async fn queue_message(rig: &Rig, url: &str, id: &str) {
    let message = WebhookMessage {
        webhook_id: id.into(),
        account_id: devstack::stack::DEMO_ACCOUNT.into(),
        url: url.into(),
        body: json!({"type": "verification.completed", "timestamp": "2026-11-21T00:00:00.000Z", "data": {"n": id}}).to_string(),
    };
    common::queue_webhook(&rig.env.store, &rig.workers.delivery.queue, &message).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_then_200_is_delivered_on_retry_with_the_same_webhook_id() {
    let rig = rig().await;
    let receiver = Receiver::start(vec![500, 200], Duration::ZERO).await;
    queue_message(&rig, &receiver.url, "msg_retry").await;
    assert_eq!(rig.pump_queue().await, 1);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        1,
        "kept for a retry"
    );
    assert_eq!(rig.pump_queue().await, 1);
    let got = receiver.received();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
    assert_eq!(got[0].body, got[1].body);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0,
        "delivered and deleted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_down_through_every_attempt_ends_in_the_dead_letter_queue() {
    let rig = rig().await;
    let closed_origin = format!("http://127.0.0.1:{}", devstack::moto::free_port());
    rig.env.webhook_origins.allow(&closed_origin).unwrap();
    let closed = format!("{closed_origin}/hook");
    queue_message(&rig, &closed, "msg_down").await;
    let mut attempts = 0;
    // Bounded: maxReceiveCount receives, then SQS moves the message on the next receive.
    for _ in 0..(devstack::stack::WEBHOOK_MAX_RECEIVES + 3) {
        if rig.pump_queue().await == 0
            && queue_depth(&rig.env, &rig.env.created.webhook_dlq_url).await == 1
        {
            break;
        }
        attempts += 1;
    }
    assert_eq!(attempts, devstack::stack::WEBHOOK_MAX_RECEIVES as usize);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0
    );
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_dlq_url).await,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_bad_endpoint_in_a_batch_of_ten_is_the_only_one_retried() {
    let rig = rig().await;
    let good = Receiver::start(vec![200], Duration::ZERO).await;
    let closed_origin = format!("http://127.0.0.1:{}", devstack::moto::free_port());
    rig.env.webhook_origins.allow(&closed_origin).unwrap();
    let closed = format!("{closed_origin}/hook");
    for i in 0..9 {
        queue_message(&rig, &good.url, &format!("msg_good_{i}")).await;
    }
    queue_message(&rig, &closed, "msg_bad").await;
    let mut handed = 0;
    for _ in 0..3 {
        handed += rig.pump_queue().await;
        if good.received().len() == 9 {
            break;
        }
    }
    assert!(handed >= 10);
    assert_eq!(good.received().len(), 9);
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let left = sqs
        .receive_message()
        .queue_url(&rig.env.created.webhook_queue_url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    assert_eq!(left.len(), 1);
    assert!(left[0].body.as_deref().unwrap().contains("msg_bad"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gone_and_forbidden_targets_are_not_retried() {
    let rig = rig().await;
    let gone = Receiver::start(vec![410], Duration::ZERO).await;
    queue_message(&rig, &gone.url, "msg_gone").await;
    queue_message(
        &rig,
        "http://169.254.169.254/latest/meta-data",
        "msg_metadata",
    )
    .await;
    queue_message(&rig, "http://10.1.2.3/hook", "msg_private").await;
    rig.pump_queue().await;
    assert_eq!(gone.received().len(), 1);
    assert_eq!(
        queue_depth(&rig.env, &rig.env.created.webhook_queue_url).await,
        0
    );

    // A production client (https only, no loopback) refuses what the local one allows.
    use ports::webhooks::WebhookSender as _;
    let strict = adapters::webhook_client::WebhookClient::new(
        Duration::from_secs(2),
        domain::webhook::LocalWebhookOrigins::default(),
    );
    let message = WebhookMessage {
        webhook_id: "m".into(),
        account_id: "a".into(),
        url: gone.url.clone(),
        body: "{}".into(),
    };
    assert_eq!(
        strict.send(&message, &[SECRET], 0).await,
        ports::webhooks::Attempt::Refused
    );
    assert_eq!(gone.received().len(), 1, "nothing reached the receiver");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_delivered_concurrently() {
    let rig = rig().await;
    // Each request is held until all ten arrived: one at a time, the first would wait out the
    // hold (longer than the delivery's own timeout) and the ten would never be in flight together.
    let slow = Receiver::start(vec![200], Duration::from_secs(30)).await;
    slow.hold_until(10);
    for i in 0..10 {
        queue_message(&rig, &slow.url, &format!("msg_slow_{i}")).await;
    }
    let handed = rig.pump_queue().await;
    assert_eq!(handed, 10);
    assert_eq!(slow.answered(), 10);
    assert_eq!(
        slow.max_in_flight(),
        10,
        "all ten requests were in flight together"
    );
}

fn expired_verification(email: &str) -> Verification {
    let input = NewVerificationInput {
        tenant_email: email.into(),
        ..Default::default()
    };
    let created = Utc::now() - chrono::Duration::days(7);
    let lifetime = chrono::Duration::days(7) - chrono::Duration::seconds(1);
    Verification::new_pending(
        devstack::stack::DEMO_ACCOUNT,
        Mode::Test,
        input,
        created,
        lifetime,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_removal_expires_and_a_persons_delete_does_not() {
    let mut rig = rig().await;
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let mut by_ttl = expired_verification("ttl@example.com");
    by_ttl.webhook_url = Some(receiver.url.clone());
    let by_person = expired_verification("person@example.com");
    for v in [&by_ttl, &by_person] {
        rig.env
            .store
            .create_verification(v, None, None)
            .await
            .unwrap();
    }
    rig.drain_stream().await;
    // A person deletes one marker by hand: no TTL identity, so nothing expires.
    let dynamo = aws_sdk_dynamodb::Client::new(&rig.env.sdk);
    let (pk, sk) = service::table_schema::keys::expiry_marker(by_person.verification_id);
    dynamo
        .delete_item()
        .table_name(&rig.env.names.table)
        .key("PK", aws_sdk_dynamodb::types::AttributeValue::S(pk))
        .key("SK", aws_sdk_dynamodb::types::AttributeValue::S(sk))
        .send()
        .await
        .unwrap();
    // The TTL sweeper removes the other (and nothing else is due).
    assert_eq!(
        sweep_ttl(&dynamo, &rig.env.names.table, &rig.ttl)
            .await
            .unwrap(),
        1
    );
    rig.drain_stream().await;
    let ttl_after = rig.verification(&by_ttl.verification_id.to_string()).await;
    assert_eq!(ttl_after.status, Status::Expired);
    assert!(ttl_after.expired_at.is_some() && ttl_after.cancelled_at.is_none());
    assert_eq!(
        rig.verification(&by_person.verification_id.to_string())
            .await
            .status,
        Status::Pending
    );
    rig.pump_queue().await;
    let got = receiver.received();
    assert_eq!(got.len(), 1);
    assert!(got[0].body.contains("\"verification.expired\""));
    let usage = rig
        .env
        .call(
            "GET",
            "/api/v1/verifications?status=expired",
            Some(&rig.env.test_key),
            None,
        )
        .await;
    // The hand-deleted one is still stored pending, but past expires_at it shows (so is listed
    // and counted) as expired, like the swept one.
    assert_eq!(usage.body["pagination"]["total"], 2);
    assert!(
        usage.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["status"] == "expired")
    );
}
