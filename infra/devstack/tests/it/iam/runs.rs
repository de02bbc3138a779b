//! The runs whose AWS calls the least-privilege test checks: every function wired as its
//! `main.rs` wires it (`shared::wiring`, through `devstack`), each with AWS clients of its own that
//! go through its own recording proxy (`FunctionProxies`). The emulator's own work (moto's
//! stream read, the TTL sweep, the schedule listing, setup and inspection) uses unrecorded
//! clients. Each step asserts its answer, so the path it names did run.

use std::collections::HashMap;
use std::sync::Arc;

use aws_config::SdkConfig;
use devstack::Workers;
use devstack::proxy::FunctionProxies;
use devstack::pump::{Outbox, StreamPump, TtlDeletions, pump_queue_once, pump_sqs_once};
use devstack::stack::{self, Created, Resources};
use serde_json::{Value, json};
use shared::adapters::dynamo::DynamoStore;
use shared::adapters::scheduler::EventBridgeScheduler;
use shared::adapters::ses::SesMailer;
use shared::adapters::sns::SnsTexter;
use shared::adapters::sqs::SqsQueue;
use shared::adapters::testing::{ArmedFaults, FaultyStore, StoreOp};
use shared::config::Settings;
use shared::handlers::publish_events::OutboxDeps;
use shared::ports::store::prelude::*;
use shared::ports::{
    Email, MailError, Mailer, OneTimeSchedule, Queue, Scheduler, StoreError, SystemClock,
};
use shared::routes::{Function, Trigger};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::common;

/// A switch a test flips to take one dependency down (an outage: transient errors).
#[derive(Clone, Default)]
pub struct Down(Arc<AtomicBool>);

impl Down {
    pub fn set(&self, down: bool) {
        self.0.store(down, Ordering::SeqCst);
    }
    fn check(&self) -> Result<(), StoreError> {
        match self.0.load(Ordering::SeqCst) {
            true => Err(StoreError::Unavailable("injected outage".into())),
            false => Ok(()),
        }
    }
}

/// A real adapter (its calls go through the function's proxy) that fails while `down` is set;
/// a mailer also refuses `+bounce` addresses for good, as SES refuses a suppressed recipient
/// (moto cannot), so the permanent-rejection path runs.
#[derive(Clone)]
pub struct Flaky<T> {
    inner: T,
    pub down: Down,
}

impl<T> Flaky<T> {
    fn new(inner: T) -> Self {
        Flaky {
            inner,
            down: Down::default(),
        }
    }
}

impl<M: Mailer> Mailer for Flaky<M> {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        if self.down.check().is_err() {
            return Err(MailError::Transient("injected outage".into()));
        }
        if email.to.contains("+bounce") {
            return Err(MailError::Permanent("suppressed recipient".into()));
        }
        self.inner.send(email).await
    }
}

impl<R: Scheduler> Scheduler for Flaky<R> {
    async fn create_once(&self, schedule: &OneTimeSchedule) -> Result<(), StoreError> {
        self.down.check()?;
        self.inner.create_once(schedule).await
    }
}

