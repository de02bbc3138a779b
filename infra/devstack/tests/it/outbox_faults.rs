//! The outbox under faults, against moto: a fault injected at each step of the tenant e-mail in
//! turn, a multi-hour SES and SQS outage on an injected clock, the give-up after the retry window
//! (with the allowance refunded), a permanent rejection, test-mode delivery; a 30-hour SNS and
//! scheduler outage that holds no e-mail or webhook and grows no item; and a hundred failed
//! attempts at one message that leave its items as large as the first did.
//!
//! The wrappers below sit around the real adapters (DynamoDB, SES, SNS, Scheduler, SQS on moto)
//! and fail a chosen step a chosen number of times; the clock is the test's, so hours pass
//! without waiting.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use adapters::dynamo::DynamoStore;
use adapters::scheduler::EventBridgeScheduler;
use adapters::ses::SesMailer;
use adapters::sns::SnsTexter;
use adapters::sqs::SqsQueue;
use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_sdk_sqs::types::ChangeMessageVisibilityBatchRequestEntry;
use chrono::{DateTime, Utc};
use common::{TestEnv, env, fresh_number, queue_depth, sent_emails, sent_sms, stored_item_size};
use devstack::pump::{StreamPump, TtlDeletions, pump_queue_once};
use domain::{Status, Verification};
use ports::store::prelude::*;
use ports::{
    Clock, Email, MailError, Mailer, OneTimeSchedule, Queue, Scheduler, Sms, StoreError, TextError,
    Texter,
};
use serde_json::{Value, json};
use service::config::TestModeDelivery;
use service::handlers::publish_events::OutboxDeps;
use service::table_schema::keys;
use test_support::{FaultPlan, StoreOp};
use uuid::Uuid;
mod windows_and_sizes;

/// The steps of the e-mail path (and its queues) a fault can be injected at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Step {
    GetVerification,
    Claim,
    AccountRead,
    LinkToken,
    Ses,
    MarkSent,
    Release,
    MarkRejected,
    FailTransition,
    RetryQueue,
    WebhookQueue,
    /// SNS (every SMS) and EventBridge Scheduler (every schedule).
    Sns,
    Scheduler,
}

/// Remaining failures per step; `u32::MAX` is "down until restored".
#[derive(Clone, Default)]
struct Faults(Arc<Mutex<HashMap<Step, u32>>>);

impl Faults {
    fn arm(&self, step: Step, times: u32) {
        self.0.lock().unwrap().insert(step, times);
    }
    fn down(&self, step: Step) {
        self.arm(step, u32::MAX);
    }
    fn restore(&self, step: Step) {
        self.0.lock().unwrap().remove(&step);
    }
    /// Whether this call of `step` fails (and counts it).
    fn hit(&self, step: Step) -> bool {
        let mut faults = self.0.lock().unwrap();
        match faults.get_mut(&step) {
            Some(0) | None => false,
            Some(n) => {
                if *n != u32::MAX {
                    *n -= 1;
                }
                true
            }
        }
    }
    fn check(&self, step: Step) -> Result<(), StoreError> {
        if self.hit(step) {
            Err(StoreError::Unavailable(format!(
                "injected fault at {step:?}"
            )))
        } else {
            Ok(())
        }
    }
}

#[derive(Clone)]
struct TestClock(Arc<Mutex<DateTime<Utc>>>);

impl TestClock {
    fn advance(&self, seconds: i64) {
        *self.0.lock().unwrap() += chrono::Duration::seconds(seconds);
    }
}

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// The real DynamoStore, failing the injected steps (the other operations pass through).
type FaultyStore = test_support::FaultyStore<DynamoStore, Faults>;

impl FaultPlan for Faults {
    fn check(&self, op: StoreOp) -> Result<(), StoreError> {
        let step = match op {
            StoreOp::GetVerification => Step::GetVerification,
            StoreOp::ClaimMessage => Step::Claim,
            StoreOp::GetAccount => Step::AccountRead,
            StoreOp::AddLinkToken => Step::LinkToken,
            StoreOp::MarkMessageSent => Step::MarkSent,
            StoreOp::ReleaseMessage => Step::Release,
            StoreOp::MarkMessageRejected => Step::MarkRejected,
            StoreOp::Transition => Step::FailTransition,
            _ => return Ok(()),
        };
        Faults::check(self, step)
    }
}

/// SES on moto; an injected `Ses` fault is an outage (transient). Addresses with `+bounce` are
/// refused for good, as SES refuses a suppressed recipient (moto cannot produce that).
#[derive(Clone)]
struct FaultyMailer {
    inner: SesMailer,
    faults: Faults,
}

impl Mailer for FaultyMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        if self.faults.hit(Step::Ses) {
            return Err(MailError::Transient("injected outage".into()));
        }
        if email.to.contains("+bounce") {
            return Err(MailError::Permanent("message rejected".into()));
        }
        self.inner.send(email).await
    }
}

