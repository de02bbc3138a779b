//! Reminders and SMS with in-memory fakes and an injected clock: when the schedules fall, that
//! each message goes out once (redelivered invocations, duplicate stream records, races, a failed
//! send and a crashed attempt included), that a failed SMS or schedule goes to the retry queue
//! while the batch goes on, that a reminder's webhook is not lost when its mark and its queueing
//! fail, and that nothing goes out after completion, cancellation or expiry. The same on the real
//! wire (moto's Scheduler, SES and SNS) is in `infra/devstack/tests/it/reminders.rs`.

use std::sync::{Arc, Mutex};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::reach::{DEFAULT_REMINDER_OFFSETS, MESSAGE_LEASE, Message};
use domain::secrets::sha256_hex;
use domain::verification::SmsReach;
use domain::{Mode, NewVerificationInput, Status, Transition, VERIFICATION_LIFETIME, Verification};
use ports::store::prelude::*;
use ports::{
    ClaimStart, Clock, Email, MailError, Mailer, MessageClaim, OneTimeSchedule, Queue, Scheduler,
    Sms, StoreError, TextError, Texter,
};
use service::config::TestModeDelivery;
use service::handlers::notices::ReachError;
use service::handlers::publish_events::{OutboxDeps, publish_events};
use service::handlers::reach_events::ReminderPayload;
use service::handlers::retry_events::retry_events;
use service::handlers::send_reminders::{ReachDeps, send_reminders};
use test_support::{ArmedFaults, FaultyStore, ManualClock, MemoryStore, StoreOp, active_account};
mod invite_sms;
mod provider_close;
mod sms_bounds;

const ACCOUNT: &str = "acct_reach";

fn created() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap()
}

#[derive(Clone, Default)]
struct Outbox {
    emails: Arc<Mutex<Vec<Email>>>,
    sms: Arc<Mutex<Vec<Sms>>>,
    schedules: Arc<Mutex<Vec<OneTimeSchedule>>>,
    webhooks: Arc<Mutex<Vec<String>>>,
    /// Sends to refuse (transiently) before the next one goes through.
    failing_sms: Arc<Mutex<u32>>,
    failing_mail: Arc<Mutex<u32>>,
    failing_schedules: Arc<Mutex<u32>>,
    failing_queue: Arc<Mutex<u32>>,
}

impl Outbox {
    fn emails(&self) -> usize {
        self.emails.lock().unwrap().len()
    }
    fn sms(&self) -> usize {
        self.sms.lock().unwrap().len()
    }
}

fn take_failure(counter: &Mutex<u32>) -> bool {
    let mut left = counter.lock().unwrap();
    let fail = *left > 0;
    *left = left.saturating_sub(1);
    fail
}

impl Mailer for Outbox {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        // A send takes a while: concurrent invocations run while one is sending.
        tokio::task::yield_now().await;
        if take_failure(&self.failing_mail) {
            return Err(MailError::Transient("throttled".into()));
        }
        self.emails.lock().unwrap().push(email.clone());
        Ok(())
    }
}

impl Texter for Outbox {
    async fn send(&self, sms: &Sms) -> Result<(), TextError> {
        if take_failure(&self.failing_sms) {
            return Err(TextError::Transient("throttled".into()));
        }
        self.sms.lock().unwrap().push(sms.clone());
        Ok(())
    }
}

impl Scheduler for Outbox {
    async fn create_once(&self, schedule: &OneTimeSchedule) -> Result<(), StoreError> {
        if take_failure(&self.failing_schedules) {
            return Err(StoreError::Unavailable("scheduler throttled".into()));
        }
        let mut all = self.schedules.lock().unwrap();
        if !all.iter().any(|s| s.name == schedule.name) {
            all.push(schedule.clone());
        }
        Ok(())
    }
}

