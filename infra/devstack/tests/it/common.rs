//! Test harness: one moto server per test binary (started on a free loopback port), a fresh table
//! and queues per test, seeded accounts, and the local HTTP server on a free port.
#![allow(dead_code)]

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use adapters::dynamo::DynamoStore;
use aws_config::SdkConfig;
use devstack::moto::Moto;
use devstack::server::App;
use devstack::stack::{self, Created, Resources};
use domain::Plan;
use domain::plans::Plans;
use domain::webhook::LocalWebhookOrigins;
use serde_json::Value;
use service::config::Settings;

static MOTOS: OnceLock<Vec<Moto>> = OnceLock::new();
static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
static WEBHOOK_ORIGINS: OnceLock<LocalWebhookOrigins> = OnceLock::new();

/// The non-public webhook targets the envs of this test binary accept: exactly the receivers its
/// tests started (each `Receiver::start` lists its own origin), no other loopback address.
pub fn webhook_origins() -> &'static LocalWebhookOrigins {
    WEBHOOK_ORIGINS.get_or_init(LocalWebhookOrigins::default)
}

/// How many moto servers this binary spreads its tests over. One moto serves one request at a
/// time (Python), so a second one lets the tests use the machine's second core.
const MOTO_SERVERS: usize = 2;

fn motos() -> &'static [Moto] {
    MOTOS.get_or_init(|| {
        (0..MOTO_SERVERS)
            .map(|_| Moto::start().expect("moto starts (run `make tools` first)"))
            .collect()
    })
}

/// A moto server for a new test table or stack: the servers in turn. Everything of one test
/// stays on the server it got; what all tests read (sent e-mails and SMS) merges them all.
pub fn moto() -> &'static Moto {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let servers = motos();
    &servers[NEXT.fetch_add(1, Ordering::Relaxed) % servers.len()]
}

/// Everything the handlers log, from every test of this binary.
pub fn captured_logs() -> String {
    String::from_utf8_lossy(&logs().lock().unwrap()).into_owned()
}

fn logs() -> &'static Arc<Mutex<Vec<u8>>> {
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = buffer.clone();
        let _ = tracing_subscriber::fmt()
            .json()
            .with_current_span(true)
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                "debug,aws=warn,hyper=warn,h2=warn,rustls=warn",
            ))
            .with_writer(move || LogSink(writer.clone()))
            .try_init();
        buffer
    })
}

struct LogSink(Arc<Mutex<Vec<u8>>>);

impl Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Plans small enough to reach their edges in a test.
pub fn small_plans() -> Plans {
    let plan = |name: &str, v, r, api| Plan {
        name: name.into(),
        verifications_per_month: v,
        api_requests_per_day: r,
        api_access: api,
        sms_per_month: Plans::defaults().get(name).map_or(3, |p| p.sms_per_month),
        // Suites that walk every endpoint with one key; the burst bound has its own tests
        // (`dynamo_store::key_burst`, domain `metering::tests::burst`).
        key_burst: domain::KeyBurst {
            requests: 10_000,
            per_second: 1_000,
        },
    };
    Plans::new(vec![
        plan("starter", 10, 0, false),
        plan("pro", 5, 1000, true),
        plan("business", 200, 1000, true),
        plan("tiny", 100, 3, true),
    ])
}

pub struct TestEnv {
    pub sdk: SdkConfig,
    pub names: Resources,
    pub created: Created,
    pub store: DynamoStore,
    /// The accounts' webhook signing secrets, written as the admin tool writes them.
    pub secrets: adapters::webhook_secrets::SecretsManagerWebhookSecrets,
    pub app: Arc<App>,
    pub base: String,
    pub http: reqwest::Client,
    /// Demo account (plan business): live and test keys.
    pub live_key: String,
    pub test_key: String,
    /// Another account (plan pro).
    pub other_live_key: String,
    pub other_test_key: String,
    /// The webhook receivers the API and the delivery worker may reach (`webhook_origins()`).
    pub webhook_origins: LocalWebhookOrigins,
    /// The moto server this env's stack lives on.
    pub moto: &'static Moto,
}

