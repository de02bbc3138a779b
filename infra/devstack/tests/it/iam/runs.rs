//! The runs whose AWS calls the least-privilege test checks: every function wired as its
//! `main.rs` wires it (`adapters::wiring`, through `devstack`), each with AWS clients of its own that
//! go through its own recording proxy (`FunctionProxies`). The emulator's own work (moto's
//! stream read, the TTL sweep, the schedule listing, setup and inspection) uses unrecorded
//! clients. Each step asserts its answer, so the path it names did run. The HTTP functions run
//! with the edge's origin check on (as `EdgeProtection` deploys them), so their cold-start read
//! of the origin secret is checked too; the rig's HTTP client sends the header as CloudFront does.

use std::collections::HashMap;
use std::sync::Arc;

use adapters::dynamo::DynamoStore;
use adapters::scheduler::EventBridgeScheduler;
use adapters::ses::SesMailer;
use adapters::sns::SnsTexter;
use adapters::sqs::SqsQueue;
use aws_config::SdkConfig;
use devstack::Workers;
use devstack::proxy::FunctionProxies;
use devstack::pump::{Outbox, StreamPump, TtlDeletions, pump_queue_once, pump_sqs_once};
use devstack::stack::{self, Created, Resources};
use ports::store::prelude::*;
use ports::{Email, MailError, Mailer, OneTimeSchedule, Queue, Scheduler, StoreError, SystemClock};
use serde_json::{Value, json};
use service::config::Settings;
use service::handlers::publish_events::OutboxDeps;
use service::routes::{Function, Trigger};
use std::sync::atomic::{AtomicBool, Ordering};
use test_support::{ArmedFaults, FaultyStore, StoreOp};

use crate::common;
mod erasure;
pub use erasure::*;
mod households_and_retries;
pub use households_and_retries::*;
mod refusals_and_claims;
pub use refusals_and_claims::*;
mod documents;
pub use documents::*;
mod connections;
pub use connections::*;
mod success;
pub use success::*;

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
    adapters::live_provider::LiveProvider,
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
        provider: outbox.provider,
        clock: outbox.clock,
        public_base_url: outbox.public_base_url,
        test_mode_delivery: outbox.test_mode_delivery,
        reminder_offsets: outbox.reminder_offsets,
        retry_backoff: vec![0],
        sms: outbox.sms,
    }
}

/// publish-events as wired, over its store failing the operations `faults` arms.
async fn faulty_publish(
    rig: &Rig,
    faults: &ArmedFaults,
) -> Publish<FaultyStore<DynamoStore, ArmedFaults>> {
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
    pub argyle_secret_arn: String,
    /// The Plaid emulator whose keys `provider-webhooks` checks.
    pub plaid: devstack::plaid_emulator::PlaidEmulator,
    /// The edge's origin secret: every HTTP function reads it at its cold start and checks it,
    /// as with `EdgeProtection` on (`http` sends it, as CloudFront does).
    pub origin_secret_arn: String,
    origin_headers: reqwest::header::HeaderMap,
}