impl Queue for Outbox {
    async fn send(&self, body: &str) -> Result<(), StoreError> {
        if take_failure(&self.failing_queue) {
            return Err(StoreError::Unavailable("queue throttled".into()));
        }
        self.webhooks.lock().unwrap().push(body.to_string());
        Ok(())
    }
    async fn retry_later(&self, _: &str, _: u32) -> Result<(), StoreError> {
        Ok(())
    }
}

type Deps = ReachDeps<MemoryStore, Outbox, Outbox, Outbox, ManualClock>;
type Publish = OutboxDeps<
    MemoryStore,
    Outbox,
    Outbox,
    Outbox,
    Outbox,
    ManualClock,
    adapters::live_provider::LiveProvider,
>;

async fn setup(input: NewVerificationInput, mode: Mode) -> (Deps, Outbox, Verification) {
    let store = MemoryStore::new();
    let mut account = active_account(ACCOUNT, "pro", created());
    account.name = "Acme Rentals".into();
    store.put_account(&account).await.unwrap();
    let v = Verification::new_pending(ACCOUNT, mode, input, created(), VERIFICATION_LIFETIME);
    store.create_verification(&v, None, None).await.unwrap();
    let outbox = Outbox::default();
    let deps = ReachDeps {
        store,
        mailer: outbox.clone(),
        texter: outbox.clone(),
        queue: outbox.clone(),
        clock: ManualClock::at(created()),
        public_base_url: "https://verify.example.com".into(),
        test_mode_delivery: TestModeDelivery::Suppress,
        reminder_offsets: DEFAULT_REMINDER_OFFSETS.to_vec(),
        sms: Default::default(),
    };
    (deps, outbox, v)
}

/// `publish-events` and `retry-events` over the same store, clock and fakes; their retry queue
/// is `retries` (its `webhooks` are the waiting messages' bodies).
fn outbox_deps(deps: &Deps, outbox: &Outbox, retries: &Outbox) -> Publish {
    OutboxDeps {
        store: deps.store.clone(),
        mailer: outbox.clone(),
        texter: outbox.clone(),
        scheduler: outbox.clone(),
        queue: outbox.clone(),
        retry_queue: retries.clone(),
        provider: adapters::live_provider::LiveProvider::local_sandbox(),
        clock: deps.clock.clone(),
        public_base_url: deps.public_base_url.clone(),
        test_mode_delivery: deps.test_mode_delivery,
        reminder_offsets: deps.reminder_offsets.clone(),
        retry_backoff: vec![60],
        sms: Default::default(),
    }
}

/// One batch of stream records through `publish-events`.
async fn publish<S: Store>(
    deps: &OutboxDeps<
        S,
        Outbox,
        Outbox,
        Outbox,
        Outbox,
        ManualClock,
        adapters::live_provider::LiveProvider,
    >,
    records: Vec<EventRecord>,
) -> DynamoDbEventResponse {
    let mut event = Event::default();
    event.records = records;
    publish_events(deps, event).await
}

/// `v`'s INSERT record through `publish-events` once, which hands nothing to the retry queue.
async fn publish_insert_handing_off_nothing(deps: &Deps, outbox: &Outbox, v: &Verification) {
    let retries = Outbox::default();
    let response = publish(
        &outbox_deps(deps, outbox, &retries),
        vec![insert_record(v, "1")],
    )
    .await;
    assert!(response.batch_item_failures.is_empty());
    assert!(waiting_work(&retries).is_empty());
}

/// Hands every message waiting on `retries` to `retry-events` once; what failed again waits on.
/// Returns how many were handed over.
async fn retry_pass<S: Store>(
    deps: &OutboxDeps<
        S,
        Outbox,
        Outbox,
        Outbox,
        Outbox,
        ManualClock,
        adapters::live_provider::LiveProvider,
    >,
    retries: &Outbox,
) -> usize {
    let bodies = std::mem::take(&mut *retries.webhooks.lock().unwrap());
    let mut event = SqsEvent::default();
    for (i, body) in bodies.iter().enumerate() {
        let mut message = SqsMessage::default();
        message.message_id = Some(i.to_string());
        message.body = Some(body.clone());
        event.records.push(message);
    }
    let response = retry_events(deps, event).await;
    let mut waiting = retries.webhooks.lock().unwrap();
    for failed in response.batch_item_failures {
        waiting.push(bodies[failed.item_identifier.parse::<usize>().unwrap()].clone());
    }
    bodies.len()
}