/// SQS on moto, failing sends while its step is faulted.
#[derive(Clone)]
struct FaultyQueue {
    inner: SqsQueue,
    faults: Faults,
    step: Step,
}

impl Queue for FaultyQueue {
    async fn send(&self, body: &str) -> Result<(), StoreError> {
        self.faults.check(self.step)?;
        self.inner.send(body).await
    }
    async fn retry_later(
        &self,
        receipt_handle: &str,
        delay_seconds: u32,
    ) -> Result<(), StoreError> {
        self.inner.retry_later(receipt_handle, delay_seconds).await
    }
}

/// SNS on moto; an injected `Sns` fault is an outage (transient).
#[derive(Clone)]
struct FaultyTexter {
    inner: SnsTexter,
    faults: Faults,
}

impl Texter for FaultyTexter {
    async fn send(&self, sms: &Sms) -> Result<(), TextError> {
        if self.faults.hit(Step::Sns) {
            return Err(TextError::Transient("injected outage".into()));
        }
        self.inner.send(sms).await
    }
}

/// EventBridge Scheduler on moto, failing while `Scheduler` is faulted; counts the schedules it
/// created (a name created again answers success without creating it twice).
#[derive(Clone)]
struct FaultyScheduler {
    inner: EventBridgeScheduler,
    faults: Faults,
    created: Arc<Mutex<Vec<String>>>,
}

impl Scheduler for FaultyScheduler {
    async fn create_once(&self, schedule: &OneTimeSchedule) -> Result<(), StoreError> {
        self.faults.check(Step::Scheduler)?;
        self.inner.create_once(schedule).await?;
        self.created.lock().unwrap().push(schedule.name.clone());
        Ok(())
    }
}

type Deps = OutboxDeps<
    FaultyStore,
    FaultyMailer,
    FaultyTexter,
    FaultyScheduler,
    FaultyQueue,
    TestClock,
    adapters::live_provider::LiveProvider,
>;

struct Rig {
    env: TestEnv,
    deps: Deps,
    faults: Faults,
    clock: TestClock,
    pump: StreamPump,
    /// Stream records reported failed, handed over again (as the mapping does).
    backlog: Vec<EventRecord>,
    /// Receipt handles of retry messages that failed in the last `retry_round`, hidden until the
    /// next one.
    hidden: Vec<String>,
}

async fn rig() -> Rig {
    let env = env().await;
    // The webhooks of these tests go to a closed local port, listed so creates accept it.
    env.webhook_origins.allow("http://127.0.0.1:9").unwrap();
    let faults = Faults::default();
    let clock = TestClock(Arc::new(Mutex::new(Utc::now())));
    let workers = env.workers();
    let queue = |inner: SqsQueue, step| FaultyQueue {
        inner,
        faults: faults.clone(),
        step,
    };
    let deps = OutboxDeps {
        store: FaultyStore {
            inner: env.store.clone(),
            faults: faults.clone(),
        },
        mailer: FaultyMailer {
            inner: workers.outbox.mailer.clone(),
            faults: faults.clone(),
        },
        texter: FaultyTexter {
            inner: workers.outbox.texter.clone(),
            faults: faults.clone(),
        },
        scheduler: FaultyScheduler {
            inner: workers.outbox.scheduler.clone(),
            faults: faults.clone(),
            created: Arc::default(),
        },
        queue: queue(workers.outbox.queue.clone(), Step::WebhookQueue),
        retry_queue: queue(workers.outbox.retry_queue.clone(), Step::RetryQueue),
        provider: adapters::live_provider::LiveProvider::local_sandbox(),
        clock: clock.clone(),
        public_base_url: env.base.clone(),
        test_mode_delivery: TestModeDelivery::Send,
        reminder_offsets: workers.outbox.reminder_offsets.clone(),
        // The test moves the clock by the real schedule; SQS makes messages visible at once.
        retry_backoff: vec![0],
        sms: Default::default(),
    };
    let pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    Rig {
        env,
        deps,
        faults,
        clock,
        pump,
        backlog: Vec::new(),
        hidden: Vec::new(),
    }
}