/// The origin secret in moto, made as template.yaml's `EdgeOriginSecret` is (a generated value);
/// its ARN and value.
async fn origin_secret(sdk: &SdkConfig, names: &Resources) -> (String, String) {
    let value = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let arn = aws_sdk_secretsmanager::Client::new(sdk)
        .create_secret()
        .name(format!("{}-edge-origin", names.table))
        .secret_string(&value)
        .send()
        .await
        .unwrap()
        .arn
        .unwrap();
    (arn, value)
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
    let (live_key, test_key) = stack::seed_account(&store, stack::DEMO_ACCOUNT, "business", true)
        .await
        .unwrap();
    let (other_live_key, _) = seed(stack::OTHER_ACCOUNT, "pro").await.unwrap();
    let (tiny_key, _) = seed("acct_tiny", "tiny").await.unwrap();
    let (fresh_live_key, _) = seed("acct_fresh", "business").await.unwrap();
    let secrets = ports::WebhookSecrets {
        current: Some(domain::secrets::generate_webhook_secret()),
        previous: None,
        previous_valid_until: None,
    };
    let writer = stack::webhook_secrets::writer(&sdk, &names, &created);
    for account in [stack::DEMO_ACCOUNT, "acct_fresh"] {
        writer.put_webhook_secrets(account, &secrets).await.unwrap();
    }
    // The first delivery fails (deliver-webhook sets the message's back-off), the rest succeed.
    let receiver = common::Receiver::start(vec![500, 200], std::time::Duration::ZERO).await;
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let settings = Settings {
        plans: common::small_plans(),
        local_webhook_origins: common::webhook_origins().clone(),
        ..devstack::local_settings(&names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    let mut apps = HashMap::new();
    let mut workers = HashMap::new();
    let plaid = devstack::plaid_emulator::PlaidEmulator::start(false)
        .await
        .expect("the Plaid emulator listens");
    let (origin_secret_arn, origin_value) = origin_secret(&sdk, &names).await;
    for function in Function::ALL {
        let function_sdk = proxies.sdk(function.name()).await.expect("proxy");
        // Each HTTP function's cold start reads the origin secret with its own clients.
        let origin = async {
            adapters::wiring::origin_check(Some(&origin_secret_arn), &function_sdk)
                .await
                .expect("the origin secret reads")
        };
        match function.trigger() {
            Trigger::Http(_) if function == Function::ProviderWebhooks => {
                let mut app = devstack::app_with_webhooks(
                    &function_sdk,
                    settings.clone(),
                    adapters::live_provider::LiveProvider::local_sandbox(),
                    plaid.verifiers(),
                );
                Arc::get_mut(&mut app).expect("just built").origin = origin.await;
                apps.insert(function, app);
            }
            Trigger::Http(_) => {
                let mut app = devstack::app(&function_sdk, settings.clone());
                Arc::get_mut(&mut app).expect("just built").origin = origin.await;
                apps.insert(function, app);
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
    let mut origin_headers = reqwest::header::HeaderMap::new();
    origin_headers.insert(
        service::http::origin::ORIGIN_HEADER,
        origin_value.parse().unwrap(),
    );
    // The check is on: a caller without the header (one that bypassed CloudFront) is refused
    // before the function's handler runs.
    let bypass = reqwest::Client::builder().no_proxy().build().unwrap();
    let refused = bypass
        .get(format!("{base}/api/v1/usage"))
        .bearer_auth(&live_key)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let refused: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert_eq!(refused["code"], "edge_required", "{refused}");
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
    let argyle_secret_arn = sm
        .create_secret()
        .name(format!("{}-argyle", names.table))
        .secret_string(json!({"api_key_id": "kid-iam", "api_key_secret": "iam-secret"}).to_string())
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
        http: reqwest::Client::builder()
            .no_proxy()
            .default_headers(origin_headers.clone())
            .build()
            .unwrap(),
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
        argyle_secret_arn,
        plaid,
        origin_secret_arn,
        origin_headers,
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
            .default_headers(self.origin_headers.clone())
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
        S: ports::Store,
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
    S: ports::Store,
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

/// A verification of the demo account in `mode`, consented with `provider_user` and waiting for
/// the bank's data (with `next` after it), then `more` written on it: as stored.
pub(super) async fn waiting(
    rig: &Rig,
    (mode, tenant_email): (domain::Mode, String),
    provider_user: &str,
    next: Option<domain::income::VerificationMethod>,
    more: Vec<domain::Transition>,
) -> domain::Verification {
    use domain::{NewVerificationInput, Transition, Verification};
    let now = chrono::Utc::now();
    let input = NewVerificationInput {
        tenant_email,
        ..Default::default()
    };
    let v = Verification::new_pending(
        stack::DEMO_ACCOUNT,
        mode,
        input,
        now,
        chrono::Duration::days(7),
    );
    rig.store.create_verification(&v, None, None).await.unwrap();
    let consent = Transition::Consent {
        version: "v".into(),
        provider_user: Some(provider_user.into()),
        methods: vec![],
    };
    let wait = Transition::Await {
        method: domain::income::VerificationMethod::Bank,
        next,
    };
    let mut current = v;
    for t in [consent, wait].into_iter().chain(more) {
        match rig.store.transition(&current, &t, now).await.unwrap() {
            ports::TransitionOutcome::Applied(next) => current = next,
            other => panic!("{other:?}"),
        }
    }
    current
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
        ("DELETE", format!("{VERIFY}/data?verification_id={id}")),
        ("POST", format!("{VERIFY}/review?verification_id={id}")),
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
    use service::table_schema as schema;
    let (pk, sk) = service::table_schema::keys::verification(id.parse().unwrap());
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
    old[service::table_schema::GSI3PK].clone()
}

async fn show_in_index(rig: &Rig, id: &str, value: aws_sdk_dynamodb::types::AttributeValue) {
    update_item(rig, id, "SET #g = :g", &[(":g", value)]).await;
}

/// Marks one resend today in the earlier format (`resend_day` without the day's own count).
async fn earlier_resend_day(rig: &Rig, id: &str) {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    let today = domain::resend::utc_day(chrono::Utc::now());
    let values = [(":d", V::S(today)), (":one", V::N("1".into()))];
    update_item(
        rig,
        id,
        "SET resend_day = :d, resends_on_day = :one",
        &values,
    )
    .await;
}