/// The kinds of work waiting on the retry queue.
fn waiting_work(retries: &Outbox) -> Vec<String> {
    retries
        .webhooks
        .lock()
        .unwrap()
        .iter()
        .map(|b| serde_json::from_str::<serde_json::Value>(b).unwrap()["work"]["kind"].to_string())
        .map(|k| k.trim_matches('"').to_string())
        .collect()
}

/// The hash of the token in the tenant link `text` carries.
fn link_hash(text: &str) -> String {
    let link = text
        .split_whitespace()
        .find(|w| w.contains("/t/"))
        .expect("a tenant link");
    let token = link.rsplit('/').next().unwrap();
    sha256_hex(token.as_bytes())
}

fn with_phone() -> NewVerificationInput {
    NewVerificationInput {
        tenant_email: "tenant@example.com".into(),
        tenant_phone: Some("(201) 555-0123".into()),
        sms_phone: Some("+12015550123".into()),
        property_address: Some("12 Elm St".into()),
        webhook_url: Some("https://hooks.example.com/h".into()),
        ..Default::default()
    }
}

fn payload(v: &Verification, label: &str) -> ReminderPayload {
    ReminderPayload {
        verification_id: v.verification_id,
        reminder: label.into(),
    }
}

#[tokio::test]
async fn a_new_verification_gets_two_schedules_and_one_invite_sms_however_often_the_record_comes() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    let retries = Outbox::default();
    let publisher = outbox_deps(&deps, &outbox, &retries);
    // moto emits two INSERT records for one create; a redelivered batch brings it again.
    for seq in ["1", "2", "3"] {
        let response = publish(&publisher, vec![insert_record(&v, seq)]).await;
        assert!(response.batch_item_failures.is_empty());
    }
    assert!(waiting_work(&retries).is_empty());
    let schedules = outbox.schedules.lock().unwrap().clone();
    let at: Vec<_> = schedules.iter().map(|s| s.at).collect();
    assert_eq!(
        at,
        vec![
            v.expires_at - Duration::hours(72),
            v.expires_at - Duration::hours(24)
        ]
    );
    assert_eq!(
        schedules[0].at,
        Utc.with_ymd_and_hms(2026, 11, 24, 10, 0, 0).unwrap()
    );
    assert!(schedules[0].payload.contains("\"reminder\":\"72h\""));
    assert!(
        !schedules[0].payload.contains("tenant@"),
        "no personal data in the schedule"
    );
    let sms = outbox.sms.lock().unwrap().clone();
    assert_eq!(sms.len(), 1, "the invite SMS goes out once");
    assert_eq!(sms[0].to, "+12015550123");
    assert!(sms[0].text.starts_with(
        "Acme Rentals asks you to verify your income for 12 Elm St: https://verify.example.com/t/"
    ));
    assert!(sms[0].text.ends_with("Reply STOP to opt out."));
    // The SMS link is a link of this verification (its token is bound).
    let stored = deps
        .store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        deps.store
            .message_claim(v.verification_id, &Message::InviteSms),
        Some(MessageClaim::Sent)
    );
    assert_eq!(stored.token_hashes, v.token_hashes);
    assert_eq!(
        stored.message_links.get(&Message::InviteSms.key()),
        Some(&link_hash(&sms[0].text)),
        "the SMS link is bound as the invite SMS's own"
    );
    assert!(stored.binds_link(&link_hash(&sms[0].text)));
}