impl Rig {
    async fn create(&self, key: &str, body: Value) -> Uuid {
        let r = self.env.create_verification(key, body).await;
        assert_eq!(r.status, 201, "{}", r.raw);
        r.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Hands the new stream records (after those failed before) to publish-events once.
    async fn stream_pass(&mut self) {
        let mut records = std::mem::take(&mut self.backlog);
        let filters = devstack::pump::template_filters("publish-events");
        for r in self.pump.read().await.unwrap() {
            if filters
                .iter()
                .any(|p| devstack::pump::pattern_matches(p, &r))
            {
                records.push(serde_json::from_value(r).unwrap());
            }
        }
        if records.is_empty() {
            return;
        }
        let mut event = Event::default();
        event.records = records.clone();
        let response = service::handlers::publish_events::publish_events(&self.deps, event).await;
        if let Some(failed) = response
            .batch_item_failures
            .first()
            .and_then(|f| f.item_identifier.clone())
        {
            let from = records
                .iter()
                .position(|r| r.change.sequence_number.as_deref() == Some(failed.as_str()))
                .unwrap();
            self.backlog = records.split_off(from);
        }
    }

    /// One receive of the retry queue through retry-events.
    async fn retry_pass(&self) -> usize {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        pump_queue_once(&sqs, &self.env.created.retry_queue_url, 0, |event| {
            service::handlers::retry_events::retry_events(&self.deps, event)
        })
        .await
        .unwrap()
    }

    /// One round of retry-events over every message on the retry queue, each tried once: the
    /// messages that failed last round are made visible (the test clock moved past their
    /// back-off), and those that fail now hide for an hour of real time (`retry_backoff` must
    /// say so) until the next round. Returns how many were handed over.
    async fn retry_round(&mut self) -> usize {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        let url = self.env.created.retry_queue_url.clone();
        // Ten at a time, SQS's batch limit.
        for handles in std::mem::take(&mut self.hidden).chunks(10) {
            let entries = handles.iter().enumerate().map(|(i, handle)| {
                ChangeMessageVisibilityBatchRequestEntry::builder()
                    .id(i.to_string())
                    .receipt_handle(handle)
                    .visibility_timeout(0)
                    .build()
                    .unwrap()
            });
            let out = sqs
                .change_message_visibility_batch()
                .queue_url(&url)
                .set_entries(Some(entries.collect()))
                .send()
                .await
                .unwrap();
            assert!(out.failed.is_empty(), "{:?}", out.failed);
        }
        let failed = Mutex::new(Vec::new());
        let mut handed = 0;
        loop {
            let n = pump_queue_once(&sqs, &url, 0, |event| async {
                let handles: HashMap<String, String> = (event.records.iter())
                    .filter_map(|r| Some((r.message_id.clone()?, r.receipt_handle.clone()?)))
                    .collect();
                let response =
                    service::handlers::retry_events::retry_events(&self.deps, event).await;
                for f in &response.batch_item_failures {
                    failed
                        .lock()
                        .unwrap()
                        .push(handles[&f.item_identifier].clone());
                }
                response
            })
            .await
            .unwrap();
            if n == 0 {
                break;
            }
            handed += n;
        }
        self.hidden = failed.into_inner().unwrap();
        handed
    }

    /// The stored size of a verification's item.
    async fn size(&self, id: Uuid) -> usize {
        stored_item_size(&self.env, keys::verification(id)).await
    }

    async fn verification(&self, id: Uuid) -> Verification {
        self.env.store.get_verification(id).await.unwrap().unwrap()
    }

    async fn depth(&self, url: &str) -> usize {
        queue_depth(&self.env, url).await
    }
}

/// Each step of the e-mail path fails once in turn; after the retries every verification has
/// exactly one e-mail, or (for a recipient SES refuses for good) none and status `failed`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_at_each_step_still_ends_in_one_email_or_failed() {
    let mut rig = rig().await;
    // (faults armed once each, the recipient SES refuses for good?)
    let cases: Vec<(Vec<Step>, bool)> = vec![
        (vec![Step::GetVerification], false),
        (vec![Step::Claim], false),
        (vec![Step::AccountRead], false),
        (vec![Step::LinkToken], false),
        (vec![Step::Ses], false),
        (vec![Step::MarkSent], false),
        (vec![Step::Ses, Step::Release], false),
        (vec![Step::AccountRead, Step::Release], false),
        (vec![Step::MarkRejected], true),
        (vec![Step::FailTransition], true),
    ];
    for (i, (steps, bounce)) in cases.iter().enumerate() {
        let to = if *bounce {
            format!("step{i}+bounce@example.com")
        } else {
            format!("step{i}@example.com")
        };
        let key = rig.env.test_key.clone();
        let id = rig.create(&key, json!({"tenant_email": to})).await;
        for step in steps {
            rig.faults.arm(*step, 1);
        }
        rig.stream_pass().await;
        // Retries until the work is done, a few minutes apart (a claim that could not be released
        // is taken over once its lease ran out).
        for _ in 0..6 {
            if rig.depth(&rig.env.created.retry_queue_url).await == 0 {
                break;
            }
            rig.clock.advance(180);
            rig.retry_pass().await;
        }
        let v = rig.verification(id).await;
        let mails = sent_emails(&to).await.len();
        let case = format!("faults at {steps:?}");
        assert_eq!(
            rig.depth(&rig.env.created.retry_queue_url).await,
            0,
            "{case}: work left"
        );
        if *bounce {
            assert_eq!((mails, v.status), (0, Status::Failed), "{case}");
            assert_eq!(
                v.failure_reason.as_deref(),
                Some("email_rejected"),
                "{case}"
            );
        } else {
            assert_eq!((mails, v.status), (1, Status::Pending), "{case}");
        }
    }
}