/// The smallest PNG (1 x 1 pixel, 67 bytes): a photo upload, which the analysis can't read.
pub const TINY_PNG: [u8; 67] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

pub async fn env() -> TestEnv {
    env_with(small_plans()).await
}

pub async fn env_with(plans: Plans) -> TestEnv {
    logs();
    let moto = moto();
    let sdk = moto.sdk_config().await;
    let names = Resources::named(&format!(
        "t{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    ));
    let created = stack::bootstrap(&sdk, &names).await.expect("bootstrap");
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let (live_key, test_key) = stack::seed_account(&store, stack::DEMO_ACCOUNT, "business", true)
        .await
        .unwrap();
    let (other_live_key, other_test_key) =
        stack::seed_account(&store, stack::OTHER_ACCOUNT, "pro", true)
            .await
            .unwrap();
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let settings = Settings {
        plans,
        local_webhook_origins: webhook_origins().clone(),
        ..devstack::local_settings(&names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    // Plaid's webhook route checks signatures with a Plaid emulator's keys.
    let plaid = devstack::plaid_emulator::PlaidEmulator::start(false)
        .await
        .expect("the Plaid emulator listens");
    let app = devstack::app_with_webhooks(
        &sdk,
        settings,
        adapters::live_provider::LiveProvider::local_sandbox(),
        plaid.verifiers(),
    );
    devstack::server::spawn(app.clone(), port)
        .await
        .expect("listen");
    TestEnv {
        secrets: stack::webhook_secrets::writer(&sdk, &names, &created),
        sdk,
        names,
        created,
        store,
        app,
        base,
        http: reqwest::Client::builder().no_proxy().build().unwrap(),
        live_key,
        test_key,
        other_live_key,
        other_test_key,
        webhook_origins: webhook_origins().clone(),
        moto,
    }
}

/// A response as the tests look at it.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub raw: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl TestEnv {
    /// The stream, queue and schedule functions on this env's stack, retrying at once.
    pub fn workers(&self) -> devstack::Workers {
        devstack::Workers::new(
            &self.sdk,
            &self.names,
            &self.created,
            &self.base,
            vec![0],
            &self.webhook_origins,
        )
    }
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&str>,
    ) -> Reply {
        self.call_with(method, path, key, body, &[]).await
    }

    pub async fn call_with(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.http.request(method, format!("{}{}", self.base, path));
        if let Some(key) = key {
            req = req.header("authorization", format!("Bearer {key}"));
        }
        if let Some(body) = body {
            req = req
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.expect("local server answers");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let raw = resp.text().await.unwrap();
        let body = serde_json::from_str(&raw).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
            raw,
        }
    }
}

/// The typed test client: one method per API operation, each sending the request as a client of
/// the contract would (the key as a Bearer token, JSON bodies, the id in the query).
impl TestEnv {
    pub async fn create_verification(&self, key: &str, body: Value) -> Reply {
        self.call("POST", "/api/v1/verify", Some(key), Some(&body.to_string()))
            .await
    }

    pub async fn get_verification(&self, key: &str, id: impl std::fmt::Display) -> Reply {
        let path = format!("/api/v1/verify?verification_id={id}");
        self.call("GET", &path, Some(key), None).await
    }

    pub async fn cancel_verification(&self, key: &str, id: impl std::fmt::Display) -> Reply {
        let path = format!("/api/v1/verify?verification_id={id}");
        self.call("DELETE", &path, Some(key), None).await
    }

    pub async fn resend_verification(&self, key: &str, id: impl std::fmt::Display) -> Reply {
        let path = format!("/api/v1/verify/resend?verification_id={id}");
        self.call("POST", &path, Some(key), None).await
    }

    /// POST /api/v1/verify/review with `body` (`decision` and `note`).
    pub async fn review_documents(
        &self,
        key: &str,
        id: impl std::fmt::Display,
        body: Value,
    ) -> Reply {
        let path = format!("/api/v1/verify/review?verification_id={id}");
        self.call("POST", &path, Some(key), Some(&body.to_string()))
            .await
    }

    pub async fn get_report(&self, key: &str, id: impl std::fmt::Display) -> Reply {
        let path = format!("/api/v1/verify/report?verification_id={id}");
        self.call("GET", &path, Some(key), None).await
    }

    /// GET /api/v1/verifications with `query` (without the `?`; empty for none).
    pub async fn list_verifications(&self, key: &str, query: &str) -> Reply {
        let path = match query {
            "" => "/api/v1/verifications".to_string(),
            query => format!("/api/v1/verifications?{query}"),
        };
        self.call("GET", &path, Some(key), None).await
    }

    pub async fn usage(&self, key: &str) -> Reply {
        self.call("GET", "/api/v1/usage", Some(key), None).await
    }

    pub async fn create_household(&self, key: &str, body: Value) -> Reply {
        let body = body.to_string();
        self.call("POST", "/api/v1/households", Some(key), Some(&body))
            .await
    }

    pub async fn get_household(&self, key: &str, id: impl std::fmt::Display) -> Reply {
        let path = format!("/api/v1/households?household_id={id}");
        self.call("GET", &path, Some(key), None).await
    }

    pub async fn cancel_household(&self, key: &str, id: impl std::fmt::Display) -> Reply {
        let path = format!("/api/v1/households?household_id={id}");
        self.call("DELETE", &path, Some(key), None).await
    }
}

// Not every test binary looks at what a receiver got.
#[allow(unused_imports)]
pub use devstack::receiver::Received;

/// A webhook receiver on a free loopback port (`devstack::receiver`). It answers with the scripted
/// statuses in turn (the last one repeats) and records every request.
pub struct Receiver(devstack::receiver::Receiver);

impl std::ops::Deref for Receiver {
    type Target = devstack::receiver::Receiver;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Receiver {
    /// A receiver the local stack lists as a webhook target.
    pub async fn start(statuses: Vec<u16>, delay: std::time::Duration) -> Receiver {
        let receiver = Self::start_unlisted(statuses, delay).await;
        webhook_origins().allow(&receiver.origin()).unwrap();
        receiver
    }

    /// A receiver that is listening but not listed: webhooks must never reach it. Its port is
    /// one no earlier receiver of this binary listed (the OS reuses the ports of dropped ones).
    pub async fn start_unlisted(statuses: Vec<u16>, delay: std::time::Duration) -> Receiver {
        for _ in 0..50 {
            let respond = devstack::receiver::scripted(statuses.clone());
            let receiver = devstack::receiver::Receiver::start(0, "/hook", delay, respond)
                .await
                .unwrap();
            let url = reqwest::Url::parse(&receiver.url).unwrap();
            if !webhook_origins().allows(&url) {
                return Receiver(receiver);
            }
        }
        panic!("no loopback port free of the listed receivers after 50 tries")
    }
}

/// E-mails moto's SES has accepted, to this recipient (subject, HTML body, destinations).
pub async fn sent_emails(to: &str) -> Vec<Value> {
    sent_to(to, "emails").await
}

/// SMS moto's SNS recorded to `number`, their texts.
pub async fn sent_sms(number: &str) -> Vec<String> {
    sent_to(number, "sms")
        .await
        .into_iter()
        .filter_map(|m| m["message"].as_str().map(String::from))
        .collect()
}

/// What every moto server of this binary sent to one address or number (`infra/moto_server.py`'s
/// `/moto-api/sent`: only those messages, in `/moto-api/data.json`'s shapes): `kind` is `emails`
/// (SES, each {id, source, subject, body, destinations}) or `sms` (SNS, each {message_id,
/// phone_number, message}).
async fn sent_to(to: &str, kind: &str) -> Vec<Value> {
    // One client for the whole binary (building one reads the system's certificates); no idle
    // connections kept, since each test's runtime ends with its connections.
    static HTTP: OnceLock<reqwest::Client> = OnceLock::new();
    let http = HTTP.get_or_init(|| {
        let builder = reqwest::Client::builder().no_proxy();
        builder.pool_max_idle_per_host(0).build().unwrap()
    });
    let mut all = Vec::new();
    for moto in motos() {
        let url = reqwest::Url::parse_with_params(
            &format!("{}/moto-api/sent", moto.endpoint),
            [("to", to)],
        )
        .unwrap();
        let raw = http.get(url).send().await.unwrap().text().await.unwrap();
        let sent: Value = serde_json::from_str(&raw).unwrap();
        all.extend(sent[kind].as_array().cloned().unwrap_or_default());
    }
    all
}

/// A US number moto has not seen yet (tests share one moto).
pub fn fresh_number() -> (String, String) {
    let n = 2_000_000 + (uuid::Uuid::new_v4().as_u128() % 7_000_000) as u32;
    let line = format!("{:04}", n % 10_000);
    let exchange = 200 + (n / 10_000) % 700;
    (
        format!("(415) {exchange}-{line}"),
        format!("+1415{exchange}{line}"),
    )
}

/// Messages currently in a queue (a bounded receive that puts them straight back).
/// Sets the stored `completed_at` of the verification `days` back, as if it had completed then.
pub async fn completed_days_ago(env: &TestEnv, id: &str, days: i64) {
    use aws_sdk_dynamodb::types::AttributeValue;
    let (pk, sk) = service::table_schema::keys::verification(id.parse().unwrap());
    let at = domain::format_ts(chrono::Utc::now() - chrono::Duration::days(days));
    aws_sdk_dynamodb::Client::new(&env.sdk)
        .update_item()
        .table_name(&env.names.table)
        .key("PK", AttributeValue::S(pk))
        .key("SK", AttributeValue::S(sk))
        .update_expression("SET completed_at = :at")
        .expression_attribute_values(":at", AttributeValue::S(at))
        .send()
        .await
        .unwrap();
}

/// Every message waiting in a queue, read without taking it (visibility 0).
pub async fn queue_bodies(env: &TestEnv, url: &str) -> Vec<String> {
    let received = aws_sdk_sqs::Client::new(&env.sdk)
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let messages = received.messages.unwrap_or_default();
    messages.iter().filter_map(|m| m.body.clone()).collect()
}

pub async fn queue_depth(env: &TestEnv, queue_url: &str) -> usize {
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    let attrs = sqs
        .get_queue_attributes()
        .queue_url(queue_url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default();
    let get = |name: aws_sdk_sqs::types::QueueAttributeName| {
        attrs
            .get(&name)
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0)
    };
    get(aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessages)
        + get(aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
}

/// Stores a webhook's event and queues its reference, as `webhook_archive::archive_and_queue`
/// does. A body that names no subject (a test's bare body) is stored under a new verification id,
/// so the reference still finds it.
pub async fn queue_webhook(
    store: &DynamoStore,
    queue: &impl ports::Queue,
    message: &domain::webhook::WebhookMessage,
) {
    use domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
    use ports::WebhookHistoryStore;
    let now = chrono::Utc::now();
    let event = StoredWebhookEvent::of(message, now).unwrap_or_else(|| StoredWebhookEvent {
        message: message.clone(),
        event_type: "test.event".into(),
        subject: WebhookSubject::Verification(uuid::Uuid::new_v4()),
        stored_at: now,
        redeliveries: 0,
    });
    assert!(store.put_webhook_event(&event).await.unwrap(), "stored");
    let reference = domain::webhook::QueuedWebhook::of(message);
    queue
        .send(&serde_json::to_string(&reference).unwrap())
        .await
        .unwrap();
}

/// The stored event a queued webhook message names (the queue carries a reference only).
pub async fn queued_event(env: &TestEnv, queued: &str) -> domain::webhook::WebhookMessage {
    use ports::WebhookHistoryStore;
    let reference: domain::webhook::QueuedWebhook = serde_json::from_str(queued).unwrap();
    let event = env.store.get_webhook_event(&reference.webhook_id).await;
    event
        .unwrap()
        .expect("the queued webhook's event is stored")
        .message
}

/// Verifies a delivery with the published `standardwebhooks` Python package (signature, id and
/// timestamp, as any receiver would).
pub fn verify_with_standard_webhooks(secret: &str, request: &Received) {
    use serde_json::json;
    let headers: serde_json::Map<String, Value> =
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
            .iter()
            .map(|h| (h.to_string(), json!(request.header(h).expect(h))))
            .collect();
    let script = "import json,sys\nfrom standardwebhooks import Webhook\nd=json.load(sys.stdin)\nWebhook(d['secret']).verify(d['body'], d['headers'])\nprint('verified')";
    let mut child = std::process::Command::new(devstack::moto::moto_python())
        .arg("-c")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            json!({"secret": secret, "body": request.body, "headers": headers})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "standardwebhooks refused: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "verified");
}

/// What a write carrying its own metering (`MeterStore::meter_and_*`) answered, for assertions:
/// what it returned once written (the account after the count, and the operation's answer);
/// `Declined` with the variant of the operation's refusal (nothing of it written, the request
/// counted alone); why the account refused (nothing written or counted).
#[derive(Debug, PartialEq)]
pub enum Metered<T> {
    Wrote(T),
    Declined(String),
    Refused(&'static str),
}

impl<T> Metered<T> {
    pub fn of<D, R: std::fmt::Debug>(
        out: Result<ports::Metered<D, R>, ports::StoreError>,
    ) -> Metered<(domain::Account, D)> {
        use domain::metering::MeterRefusal;
        match out {
            Ok(ports::Metered::Done(account, done)) => Metered::Wrote((account, done)),
            Ok(ports::Metered::Refused(_, why)) => {
                let why = format!("{why:?}");
                let variant = why.split(['(', ' ', '{']).next().unwrap_or_default();
                Metered::Declined(variant.to_string())
            }
            Ok(ports::Metered::AccountRefused(why)) => Metered::Refused(match why {
                MeterRefusal::UnknownAccount => "unknown_account",
                MeterRefusal::KeyRevoked => "key_revoked",
                MeterRefusal::NoApiAccess(_) => "no_api_access",
                MeterRefusal::SubscriptionInactive(_) => "subscription_inactive",
                MeterRefusal::LimitExceeded(_) => "limit_exceeded",
                MeterRefusal::BurstExceeded(..) => "burst_exceeded",
            }),
            Err(e) => panic!("store failed: {e}"),
        }
    }

    pub fn wrote(&self) -> bool {
        matches!(self, Metered::Wrote(_))
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Metered<U> {
        match self {
            Metered::Wrote(t) => Metered::Wrote(f(t)),
            Metered::Declined(why) => Metered::Declined(why),
            Metered::Refused(why) => Metered::Refused(why),
        }
    }
}

/// `Metered::Declined` of the refusal variant `why`.
pub fn declined<T>(why: &str) -> Metered<T> {
    Metered::Declined(why.to_string())
}

/// `target/test-artifacts`, where tests leave files worth a look (PDFs, screenshots).
pub fn artifacts_dir() -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("test-artifacts");
    std::fs::create_dir_all(&dir).expect("create target/test-artifacts");
    dir.canonicalize().unwrap_or(dir)
}

/// Writes the PDF to `path` and returns its text as poppler's `pdftotext` reads it, with runs of
/// white space collapsed.
pub fn pdf_text(pdf: &[u8], path: &std::path::Path) -> String {
    assert!(pdf.starts_with(b"%PDF-"), "a PDF");
    std::fs::write(path, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8"])
        .arg(path)
        .arg("-")
        .output()
        .expect("pdftotext runs (infra/install_poppler.sh installs poppler-utils)");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The landlord's report PDF of a verification, through the API.
pub async fn landlord_pdf(env: &TestEnv, key: &str, id: &str) -> Vec<u8> {
    let r = env
        .http
        .get(format!(
            "{}/api/v1/verify/report?verification_id={id}",
            env.base
        ))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap().to_vec()
}

/// An item's size as DynamoDB counts it toward its 400 KB limit: attribute names and values, a
/// list or map 3 bytes plus 1 per element (a number counted by its digits, an approximation that
/// only ever compares sizes).
pub fn item_size(
    item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

fn value_size(value: &aws_sdk_dynamodb::types::AttributeValue) -> usize {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    match value {
        V::S(s) | V::N(s) => s.len(),
        V::B(b) => b.as_ref().len(),
        V::Bool(_) | V::Null(_) => 1,
        V::Ss(all) | V::Ns(all) => all.iter().map(String::len).sum(),
        V::Bs(all) => all.iter().map(|b| b.as_ref().len()).sum(),
        V::L(all) => 3 + all.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        V::M(all) => {
            3 + all
                .iter()
                .map(|(k, v)| 1 + k.len() + value_size(v))
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// The stored item at `key`, read as it is stored (consistently).
pub async fn stored_item(
    env: &TestEnv,
    (pk, sk): (String, String),
) -> Option<std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>> {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    aws_sdk_dynamodb::Client::new(&env.sdk)
        .get_item()
        .table_name(&env.names.table)
        .key(service::table_schema::PK, V::S(pk))
        .key(service::table_schema::SK, V::S(sk))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
}

/// The size of the stored item at `key` (0 when there is none), read as it is stored.
pub async fn stored_item_size(env: &TestEnv, key: (String, String)) -> usize {
    stored_item(env, key).await.as_ref().map_or(0, item_size)
}

/// The `state` of a message's claim item (`sending`, `sent`, `rejected`), None when there is none.
pub async fn claim_state(
    env: &TestEnv,
    id: uuid::Uuid,
    message: &domain::reach::Message,
) -> Option<String> {
    let key = service::table_schema::keys::message_claim(id, &message.key());
    match stored_item(env, key).await?.get("state") {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(state)) => Some(state.clone()),
        _ => None,
    }
}

/// Puts uploads of verification `id` in the documents `bucket` (versioned), as the browser's
/// forms would: `d1` posted twice (two versions) and `d2` posted once, then deleted by key (its
/// version kept behind a delete marker). Unrecorded: `sdk` is the emulator's own.
pub async fn put_uploads(sdk: &aws_config::SdkConfig, bucket: &str, id: impl std::fmt::Display) {
    let s3 = adapters::s3::s3_client(sdk);
    for document in ["d1", "d1", "d2"] {
        s3.put_object()
            .bucket(bucket)
            .key(format!("uploads/{id}/{document}"))
            .body(b"%PDF-1.7 upload".to_vec().into())
            .send()
            .await
            .unwrap();
    }
    s3.delete_object()
        .bucket(bucket)
        .key(format!("uploads/{id}/d2"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        upload_keys(sdk, bucket, id).await.len(),
        4,
        "3 versions, 1 marker"
    );
}

/// The keys of every version and delete marker under verification `id`'s upload prefix in the
/// documents `bucket`, one per version or marker.
pub async fn upload_keys(
    sdk: &aws_config::SdkConfig,
    bucket: &str,
    id: impl std::fmt::Display,
) -> Vec<String> {
    let listed = adapters::s3::s3_client(sdk)
        .list_object_versions()
        .bucket(bucket)
        .prefix(format!("uploads/{id}/"))
        .send()
        .await
        .unwrap();
    let versions = listed.versions().iter().filter_map(|o| o.key());
    let markers = listed.delete_markers().iter().filter_map(|m| m.key());
    versions.chain(markers).map(String::from).collect()
}

/// Makes the completed verification's report one from documents (with none listed), as a report
/// finished with documents reads to its review: the fixtures' completed report is from a bank.
pub async fn report_from_documents(env: &TestEnv, id: &str) {
    let (pk, sk) = service::table_schema::keys::verification(id.parse().unwrap());
    aws_sdk_dynamodb::Client::new(&env.sdk)
        .update_item()
        .table_name(&env.names.table)
        .key("PK", aws_sdk_dynamodb::types::AttributeValue::S(pk))
        .key("SK", aws_sdk_dynamodb::types::AttributeValue::S(sk))
        .update_expression("SET income_report.documents = :none")
        .condition_expression("attribute_exists(income_report)")
        .expression_attribute_values(":none", aws_sdk_dynamodb::types::AttributeValue::L(vec![]))
        .send()
        .await
        .expect("a completed verification with its report");
}