#[tokio::test]
async fn reminders_false_schedules_nothing_and_an_unusable_number_is_not_texted() {
    let mut input = with_phone();
    input.reminders_off = true;
    input.sms_phone = None;
    input.sms = Some(SmsReach::Unusable);
    let (deps, outbox, v) = setup(input, Mode::Live).await;
    publish_insert_handing_off_nothing(&deps, &outbox, &v).await;
    assert!(outbox.schedules.lock().unwrap().is_empty());
    assert_eq!(outbox.sms(), 0);
    assert_eq!(outbox.emails(), 1, "the invite e-mail still goes out");
    // Even a stray invocation sends no reminder when they are off.
    deps.clock.advance(Duration::hours(100));
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 1, "no reminder e-mail");
}

#[tokio::test]
async fn test_mode_reaches_nobody_on_a_deployed_stack() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Test).await;
    publish_insert_handing_off_nothing(&deps, &outbox, &v).await;
    deps.clock.advance(Duration::hours(96));
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    assert_eq!((outbox.sms(), outbox.emails()), (0, 0));
    assert!(outbox.schedules.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_reminders_webhook_is_stored_before_it_is_queued_and_a_failed_store_is_retried() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96)); // the 72 h point
    let faults = ArmedFaults::default();
    faults.down(StoreOp::PutWebhookEvent);
    let faulty = ReachDeps {
        store: FaultyStore {
            inner: deps.store.clone(),
            faults: faults.clone(),
        },
        mailer: outbox.clone(),
        texter: outbox.clone(),
        queue: outbox.clone(),
        clock: deps.clock.clone(),
        public_base_url: deps.public_base_url.clone(),
        test_mode_delivery: deps.test_mode_delivery,
        reminder_offsets: deps.reminder_offsets.clone(),
        sms: Default::default(),
    };
    // The e-mail goes out, but its event cannot be stored: not queued unstored, and the
    // invocation fails so that Lambda retries it.
    let failed = send_reminders(&faulty, payload(&v, "72h")).await;
    assert!(failed.is_err(), "an unstored event is not success");
    assert_eq!(outbox.emails(), 1);
    assert!(outbox.webhooks.lock().unwrap().is_empty());
    // The retry (the table back): no second e-mail; the event is stored, then queued.
    faults.restore(StoreOp::PutWebhookEvent);
    send_reminders(&faulty, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 1);
    let event_id = format!("msg_{}_reminder_sent_72h", v.verification_id.simple());
    let stored = deps.store.get_webhook_event(&event_id).await.unwrap();
    let stored = stored.expect("stored for redelivery");
    assert_eq!(stored.event_type, "verification.reminder_sent");
    let hooks = outbox.webhooks.lock().unwrap().clone();
    assert_eq!(hooks.len(), 1);
    let queued: domain::webhook::QueuedWebhook = serde_json::from_str(&hooks[0]).unwrap();
    assert_eq!(
        queued,
        domain::webhook::QueuedWebhook::of(&stored.message),
        "the queued message names the stored one"
    );
}

#[tokio::test]
async fn a_reminder_goes_out_once_per_point_even_when_the_invocation_is_redelivered() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96)); // the 72 h point
    for _ in 0..3 {
        send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    }
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));
    let email = outbox.emails.lock().unwrap()[0].clone();
    assert!(email.subject.starts_with("Reminder: Acme Rentals"));
    assert!(email.text.contains("12 Elm St") && email.text.contains("2026-11-27 10:00 UTC"));
    let sms = outbox.sms.lock().unwrap()[0].clone();
    assert!(
        sms.text.starts_with("Reminder: Acme Rentals")
            && sms.text.ends_with("Reply STOP to opt out.")
    );
    // The webhook: one id, the same on every redelivery.
    let hooks = outbox.webhooks.lock().unwrap().clone();
    assert!(!hooks.is_empty());
    let ids: Vec<String> = hooks
        .iter()
        .map(|h| {
            serde_json::from_str::<serde_json::Value>(h).unwrap()["webhook_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(ids.iter().all(|id| id == &ids[0]), "{ids:?}");
    // The queue carries the reference; the body is the stored event's.
    let stored = deps.store.get_webhook_event(&ids[0]).await.unwrap();
    let body: serde_json::Value =
        serde_json::from_str(&stored.expect("stored").message.body).unwrap();
    assert_eq!(body["type"], "verification.reminder_sent");
    assert_eq!(body["reminder"], "72h");
    // The second point is its own notice.
    deps.clock.advance(Duration::hours(48));
    send_reminders(&deps, payload(&v, "24h")).await.unwrap();
    send_reminders(&deps, payload(&v, "24h")).await.unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (2, 2));
}

#[tokio::test]
async fn concurrent_invocations_of_one_point_send_once() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    let (a, b, c) = tokio::join!(
        send_reminders(&deps, payload(&v, "72h")),
        send_reminders(&deps, payload(&v, "72h")),
        send_reminders(&deps, payload(&v, "72h")),
    );
    // One sends; the others find its claim held and fail, so that Lambda retries them (the
    // holder may yet fail to queue the webhook).
    let results = [a, b, c];
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    for lost in results.iter().filter(|r| r.is_err()) {
        assert!(matches!(lost, Err(ReachError::Held)), "{lost:?}");
    }
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));
    // Lambda's retries of the two: nothing more is sent.
    deps.clock.advance(Duration::minutes(1));
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));
}

