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

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use chrono::{DateTime, Utc};
use common::{TestEnv, env, fresh_number, queue_depth, sent_emails, sent_sms, stored_item_size};
use devstack::pump::{StreamPump, TtlDeletions, pump_queue_once};
use serde_json::{Value, json};
use shared::adapters::dynamo::{DynamoStore, keys};
use shared::adapters::scheduler::EventBridgeScheduler;
use shared::adapters::ses::SesMailer;
use shared::adapters::sns::SnsTexter;
use shared::adapters::sqs::SqsQueue;
use shared::adapters::testing::{FaultPlan, StoreOp};
use shared::config::TestModeDelivery;
use shared::domain::{Status, Verification};
use shared::handlers::publish_events::OutboxDeps;
use shared::ports::store::prelude::*;
use shared::ports::{
    Clock, Email, MailError, Mailer, OneTimeSchedule, Queue, Scheduler, Sms, StoreError, TextError,
    Texter,
};
use uuid::Uuid;

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
type FaultyStore = shared::adapters::testing::FaultyStore<DynamoStore, Faults>;

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

type Deps =
    OutboxDeps<FaultyStore, FaultyMailer, FaultyTexter, FaultyScheduler, FaultyQueue, TestClock>;

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
    let workers = devstack::Workers::new(
        &env.sdk,
        &env.names,
        &env.created,
        &env.base,
        vec![0],
        &env.webhook_origins,
    );
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
        clock: clock.clone(),
        public_base_url: env.base.clone(),
        test_mode_delivery: TestModeDelivery::Send,
        reminder_offsets: workers.outbox.reminder_offsets.clone(),
        // The test moves the clock by the real schedule; SQS makes messages visible at once.
        retry_backoff: vec![0],
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
        let response = shared::handlers::publish_events::publish_events(&self.deps, event).await;
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
            shared::handlers::retry_events::retry_events(&self.deps, event)
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
        for handle in std::mem::take(&mut self.hidden) {
            sqs.change_message_visibility()
                .queue_url(&url)
                .receipt_handle(handle)
                .visibility_timeout(0)
                .send()
                .await
                .unwrap();
        }
        let failed = Mutex::new(Vec::new());
        let mut handed = 0;
        loop {
            let n = pump_queue_once(&sqs, &url, 0, |event| async {
                let handles: HashMap<String, String> = (event.records.iter())
                    .filter_map(|r| Some((r.message_id.clone()?, r.receipt_handle.clone()?)))
                    .collect();
                let response =
                    shared::handlers::retry_events::retry_events(&self.deps, event).await;
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
    assert!(got[0].body().unwrap().contains("verification.failed"));
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

    let schedule = shared::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
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
    assert!(hooks[0].body().unwrap().contains("verification.cancelled"));
}

async fn used_this_month(env: &TestEnv, key: &str) -> u64 {
    let r = env.usage(key).await;
    r.body["data"]["verifications"]["used_this_month"]
        .as_u64()
        .unwrap_or_else(|| panic!("{}", r.raw))
}

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
    let schedule = shared::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
    let mut attempt = 0;
    while rig.depth(&rig.env.created.retry_queue_url).await > 0 {
        assert!(
            rig.clock.now() - start
                <= shared::handlers::retry_events::RETRY_WINDOW + chrono::Duration::hours(12),
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
        Some(shared::handlers::retry_events::EMAIL_UNDELIVERABLE)
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
    let body: Value = serde_json::from_str(hooks[0].body().unwrap()).unwrap();
    let payload: Value = serde_json::from_str(body["body"].as_str().unwrap()).unwrap();
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

    let schedule = shared::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
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
        let sms = shared::domain::reach::Message::InviteSms;
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
    use shared::handlers::outbox_work::{RetryMessage, RetryWork};
    use shared::handlers::reach_events::ReminderPayload;
    use shared::handlers::send_reminders::{ReachDeps, send_reminders};
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
            shared::handlers::retry_events::retry_events(&rig.deps, retries(work())).await;
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
            shared::handlers::retry_events::retry_events(&rig.deps, retries(work())).await;
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