impl<Q: Queue> Queue for Flaky<Q> {
    async fn send(&self, body: &str) -> Result<(), StoreError> {
        self.down.check()?;
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

type Publish<S> = OutboxDeps<
    S,
    Flaky<SesMailer>,
    SnsTexter,
    Flaky<EventBridgeScheduler>,
    Flaky<SqsQueue>,
    SystemClock,
>;

/// The outbox as wired, with switchable SES, scheduler and webhook queue, over `store`.
fn flaky<S>(outbox: Outbox, store: S) -> Publish<S> {
    OutboxDeps {
        store,
        mailer: Flaky::new(outbox.mailer),
        texter: outbox.texter,
        scheduler: Flaky::new(outbox.scheduler),
        queue: Flaky::new(outbox.queue),
        retry_queue: Flaky::new(outbox.retry_queue),
        clock: outbox.clock,
        public_base_url: outbox.public_base_url,
        test_mode_delivery: outbox.test_mode_delivery,
        reminder_offsets: outbox.reminder_offsets,
        retry_backoff: vec![0],
    }
}

pub struct Rig {
    pub proxies: Arc<FunctionProxies>,
    /// Unrecorded: setup, inspection and the emulator's own pumps.
    pub sdk: SdkConfig,
    pub names: Resources,
    pub created: Created,
    pub store: DynamoStore,
    pub base: String,
    pub http: reqwest::Client,
    pub live_key: String,
    pub test_key: String,
    pub other_live_key: String,
    pub tiny_key: String,
    /// An account with no live verification yet this month.
    pub fresh_live_key: String,
    pub publish: Publish<DynamoStore>,
    pub retry: Publish<DynamoStore>,
    workers: HashMap<Function, Workers>,
    pump: StreamPump,
    ttl: TtlDeletions,
    deliver_sqs: aws_sdk_sqs::Client,
    pub receiver: common::Receiver,
    pub plaid_secret_arn: String,
}

pub async fn rig() -> Rig {
    let moto = common::moto();
    let sdk = moto.sdk_config().await;
    let proxies = Arc::new(FunctionProxies::new(&moto.endpoint));
    let names = Resources::named(&format!(
        "iam{}",
        &uuid::Uuid::new_v4().simple().to_string()[..10]
    ));
    let created = stack::bootstrap(&sdk, &names).await.expect("bootstrap");
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let seed = |account, plan| stack::seed_account(&store, account, plan, false);
    // Fixed keys: the demo account also has keys of the earlier format (found by their hash).
    let (live_key, test_key) = stack::seed_account(&store, stack::DEMO_ACCOUNT, "business", true)
        .await
        .unwrap();
    let (other_live_key, _) = seed(stack::OTHER_ACCOUNT, "pro").await.unwrap();
    let (tiny_key, _) = seed("acct_tiny", "tiny").await.unwrap();
    let (fresh_live_key, _) = seed("acct_fresh", "business").await.unwrap();
    let secrets = shared::ports::WebhookSecrets {
        current: Some(shared::domain::secrets::generate_webhook_secret()),
        previous: None,
        previous_valid_until: None,
    };
    for account in [stack::DEMO_ACCOUNT, "acct_fresh"] {
        store.put_webhook_secrets(account, &secrets).await.unwrap();
    }
    // The first delivery fails (deliver-webhook sets the message's back-off), the rest succeed.
    let receiver = common::Receiver::start(vec![500, 200], std::time::Duration::ZERO).await;
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let settings = Settings {
        plans: common::small_plans(),
        local_webhook_origins: common::webhook_origins().clone(),
        ..devstack::local_settings(&names.table, &base, shared::domain::VERIFICATION_LIFETIME)
    };
    let mut apps = HashMap::new();
    let mut workers = HashMap::new();
    for function in Function::ALL {
        let function_sdk = proxies.sdk(function.name()).await.expect("proxy");
        match function.trigger() {
            Trigger::Http(_) => {
                apps.insert(function, devstack::app(&function_sdk, settings.clone()));
            }
            _ => {
                let w = Workers::new(
                    &function_sdk,
                    &names,
                    &created,
                    &base,
                    vec![0],
                    common::webhook_origins(),
                );
                workers.insert(function, w);
            }
        }
    }
    devstack::server::spawn(Arc::new(devstack::server::PerFunction(apps)), port)
        .await
        .expect("listen");
    let publish = workers.remove(&Function::PublishEvents).unwrap().outbox;
    let publish = {
        let store = publish.store.clone();
        flaky(publish, store)
    };
    let retry = workers.remove(&Function::RetryEvents).unwrap().outbox;
    let retry = {
        let store = retry.store.clone();
        flaky(retry, store)
    };
    let deliver_sqs =
        aws_sdk_sqs::Client::new(&proxies.sdk(Function::DeliverWebhook.name()).await.unwrap());
    let ttl = TtlDeletions::default();
    let pump = StreamPump::new(&sdk, &names.table, ttl.clone())
        .await
        .unwrap();
    let sm = aws_sdk_secretsmanager::Client::new(&sdk);
    let plaid_secret_arn = sm
        .create_secret()
        .name(format!("{}-plaid", names.table))
        .secret_string(json!({"client_id": "cid-iam", "secret": "iam-secret"}).to_string())
        .send()
        .await
        .unwrap()
        .arn
        .unwrap();
    Rig {
        proxies,
        sdk,
        names,
        created,
        store,
        base,
        http: reqwest::Client::builder().no_proxy().build().unwrap(),
        live_key,
        test_key,
        other_live_key,
        tiny_key,
        fresh_live_key,
        publish,
        retry,
        workers,
        pump,
        ttl,
        deliver_sqs,
        receiver,
        plaid_secret_arn,
    }
}

impl Rig {
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        if let Some(body) = body {
            req = req
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let resp = req.send().await.expect("local server answers");
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// `call`, asserting the answer's status; its body.
    pub async fn expect(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
        status: u16,
    ) -> Value {
        let (got, reply) = self.call(method, path, key, body).await;
        assert_eq!(got, status, "{method} {path}: {reply}");
        reply
    }

    /// A tenant page: GET, or a POST of `form`.
    pub async fn page(&self, link: &str, form: Option<&str>) -> u16 {
        let url = format!("{}{link}", self.base);
        let req = match form {
            Some(form) => self
                .http
                .post(url)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form.to_string()),
            None => self.http.get(url),
        };
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let req = req.build().unwrap();
        client.execute(req).await.unwrap().status().as_u16()
    }

    fn link(&self, data: &Value) -> String {
        let url = data["verification_url"].as_str().expect("a tenant link");
        url.strip_prefix(&self.base).unwrap().to_string()
    }

    async fn function_sdk(&self, f: Function) -> SdkConfig {
        self.proxies.sdk(f.name()).await.unwrap()
    }

    /// The stream to publish-events and expire-verifications until quiet, then the webhook
    /// queue to deliver-webhook.
    pub async fn drain(&mut self) {
        drain(
            &mut self.pump,
            &self.publish,
            &self.workers,
            &self.deliver_sqs,
            &self.created,
        )
        .await;
    }

    /// The same with another publish-events (a faulty store around its own).
    pub async fn drain_with<S>(&mut self, publish: &Publish<S>)
    where
        S: shared::ports::Store,
    {
        drain(
            &mut self.pump,
            publish,
            &self.workers,
            &self.deliver_sqs,
            &self.created,
        )
        .await;
    }
}

/// Stream records to publish-events and expire-verifications until quiet, then the webhook queue
/// to deliver-webhook (the receives and deletes are its mapping's, on its role: `deliver_sqs` is
/// built from its SDK configuration).
async fn drain<S>(
    pump: &mut StreamPump,
    publish: &Publish<S>,
    workers: &HashMap<Function, Workers>,
    deliver_sqs: &aws_sdk_sqs::Client,
    created: &Created,
) where
    S: shared::ports::Store,
{
    let expiry = &workers[&Function::ExpireVerifications].expiry;
    for _ in 0..30 {
        if pump.pump_once(publish, expiry).await.unwrap() == 0 {
            break;
        }
    }
    let delivery = &workers[&Function::DeliverWebhook].delivery;
    for _ in 0..30 {
        let queue = &created.webhook_queue_url;
        if pump_sqs_once(deliver_sqs, queue, delivery, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
}

const VERIFY: &str = "/api/v1/verify";
const HOUSEHOLDS: &str = "/api/v1/households";

fn created_id(reply: &Value, field: &str) -> String {
    reply["data"][field].as_str().expect(field).to_string()
}

/// Success: a live verification from create to completion, with every read and webhook on the
/// way; its idempotent replay; a second one resent then cancelled; reminders; an expiry; the
/// Plaid secret's cold-start read.
pub async fn success(rig: &mut Rig) {
    let key = rig.live_key.clone();
    let (_, phone) = common::fresh_number();
    let body = json!({
        "tenant_email": format!("iam-{}+good@example.com", uuid::Uuid::new_v4().simple()),
        "tenant_name": "Ada Tenant",
        "tenant_phone": phone,
        "property_address": "1 Policy Row",
        "monthly_rent": 1200,
        "webhook_url": rig.receiver.url.clone(),
    });
    let idem = uuid::Uuid::new_v4().to_string();
    let create = |body: Value| {
        let req = rig
            .http
            .post(format!("{}{VERIFY}", rig.base))
            .bearer_auth(&key);
        req.header("idempotency-key", idem.clone())
            .header("content-type", "application/json")
            .body(body.to_string())
    };
    let first = create(body.clone()).send().await.unwrap();
    assert_eq!(first.status(), 201);
    let first: Value = serde_json::from_str(&first.text().await.unwrap()).unwrap();
    let replay = create(body.clone()).send().await.unwrap();
    assert!(replay.status().is_success(), "{}", replay.status());
    let id = created_id(&first, "verification_id");
    let link = rig.link(&first["data"]);
    rig.drain().await;

    rig.expect(
        "GET",
        &format!("{VERIFY}?verification_id={id}"),
        Some(&key),
        None,
        200,
    )
    .await;
    for query in [
        "",
        "?status=pending",
        "?status=expired",
        "?limit=1&offset=1",
    ] {
        rig.expect(
            "GET",
            &format!("/api/v1/verifications{query}"),
            Some(&key),
            None,
            200,
        )
        .await;
    }
    rig.expect("GET", "/api/v1/usage", Some(&key), None, 200)
        .await;
    assert_eq!(rig.page(&link, None).await, 200);
    assert_eq!(rig.page(&link, Some("action=consent&agree=yes")).await, 303);
    assert_eq!(rig.page(&link, None).await, 200);
    assert_eq!(
        rig.page(&link, Some("action=connect&scenario=good")).await,
        303
    );
    assert_eq!(rig.page(&link, Some("action=note&note=New+job")).await, 303);
    assert_eq!(rig.page(&format!("{link}/report.pdf"), None).await, 200);
    rig.drain().await;
    rig.expect(
        "GET",
        &format!("{VERIFY}/report?verification_id={id}"),
        Some(&key),
        None,
        200,
    )
    .await;
    let deliveries = format!("/api/v1/webhooks/deliveries?verification_id={id}");
    let log = rig.expect("GET", &deliveries, Some(&key), None, 200).await;
    let event = log["data"][0]["event_id"]
        .as_str()
        .expect("a delivery")
        .to_string();
    let (s, r) = rig
        .call(
            "POST",
            &format!("/api/v1/webhooks/redeliver?event_id={event}"),
            Some(&key),
            None,
        )
        .await;
    assert!(s == 202 || s == 200, "{s} {r}");
    rig.drain().await;

    // A second one: resent, then cancelled.
    let second = rig
        .expect(
            "POST",
            VERIFY,
            Some(&key),
            Some(json!({"tenant_email": "iam.second+good@example.com"})),
            201,
        )
        .await;
    let second = created_id(&second, "verification_id");
    rig.drain().await;
    rig.expect(
        "POST",
        &format!("{VERIFY}/resend?verification_id={second}"),
        Some(&key),
        None,
        202,
    )
    .await;
    rig.drain().await;
    let (s, r) = rig
        .call(
            "DELETE",
            &format!("{VERIFY}?verification_id={second}"),
            Some(&key),
            None,
        )
        .await;
    assert_eq!(s, 200, "{r}");
    rig.drain().await;

    // The reminders of every open verification, due now (send-reminders, as its schedules run).
    fire_reminders(rig).await;

    // An expiry: a verification past its time, its marker swept as TTL would.
    expiry(rig).await;

    // tenant-portal's cold start with Plaid: the secret, read with its own role.
    let sm = aws_sdk_secretsmanager::Client::new(&rig.function_sdk(Function::TenantPortal).await);
    let arn = rig.plaid_secret_arn.clone();
    let lookup = move |var: &str| match var {
        "PLAID_BASE_URL" => Some("https://sandbox.plaid.com".to_string()),
        "PLAID_SECRET_ARN" => Some(arn.clone()),
        _ => None,
    };
    shared::adapters::plaid::PlaidConfig::load(&sm, lookup)
        .await
        .expect("the secret reads");
}

/// send-reminders over every schedule of the group, at a time both reminder points are due.
async fn fire_reminders(rig: &mut Rig) {
    let scheduler = aws_sdk_scheduler::Client::new(&rig.sdk);
    let reach = &rig.workers[&Function::SendReminders].reach;
    let at = chrono::Utc::now() + chrono::Duration::hours(6 * 24 + 12);
    let mut attempts = HashMap::new();
    let group = &rig.names.schedule_group;
    let fired =
        devstack::schedules::pump_schedules_once(&scheduler, group, reach, &mut attempts, at)
            .await
            .unwrap();
    assert!(fired > 0, "reminders were due");
    rig.drain().await;
}

async fn expiry(rig: &mut Rig) {
    use shared::domain::{Mode, NewVerificationInput, Verification};
    let now = chrono::Utc::now();
    let input = NewVerificationInput {
        tenant_email: "iam.expired+good@example.com".into(),
        ..Default::default()
    };
    let mut v = Verification::new_pending(
        stack::DEMO_ACCOUNT,
        Mode::Test,
        input,
        now,
        chrono::Duration::days(7),
    );
    v.created_at = now - chrono::Duration::days(8);
    v.expires_at = now - chrono::Duration::seconds(5);
    rig.store.create_verification(&v, None, None).await.unwrap();
    let dynamo = aws_sdk_dynamodb::Client::new(&rig.sdk);
    let swept = devstack::pump::sweep_ttl(&dynamo, &rig.names.table, &rig.ttl)
        .await
        .unwrap();
    assert!(swept >= 1, "the marker was due");
    rig.drain().await;
    let stored = rig
        .store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, shared::domain::Status::Expired);
}

/// Refusals: a bad key, a day's requests used up, the month's live verifications used up, a
/// cancel of a closed verification, another account's verification.
pub async fn refusals(rig: &mut Rig) {
    rig.expect("GET", "/api/v1/usage", Some("sk_test_not_a_key"), None, 401)
        .await;
    // A well-formed key naming an account that does not exist, on every API function: the
    // metering write finds no account and reads it to say so.
    let ghost = shared::domain::secrets::generate_api_key("acct_ghost", shared::domain::Mode::Test)
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
    use shared::domain::reach::Message;
    use shared::handlers::reach_events::ReminderPayload;
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
    let held = shared::handlers::send_reminders::send_reminders(reach, payload).await;
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
    let ses_down = shared::handlers::send_reminders::ReachDeps {
        store: reach.store.clone(),
        mailer: Flaky::new(reach.mailer.clone()),
        texter: reach.texter.clone(),
        queue: reach.queue.clone(),
        clock: reach.clock,
        public_base_url: reach.public_base_url.clone(),
        test_mode_delivery: reach.test_mode_delivery,
        reminder_offsets: reach.reminder_offsets.clone(),
    };
    ses_down.mailer.down.set(true);
    let payload = ReminderPayload {
        verification_id: released,
        reminder: "72h".into(),
    };
    let failed = shared::handlers::send_reminders::send_reminders(&ses_down, payload).await;
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
    assert_eq!(stored.status, shared::domain::Status::Failed);
}

/// Households: create, read, list by household, members through the tenant page (consent,
/// connect, a refused bounce), a member's resend, the decision, reminders, deliveries by
/// household, and a cancel whose members the stream cancels.
pub async fn households(rig: &mut Rig) {
    let key = rig.test_key.clone();
    let hook = rig.receiver.url.clone();
    let members = |tag: &str, second: &str| {
        let (_, phone) = common::fresh_number();
        json!({
            "property_address": "2 Shared House Lane",
            "monthly_rent": 1800,
            "webhook_url": hook.clone(),
            "members": [
                {"tenant_email": format!("iam.{tag}.0+good@example.com"), "tenant_phone": phone, "role": "applicant"},
                {"tenant_email": format!("iam.{tag}.1+{second}@example.com"), "role": "applicant"},
            ],
        })
    };
    let decided = rig
        .expect(
            "POST",
            HOUSEHOLDS,
            Some(&key),
            Some(members("decided", "good")),
            201,
        )
        .await;
    let household = created_id(&decided, "household_id");
    rig.drain().await;
    rig.expect(
        "GET",
        &format!("{HOUSEHOLDS}?household_id={household}"),
        Some(&key),
        None,
        200,
    )
    .await;
    let (s, r) = rig
        .call(
            "GET",
            &format!("/api/v1/verifications?household_id={household}"),
            Some(&key),
            None,
        )
        .await;
    assert_eq!(s, 200, "{r}");
    let member_ids: Vec<String> = (decided["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["verification_id"].as_str().unwrap().to_string())
        .collect();
    // A member the index does not show yet (GSI3 lags on AWS; moto's never does): its item
    // without the index's key, for the reads that then fetch it by its own key.
    let hidden = hide_from_index(rig, &member_ids[1]).await;
    let r = rig
        .expect(
            "GET",
            &format!("{HOUSEHOLDS}?household_id={household}"),
            Some(&key),
            None,
            200,
        )
        .await;
    assert_eq!(
        r["data"]["members"].as_array().map(Vec::len),
        Some(2),
        "{r}"
    );
    rig.expect(
        "GET",
        &format!("/api/v1/verifications?household_id={household}"),
        Some(&key),
        None,
        200,
    )
    .await;
    show_in_index(rig, &member_ids[1], hidden).await;
    rig.expect(
        "POST",
        &format!("{VERIFY}/resend?verification_id={}", member_ids[1]),
        Some(&key),
        None,
        202,
    )
    .await;
    rig.drain().await;
    for member in decided["data"]["members"].as_array().unwrap().clone() {
        let link = rig.link(&member);
        assert_eq!(rig.page(&link, Some("action=consent&agree=yes")).await, 303);
        assert_eq!(
            rig.page(&link, Some("action=connect&scenario=good")).await,
            303
        );
    }
    rig.drain().await;
    let deliveries = format!("/api/v1/webhooks/deliveries?household_id={household}");
    let log = rig.expect("GET", &deliveries, Some(&key), None, 200).await;
    if let Some(event) = log["data"][0]["event_id"].as_str() {
        let (s, r) = rig
            .call(
                "POST",
                &format!("/api/v1/webhooks/redeliver?event_id={event}"),
                Some(&key),
                None,
            )
            .await;
        assert!(s == 202 || s == 200, "{s} {r}");
    }
    let decided_household = rig
        .store
        .get_household(household.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(
        decided_household.decision.is_some(),
        "the decision was written"
    );

    // A household whose second member's invite bounces (its `failed` checks the household),
    // reminded, then cancelled.
    let (s, open) = rig
        .call(
            "POST",
            HOUSEHOLDS,
            Some(&key),
            Some(members("cancelled", "bounce")),
        )
        .await;
    assert_eq!(s, 201, "{open}");
    let open_id = created_id(&open, "household_id");
    rig.drain().await;
    fire_reminders(rig).await;
    // Three resends of one member at once: the ones that lose the one-write race go the usual
    // way, whose write checks the household in the same transaction.
    // A member resent today in the earlier count format: the one write refuses it, and the usual
    // way's write checks the household in the same transaction.
    let member = open["data"]["members"][0]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    earlier_resend_day(rig, &member).await;
    let path = format!("{VERIFY}/resend?verification_id={member}");
    rig.expect("POST", &path, Some(&key), None, 202).await;
    rig.drain().await;
    let second = open["data"]["members"][1]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let hidden = hide_from_index(rig, &second).await;
    let (s, r) = rig
        .call(
            "DELETE",
            &format!("{HOUSEHOLDS}?household_id={open_id}"),
            Some(&key),
            None,
        )
        .await;
    show_in_index(rig, &second, hidden).await;
    assert_eq!(s, 200, "{r}");
    rig.drain().await;
    let first = open["data"]["members"][0]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let stored = rig.store.get_verification(first).await.unwrap().unwrap();
    assert!(!stored.status.is_open(), "the stream cancelled the member");
}

/// Retries: publish-events' store fails every read of the verification, account and household
/// and its scheduler and webhook queue are down, so each piece of outbox work (e-mail, SMS,
/// schedules, webhook, a household's decision) goes to the retry queue; retry-events redoes it.
/// Then an e-mail that keeps failing: retried later, and given up past the window (the
/// verification fails, its allowance refunded). The receives, deletes and back-off are
/// retry-events' mapping's and its own, on its role.
pub async fn retries(rig: &mut Rig) {
    let faults = ArmedFaults::default();
    let publish = {
        let w = Workers::new(
            &rig.function_sdk(Function::PublishEvents).await,
            &rig.names,
            &rig.created,
            &rig.base,
            vec![0],
            common::webhook_origins(),
        );
        let store = FaultyStore {
            inner: w.outbox.store.clone(),
            faults: faults.clone(),
        };
        flaky(w.outbox, store)
    };
    let key = rig.live_key.clone();
    // A verification with a webhook whose invite went out, to consent during the outage.
    let body = json!({"tenant_email": "iam.hooked+good@example.com", "webhook_url": rig.receiver.url.clone()});
    let hooked = rig
        .expect("POST", VERIFY, Some(&key), Some(body), 201)
        .await;
    rig.drain().await;
    // A household member completes while the decision cannot be written.
    let household = rig.expect("POST", HOUSEHOLDS, Some(&key), Some(json!({"monthly_rent": 1000, "members": [{"tenant_email": "iam.retry.h+good@example.com", "role": "applicant"}]})), 201).await;
    rig.drain().await;
    let link = rig.link(&household["data"]["members"][0]);
    assert_eq!(rig.page(&link, Some("action=consent&agree=yes")).await, 303);
    assert_eq!(
        rig.page(&link, Some("action=connect&scenario=good")).await,
        303
    );
    faults.down(StoreOp::RecordHouseholdDecision);
    for op in [
        StoreOp::GetVerification,
        StoreOp::GetAccount,
        StoreOp::GetHousehold,
    ] {
        faults.down(op);
    }
    publish.scheduler.down.set(true);
    publish.queue.down.set(true);
    let (_, phone) = common::fresh_number();
    let body = json!({"tenant_email": "iam.retry+good@example.com", "tenant_phone": phone, "webhook_url": rig.receiver.url.clone()});
    let (s, r) = rig.call("POST", VERIFY, Some(&key), Some(body)).await;
    assert_eq!(s, 201, "{r}");
    rig.drain_with(&publish).await;
    // Its consent's webhook while the queue is down and the event cannot be stored.
    faults.down(StoreOp::PutWebhookEvent);
    let link = rig.link(&hooked["data"]);
    assert_eq!(rig.page(&link, Some("action=consent&agree=yes")).await, 303);
    rig.drain_with(&publish).await;
    faults.restore(StoreOp::PutWebhookEvent);
    let redone = retry_round(rig).await;
    assert!(redone > 0, "work was handed to the retry queue and redone");
    let id: uuid::Uuid = household["data"]["household_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let decided = rig.store.get_household(id).await.unwrap().unwrap();
    assert!(
        decided.decision.is_some(),
        "retry-events wrote the decision"
    );
    rig.drain().await;

    // An e-mail that keeps failing: once within the window (retried later), once past it.
    publish.mailer.down.set(true);
    for op in [
        StoreOp::GetVerification,
        StoreOp::GetAccount,
        StoreOp::GetHousehold,
        StoreOp::RecordHouseholdDecision,
    ] {
        faults.restore(op);
    }
    let r = rig
        .expect(
            "POST",
            VERIFY,
            Some(&key),
            Some(json!({"tenant_email": "iam.giveup+good@example.com"})),
            201,
        )
        .await;
    let lone = created_id(&r, "verification_id");
    let h = rig.expect("POST", HOUSEHOLDS, Some(&key), Some(json!({"monthly_rent": 1000, "members": [{"tenant_email": "iam.giveup.h+good@example.com", "role": "applicant"}]})), 201).await;
    let member = h["data"]["members"][0]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    rig.drain_with(&publish).await;
    let long_ago = shared::domain::format_ts(chrono::Utc::now() - chrono::Duration::days(3));
    for id in [&lone, &member] {
        let stale = json!({"work": {"kind": "tenant_email", "verification_id": id}, "first_failed_at": long_ago});
        aws_sdk_sqs::Client::new(&rig.sdk)
            .send_message()
            .queue_url(&rig.created.retry_queue_url)
            .message_body(stale.to_string())
            .send()
            .await
            .unwrap();
    }
    rig.retry.mailer.down.set(true);
    retry_round(rig).await;
    rig.retry.mailer.down.set(false);
    for id in [&lone, &member] {
        let stored = rig
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            stored.status,
            shared::domain::Status::Failed,
            "given up past the window"
        );
    }
    rig.drain().await;
}

/// retry-events over the retry queue until it is empty (or ten rounds): messages handled.
async fn retry_round(rig: &mut Rig) -> usize {
    let sqs = aws_sdk_sqs::Client::new(&rig.function_sdk(Function::RetryEvents).await);
    let mut redone = 0;
    for _ in 0..10 {
        let retry = &rig.retry;
        let n = pump_queue_once(&sqs, &rig.created.retry_queue_url, 0, |event| {
            shared::handlers::retry_events::retry_events(retry, event)
        })
        .await
        .unwrap();
        redone += n;
        if n == 0 {
            break;
        }
    }
    redone
}

/// A live household created twice with one idempotency key (the replay reads the stored
/// household and its members).
pub async fn household_replay(rig: &mut Rig) {
    // The account's first live household of the month (its live count read once), created
    // twice with one idempotency key.
    let key = rig.fresh_live_key.clone();
    let idem = uuid::Uuid::new_v4().to_string();
    let body = json!({"monthly_rent": 1100, "members": [
        {"tenant_email": "iam.replay.0+good@example.com", "role": "applicant"},
        {"tenant_email": "iam.replay.1+good@example.com", "role": "guarantor"},
    ]});
    for expected in [201, 200] {
        let resp = rig
            .http
            .post(format!("{}{HOUSEHOLDS}", rig.base))
            .bearer_auth(&key)
            .header("idempotency-key", idem.clone())
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        assert!(
            status == expected || status == 201,
            "{status}: {}",
            resp.text().await.unwrap()
        );
    }
    rig.drain().await;
}

/// Every API route, naming `id` (a verification), `member` (a household member) and `household`.
fn api_routes(
    id: uuid::Uuid,
    member: uuid::Uuid,
    household: uuid::Uuid,
) -> Vec<(&'static str, String)> {
    let event = uuid::Uuid::new_v4();
    vec![
        ("POST", VERIFY.to_string()),
        ("GET", format!("{VERIFY}?verification_id={id}")),
        ("GET", "/api/v1/verifications".to_string()),
        ("GET", "/api/v1/usage".to_string()),
        ("GET", format!("{VERIFY}/report?verification_id={id}")),
        (
            "GET",
            format!("/api/v1/webhooks/deliveries?verification_id={id}"),
        ),
        (
            "POST",
            format!("/api/v1/webhooks/redeliver?event_id={event}"),
        ),
        ("POST", format!("{VERIFY}/resend?verification_id={member}")),
        ("POST", HOUSEHOLDS.to_string()),
        ("GET", format!("{HOUSEHOLDS}?household_id={household}")),
        ("DELETE", format!("{VERIFY}?verification_id={id}")),
        ("DELETE", format!("{HOUSEHOLDS}?household_id={household}")),
    ]
}

/// One raw update of a verification item (standing in for what moto cannot produce); its old
/// attributes.
async fn update_item(
    rig: &Rig,
    id: &str,
    expression: &str,
    values: &[(&str, aws_sdk_dynamodb::types::AttributeValue)],
) -> std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue> {
    use aws_sdk_dynamodb::types::{AttributeValue as V, ReturnValue};
    use shared::adapters::dynamo::schema;
    let (pk, sk) = shared::adapters::dynamo::keys::verification(id.parse().unwrap());
    let mut update = aws_sdk_dynamodb::Client::new(&rig.sdk)
        .update_item()
        .table_name(&rig.names.table)
        .key(schema::PK, V::S(pk))
        .key(schema::SK, V::S(sk))
        .update_expression(expression)
        .return_values(ReturnValue::AllOld);
    if expression.contains("#g") {
        update = update.expression_attribute_names("#g", schema::GSI3PK);
    }
    for (name, value) in values {
        update = update.expression_attribute_values(*name, value.clone());
    }
    update.send().await.unwrap().attributes.unwrap_or_default()
}

/// Removes a member's GSI3 key (as if the index had not caught up); returns it.
async fn hide_from_index(rig: &Rig, id: &str) -> aws_sdk_dynamodb::types::AttributeValue {
    let old = update_item(rig, id, "REMOVE #g", &[]).await;
    old[shared::adapters::dynamo::schema::GSI3PK].clone()
}

async fn show_in_index(rig: &Rig, id: &str, value: aws_sdk_dynamodb::types::AttributeValue) {
    update_item(rig, id, "SET #g = :g", &[(":g", value)]).await;
}

/// Marks one resend today in the earlier format (`resend_day` without the day's own count).
async fn earlier_resend_day(rig: &Rig, id: &str) {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    let today = shared::domain::resend::utc_day(chrono::Utc::now());
    let values = [(":d", V::S(today)), (":one", V::N("1".into()))];
    update_item(
        rig,
        id,
        "SET resend_day = :d, resends_on_day = :one",
        &values,
    )
    .await;
}