/// `deps` with its store failing what `faults` says.
fn faulty(deps: &Deps, outbox: &Outbox, faults: &ArmedFaults) -> FaultyDeps {
    ReachDeps {
        store: FaultyStore {
            inner: deps.store.clone(),
            faults: faults.clone(),
        },
        mailer: outbox.clone(),
        texter: outbox.clone(),
        queue: outbox.clone(),
        clock: deps.clock.clone(),
        public_base_url: deps.public_base_url.clone(),
        test_mode_delivery: deps.test_mode_delivery,
        reminder_offsets: deps.reminder_offsets.clone(),
        sms: Default::default(),
    }
}

type FaultyDeps =
    ReachDeps<FaultyStore<MemoryStore, ArmedFaults>, Outbox, Outbox, Outbox, ManualClock>;

fn webhook_ids(outbox: &Outbox) -> Vec<String> {
    outbox
        .webhooks
        .lock()
        .unwrap()
        .iter()
        .map(|h| {
            serde_json::from_str::<serde_json::Value>(h).unwrap()["webhook_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn without_phone() -> NewVerificationInput {
    NewVerificationInput {
        tenant_phone: None,
        sms_phone: None,
        ..with_phone()
    }
}

#[tokio::test]
async fn an_unmarked_reminder_whose_webhook_failed_is_queued_by_the_retry_within_the_lease() {
    let (deps, outbox, v) = setup(without_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    let faults = ArmedFaults::default();
    let store = faulty(&deps, &outbox, &faults);
    // The e-mail goes out, its mark fails (every inline try), and the webhook's queue fails.
    faults.down(StoreOp::MarkMessageSent);
    *outbox.failing_queue.lock().unwrap() = 1;
    assert!(send_reminders(&store, payload(&v, "72h")).await.is_err());
    assert_eq!(outbox.emails(), 1);
    assert!(outbox.webhooks.lock().unwrap().is_empty());
    // Lambda's retry a minute later finds the attempt's own lease live. The stored event shows
    // the e-mail went out: no second e-mail, the notice marked, the webhook queued.
    faults.restore(StoreOp::MarkMessageSent);
    deps.clock.advance(Duration::minutes(1));
    send_reminders(&store, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 1);
    let event_id = format!("msg_{}_reminder_sent_72h", v.verification_id.simple());
    assert_eq!(webhook_ids(&outbox), vec![event_id.clone()]);
    assert_eq!(
        (deps.store).message_claim(v.verification_id, &Message::ReminderEmail("72h".into())),
        Some(MessageClaim::Sent)
    );
    // A redelivery after the lease sends nothing more; the webhook keeps its id.
    deps.clock.advance(MESSAGE_LEASE);
    send_reminders(&store, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 1);
    assert!(webhook_ids(&outbox).iter().all(|id| id == &event_id));
}

#[tokio::test]
async fn a_mark_that_fails_once_is_retried_inline_so_the_retry_finds_the_reminder_sent() {
    let (deps, outbox, v) = setup(without_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    let faults = ArmedFaults::default();
    let store = faulty(&deps, &outbox, &faults);
    // The mark fails once, then the webhook's event cannot be stored.
    faults.arm(StoreOp::MarkMessageSent, 1);
    faults.down(StoreOp::PutWebhookEvent);
    assert!(send_reminders(&store, payload(&v, "72h")).await.is_err());
    assert_eq!(outbox.emails(), 1);
    assert!(outbox.webhooks.lock().unwrap().is_empty());
    assert_eq!(
        (deps.store).message_claim(v.verification_id, &Message::ReminderEmail("72h".into())),
        Some(MessageClaim::Sent)
    );
    // Lambda's retry, within the lease: the e-mail is sent, so its webhook is stored and queued.
    faults.restore(StoreOp::PutWebhookEvent);
    deps.clock.advance(Duration::minutes(1));
    send_reminders(&store, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 1);
    let event_id = format!("msg_{}_reminder_sent_72h", v.verification_id.simple());
    assert_eq!(webhook_ids(&outbox), vec![event_id]);
}

#[tokio::test]
async fn with_nothing_recorded_of_a_sent_reminder_the_retry_waits_for_the_lease_and_loses_no_webhook()
 {
    let (deps, outbox, v) = setup(without_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    let faults = ArmedFaults::default();
    let store = faulty(&deps, &outbox, &faults);
    // Sent, but neither marked nor its event stored: nothing shows that it went out.
    faults.down(StoreOp::MarkMessageSent);
    faults.down(StoreOp::PutWebhookEvent);
    assert!(send_reminders(&store, payload(&v, "72h")).await.is_err());
    assert_eq!(outbox.emails(), 1);
    faults.restore(StoreOp::MarkMessageSent);
    faults.restore(StoreOp::PutWebhookEvent);
    // The first retry finds the lease live and fails rather than succeed with nothing queued.
    deps.clock.advance(Duration::minutes(1));
    let held = send_reminders(&store, payload(&v, "72h")).await;
    assert!(matches!(held, Err(ReachError::Held)), "{held:?}");
    assert!(outbox.webhooks.lock().unwrap().is_empty());
    // The second retry comes after the lease: the reminder goes out again (at least once when
    // nothing recorded it) and its webhook is queued.
    deps.clock.advance(MESSAGE_LEASE);
    send_reminders(&store, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 2);
    let event_id = format!("msg_{}_reminder_sent_72h", v.verification_id.simple());
    assert_eq!(webhook_ids(&outbox), vec![event_id]);
}

#[tokio::test]
async fn no_reminder_after_completion_cancellation_or_expiry() {
    for end in ["complete", "cancel", "expire_unswept", "fail"] {
        let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
        let now = created() + Duration::hours(1);
        match end {
            "complete" => {
                deps.store
                    .transition(&v, &Transition::Start, now)
                    .await
                    .unwrap();
                let started = deps
                    .store
                    .get_verification(v.verification_id)
                    .await
                    .unwrap()
                    .unwrap();
                let report = serde_json::from_value(serde_json::json!({
                    "total_monthly_income": 5000.0, "income_sources": [],
                    "verification_method": "bank", "confidence_score": 0.9,
                    "rent_to_income_ratio": null, "passes_3x_rule": null,
                    "as_of": "2026-11-20"
                }))
                .unwrap();
                deps.store
                    .transition(
                        &started,
                        &Transition::Complete {
                            report: Box::new(report),
                        },
                        now,
                    )
                    .await
                    .unwrap();
            }
            "cancel" => {
                deps.store
                    .transition(&v, &Transition::Cancel, now)
                    .await
                    .unwrap();
            }
            "fail" => {
                let fail = Transition::Fail { reason: "x".into() };
                deps.store.transition(&v, &fail, now).await.unwrap();
            }
            // Past expires_at, before the sweeper stored it: still no reminder.
            _ => deps.clock.advance(VERIFICATION_LIFETIME),
        }
        deps.clock.advance(Duration::hours(150));
        send_reminders(&deps, payload(&v, "24h")).await.unwrap();
        assert_eq!((outbox.emails(), outbox.sms()), (0, 0), "{end}");
        assert!(outbox.webhooks.lock().unwrap().is_empty(), "{end}");
    }
}

#[tokio::test]
async fn an_in_progress_verification_is_still_reminded_but_not_re_invited() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.store
        .transition(&v, &Transition::Start, created())
        .await
        .unwrap();
    let stored = deps
        .store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::InProgress);
    // The INSERT record's image is still pending; the claim reads the stored status.
    publish_insert_handing_off_nothing(&deps, &outbox, &v).await;
    assert_eq!(outbox.sms(), 0, "the tenant started: no invite SMS");
    deps.clock.advance(Duration::hours(96));
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));
}

#[tokio::test]
async fn a_failed_send_is_retried_without_repeating_what_went_out() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    *outbox.failing_sms.lock().unwrap() = 1;
    // The e-mail goes out, the SMS fails: the invocation fails, so it is retried.
    assert!(send_reminders(&deps, payload(&v, "72h")).await.is_err());
    assert_eq!((outbox.emails(), outbox.sms()), (1, 0));
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));

    // The e-mail fails: retried too, and the webhook follows only the sent e-mail.
    deps.clock.advance(Duration::hours(48));
    *outbox.failing_mail.lock().unwrap() = 1;
    let hooks_before = outbox.webhooks.lock().unwrap().len();
    assert!(send_reminders(&deps, payload(&v, "24h")).await.is_err());
    assert_eq!(outbox.emails(), 1);
    assert_eq!(outbox.webhooks.lock().unwrap().len(), hooks_before);
    send_reminders(&deps, payload(&v, "24h")).await.unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (2, 2));
}