/// A permanent rejection fails the verification and the landlord is told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_rejection_fails_the_verification_and_queues_its_webhook() {
    let mut rig = rig().await;
    let key = rig.env.test_key.clone();
    let id = rig
        .create(&key, json!({"tenant_email": "gone+bounce@example.com", "webhook_url": "http://127.0.0.1:9/hook"}))
        .await;
    rig.stream_pass().await;
    let v = rig.verification(id).await;
    assert_eq!(v.status, Status::Failed);
    assert_eq!(v.failure_reason.as_deref(), Some("email_rejected"));
    rig.stream_pass().await;
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let got = sqs
        .receive_message()
        .queue_url(&rig.env.created.webhook_queue_url)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    assert_eq!(got.len(), 1);
    let event = common::queued_event(&rig.env, got[0].body().unwrap()).await;
    assert!(event.body.contains("verification.failed"));
}

/// SES down for 25 hours, the retry queue and the webhook queue down for the first hours: every
/// verification gets exactly one e-mail once SES is back, the webhook is queued once, and nothing
/// reaches a dead-letter queue. The clock moves by the retry back-off the consumer would set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_hour_ses_and_sqs_outage_loses_nothing() {
    let mut rig = rig().await;
    let key = rig.env.test_key.clone();
    // Sent before the outage; cancelled during it (its webhook must still be queued).
    let early = rig
        .create(
            &key,
            json!({"tenant_email": "early@example.com", "webhook_url": "http://127.0.0.1:9/hook"}),
        )
        .await;
    rig.stream_pass().await;
    assert_eq!(sent_emails("early@example.com").await.len(), 1);

    let start = rig.clock.now();
    rig.faults.down(Step::Ses);
    rig.faults.down(Step::WebhookQueue);
    let mut waiting = Vec::new();
    for n in 0..3 {
        let to = format!("outage{n}@example.com");
        waiting.push((rig.create(&key, json!({"tenant_email": to})).await, to));
    }
    let cancel = rig.env.cancel_verification(&key, &early).await;
    assert_eq!(cancel.status, 200, "{}", cancel.raw);
    rig.stream_pass().await;
    assert_eq!(rig.depth(&rig.env.created.retry_queue_url).await, 4);
    // Now the retry queue is down too: a new record cannot be handed off and stays on the stream.
    rig.faults.down(Step::RetryQueue);
    let to = "stuck@example.com".to_string();
    waiting.push((rig.create(&key, json!({"tenant_email": to})).await, to));
    rig.stream_pass().await;
    assert_eq!(rig.backlog.len(), 1, "the record waits on the stream");

    let schedule = service::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
    let mut attempt = 0;
    while rig.clock.now() - start < chrono::Duration::hours(30) {
        let hours = (rig.clock.now() - start).num_hours();
        if hours >= 1 {
            rig.faults.restore(Step::RetryQueue);
        }
        if hours >= 3 {
            rig.faults.restore(Step::WebhookQueue);
        }
        if hours >= 25 {
            rig.faults.restore(Step::Ses);
        }
        rig.stream_pass().await;
        rig.retry_pass().await;
        for (id, to) in &waiting {
            let mails = sent_emails(to).await.len();
            assert!(mails <= 1, "{to}: {mails} e-mails");
            assert_eq!(rig.verification(*id).await.status, Status::Pending);
            if hours < 25 {
                assert_eq!(mails, 0);
            }
        }
        let delay = schedule[attempt.min(schedule.len() - 1)];
        rig.clock.advance(delay as i64);
        attempt += 1;
    }
    for (_, to) in &waiting {
        assert_eq!(sent_emails(to).await.len(), 1, "{to}");
    }
    assert!(rig.backlog.is_empty());
    assert_eq!(rig.depth(&rig.env.created.retry_queue_url).await, 0);
    assert_eq!(rig.depth(&rig.env.created.retry_dlq_url).await, 0);
    // The cancellation's webhook, once.
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let hooks = sqs
        .receive_message()
        .queue_url(&rig.env.created.webhook_queue_url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    assert_eq!(hooks.len(), 1);
    let event = common::queued_event(&rig.env, hooks[0].body().unwrap()).await;
    assert!(event.body.contains("verification.cancelled"));
}

async fn used_this_month(env: &TestEnv, key: &str) -> u64 {
    let r = env.usage(key).await;
    r.body["data"]["verifications"]["used_this_month"]
        .as_u64()
        .unwrap_or_else(|| panic!("{}", r.raw))
}