#[tokio::test]
async fn a_crashed_attempt_holds_its_notice_until_its_lease_runs_out() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    let now = deps.clock.now();
    // An attempt claimed the reminder e-mail and crashed before sending.
    let notice = Message::ReminderEmail("72h".into());
    let claim = deps
        .store
        .claim_message(v.verification_id, &notice, "hash", now)
        .await
        .unwrap();
    assert_eq!(claim, ClaimStart::Claimed);
    // The lease is live: another attempt may still send, so this one fails and is retried.
    let held = send_reminders(&deps, payload(&v, "72h")).await;
    assert!(matches!(held, Err(ReachError::Held)), "{held:?}");
    assert_eq!(
        outbox.emails(),
        0,
        "the lease is live: another attempt may still send"
    );
    deps.clock.advance(MESSAGE_LEASE + Duration::seconds(1));
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    send_reminders(&deps, payload(&v, "72h")).await.unwrap();
    assert_eq!(outbox.emails(), 1);
}

#[tokio::test]
async fn an_unknown_point_sends_nothing() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    deps.clock.advance(Duration::hours(96));
    send_reminders(&deps, payload(&v, "5h")).await.unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (0, 0));
}

/// A stream record of `v`'s insert, as publish-events receives it.
fn insert_record(v: &Verification, seq: &str) -> EventRecord {
    let mut item: serde_dynamo::Item = serde_dynamo::to_item(v).unwrap();
    item.insert(
        "SK".into(),
        serde_dynamo::AttributeValue::S("VERIFICATION".into()),
    );
    let mut record = EventRecord::default();
    record.event_name = "INSERT".into();
    record.change.new_image = item;
    record.change.sequence_number = Some(seq.into());
    record
}

/// A stream record of `old` becoming `new`, as publish-events receives it.
fn modify_record(old: &Verification, new: &Verification, seq: &str) -> EventRecord {
    let mut record = insert_record(new, seq);
    record.event_name = "MODIFY".into();
    record.change.old_image = insert_record(old, seq).change.new_image;
    record
}
