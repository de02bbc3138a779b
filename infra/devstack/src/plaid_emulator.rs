//! A Plaid on loopback with state, for `make dev` and the tests: Plaid Check on the new User
//! APIs as its reference documents it, and its signed webhooks.
//!
//! - `/user/create` makes a user and answers its `user_id`; `/link/token/create` makes a link
//!   token for that user and remembers the `webhook` it names.
//! - The stand-in Link script (`/link-initialize.js`, served only here) defines `Plaid.create`;
//!   its `open()` posts the link token to `/emulator/link/complete` and calls `onSuccess`.
//! - A completed Link's report is not ready (`PRODUCT_NOT_READY` from
//!   `/cra/check_report/income_insights/get`) until `ready` (or, with `auto_ready`, at once after
//!   Link); then the report is served and `CHECK_REPORT_READY` is sent to the webhook, signed
//!   with the emulator's own ES256 key. `fail` sends `CHECK_REPORT_FAILED` instead.
//! - `/webhook_verification_key/get` serves the public key of every `kid` it ever signed with;
//!   `rotate_key` starts a new one.
//! - `fail_next` answers one call of a path with a documented Plaid error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Income Insights as the Plaid Check reference shapes it (the adapters' fixture).
const INCOME_INSIGHTS: &str =
    include_str!("../../../shared/adapters/tests/fixtures/plaid_check/income_insights_get.json");
/// `PRODUCT_NOT_READY`, from Plaid's error reference (the adapters' fixture).
pub const PRODUCT_NOT_READY: &str = include_str!(
    "../../../shared/adapters/tests/fixtures/plaid_check/error_product_not_ready.json"
);

/// The stand-in for Plaid's Link script: the same `Plaid.create({token, onSuccess})` shape, and
/// an `open()` that completes Link at the emulator. A text/plain POST needs no CORS preflight.
const LINK_SCRIPT: &str = r#"window.Plaid = { create: function (config) { return { open: function () {
  fetch(window.PLAID_EMULATOR + "/emulator/link/complete", { method: "POST", headers: { "content-type": "text/plain" }, body: config.token })
    .then(function (r) { if (r.ok) { config.onSuccess("public-local-token", {}); } });
} }; } };
"#;

/// One signing key: its `kid`, its key pair, and when Plaid would say it expired.
struct SigningKey {
    kid: String,
    pair: EcdsaKeyPair,
    expired_at: Option<i64>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Report {
    /// Link not finished, or the report still being built.
    NotReady,
    Ready,
    Failed,
}

struct User {
    webhook: Option<String>,
    linked: bool,
    report: Report,
}

#[derive(Default)]
struct State {
    keys: Vec<SigningKey>,
    users: HashMap<String, User>,
    link_tokens: HashMap<String, String>,
    fail_next: HashMap<String, (u16, String)>,
    calls: Vec<String>,
    serial: u64,
    auto_ready: bool,
}

/// The emulator; clones share it.
#[derive(Clone)]
pub struct PlaidEmulator {
    pub base_url: String,
    state: Arc<Mutex<State>>,
    http: reqwest::Client,
}

/// How a test signs a webhook: as Plaid does, or with one thing wrong.
#[derive(Clone, Debug, Default)]
pub struct Signing {
    /// The JWT's `alg` (Plaid's: `ES256`).
    pub alg: Option<String>,
    /// The `kid` named (the current key's by default).
    pub kid: Option<String>,
    /// Seconds to take off `iat` (a stale webhook).
    pub age_seconds: i64,
    /// Sign with a key the emulator never served, under the current `kid`.
    pub foreign_key: bool,
}

fn new_pair() -> (EcdsaKeyPair, Vec<u8>) {
    let rng = SystemRandom::new();
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("a P-256 key");
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
        .expect("its key pair");
    let public = pair.public_key().as_ref().to_vec();
    (pair, public)
}

impl PlaidEmulator {
    /// Listens on a free loopback port. `auto_ready`: reports become ready (and their webhook
    /// is sent) right after Link completes, as `make dev` wants; tests say when.
    pub async fn start(auto_ready: bool) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let emulator = PlaidEmulator {
            base_url,
            state: Arc::new(Mutex::new(State {
                auto_ready,
                ..State::default()
            })),
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("an HTTP client"),
        };
        emulator.rotate_key();
        serve_each(listener, emulator.clone(), Self::serve);
        Ok(emulator)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("emulator state")
    }

    /// A new signing key; the old ones stay served (Plaid's rotation), marked expired.
    pub fn rotate_key(&self) -> String {
        let mut state = self.lock();
        state.serial += 1;
        let kid = format!("emu-key-{}", state.serial);
        let now = chrono::Utc::now().timestamp();
        for old in state.keys.iter_mut() {
            old.expired_at.get_or_insert(now + 3600);
        }
        let (pair, _) = new_pair();
        state.keys.push(SigningKey {
            kid: kid.clone(),
            pair,
            expired_at: None,
        });
        kid
    }

    /// The `kid` signing now.
    pub fn current_kid(&self) -> String {
        self.lock().keys.last().expect("a key").kid.clone()
    }

    /// The `Plaid-Verification` JWT for `body`, as Plaid makes it unless `how` says otherwise.
    pub fn sign(&self, body: &[u8], how: &Signing) -> String {
        let state = self.lock();
        let current = state.keys.last().expect("a key");
        let header = json!({
            "alg": how.alg.as_deref().unwrap_or("ES256"),
            "kid": how.kid.as_deref().unwrap_or(&current.kid),
            "typ": "JWT",
        });
        let claims = json!({
            "iat": chrono::Utc::now().timestamp() - how.age_seconds,
            "request_body_sha256": domain::secrets::sha256_hex(body),
        });
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let rng = SystemRandom::new();
        let foreign;
        let pair = if how.foreign_key {
            foreign = new_pair().0;
            &foreign
        } else {
            &current.pair
        };
        let signature = pair.sign(&rng, input.as_bytes()).expect("a signature");
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
    }

    /// The body of a `CHECK_REPORT` webhook for `user_id`.
    pub fn report_webhook_body(user_id: &str, report: Report) -> String {
        let code = match report {
            Report::Failed => "CHECK_REPORT_FAILED",
            _ => "CHECK_REPORT_READY",
        };
        json!({
            "webhook_type": "CHECK_REPORT",
            "webhook_code": code,
            "user_id": user_id,
            "successful_products": ["cra_base_report", "cra_income_insights"],
            "environment": "sandbox",
        })
        .to_string()
    }

    /// Posts `body` to `url` with `signature` as `Plaid-Verification`; the answer's status.
    pub async fn post_webhook(&self, url: &str, body: &str, signature: &str) -> Option<u16> {
        let sent = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("plaid-verification", signature)
            .body(body.to_string())
            .send()
            .await;
        sent.ok().map(|r| r.status().as_u16())
    }

    /// The report of `user_id` is built (`Ready`) or could not be (`Failed`): its webhook goes to
    /// the URL its link token named, signed. The stack's answer, if it was reached.
    pub async fn settle(&self, user_id: &str, report: Report) -> Option<u16> {
        let webhook = {
            let mut state = self.lock();
            let user = state.users.get_mut(user_id)?;
            user.report = report;
            user.webhook.clone()?
        };
        let body = Self::report_webhook_body(user_id, report);
        let signature = self.sign(body.as_bytes(), &Signing::default());
        let status = self.post_webhook(&webhook, &body, &signature).await;
        tracing::info!(target: "plaid_emulator", webhook_code = if report == Report::Failed { "CHECK_REPORT_FAILED" } else { "CHECK_REPORT_READY" }, ?status, "emulator sent a signed webhook");
        status
    }

    /// Sets the report of `user_id` without sending a webhook (a lost one, or a test sending
    /// its own).
    pub fn mark(&self, user_id: &str, report: Report) {
        if let Some(user) = self.lock().users.get_mut(user_id) {
            user.report = report;
        }
    }

    /// Completes Link for `link_token` (what the stand-in script does); the user's id.
    pub fn complete_link(&self, link_token: &str) -> Option<String> {
        let mut state = self.lock();
        let user_id = state.link_tokens.get(link_token)?.clone();
        state.users.get_mut(&user_id)?.linked = true;
        Some(user_id)
    }

    /// The users made so far, oldest first.
    pub fn user_ids(&self) -> Vec<String> {
        let state = self.lock();
        let mut ids: Vec<String> = state.users.keys().cloned().collect();
        ids.sort_by_key(|id| {
            id.trim_start_matches("usr_emu_")
                .parse::<u64>()
                .unwrap_or(0)
        });
        ids
    }

    /// The next call of `path` gets `status` and the documented error `body`.
    pub fn fail_next(&self, path: &str, status: u16, body: &str) {
        self.lock()
            .fail_next
            .insert(path.to_string(), (status, body.to_string()));
    }

    /// How often `path` was called.
    pub fn count(&self, path: &str) -> usize {
        self.lock().calls.iter().filter(|c| *c == path).count()
    }

    /// How the service reaches the emulator: its URL and made-up credentials (it checks none).
    pub fn config(&self) -> adapters::plaid::PlaidConfig {
        adapters::plaid::PlaidConfig {
            base_url: self.base_url.clone(),
            client_id: "emulator-client".into(),
            secret: "emulator-secret".into(),
            timeout: std::time::Duration::from_secs(5),
        }
    }

    /// The verifier of the emulator's webhooks, as `provider-webhooks` builds Plaid's.
    pub fn verifier(&self) -> adapters::plaid::PlaidWebhookVerifier {
        adapters::plaid::PlaidWebhookVerifier::new(self.config()).expect("a loopback URL")
    }

    /// `provider-webhooks`' verifiers with Plaid's alone: this emulator's.
    pub fn verifiers(&self) -> adapters::wiring::WebhookVerifiers {
        adapters::wiring::WebhookVerifiers {
            plaid: Some(self.verifier()),
            argyle: None,
        }
    }

    /// Plaid Check at the emulator, naming the stack at `base` as its webhook and opening Link
    /// with the stand-in script.
    pub fn provider(&self, base: &str) -> adapters::plaid::check::PlaidCheckIncomeProvider {
        adapters::plaid::check::PlaidCheckIncomeProvider::new(self.config())
            .expect("a loopback URL")
            .with_webhook_url(adapters::wiring::plaid_webhook_url(Some(base)))
            .with_link_script(self.link_script_url())
    }

    /// The URL of the stand-in Link script.
    pub fn link_script_url(&self) -> String {
        format!("{}/link-initialize.js", self.base_url)
    }

    fn answer(&self, path: &str, body: &Value) -> (u16, String) {
        let mut state = self.lock();
        state.calls.push(path.to_string());
        if let Some(failure) = state.fail_next.remove(path) {
            return failure;
        }
        let text = |key: &str| body[key].as_str().unwrap_or_default().to_string();
        match path {
            "/user/create" => {
                state.serial += 1;
                let user_id = format!("usr_emu_{}", state.serial);
                let user = User {
                    webhook: None,
                    linked: false,
                    report: Report::NotReady,
                };
                state.users.insert(user_id.clone(), user);
                (200, json!({"user_id": user_id, "request_id": "emu"}).to_string())
            }
            "/link/token/create" => {
                let user_id = text("user_id");
                let Some(user) = state.users.get_mut(&user_id) else {
                    return invalid_input("INVALID_USER_ID");
                };
                user.webhook = body["webhook"].as_str().map(str::to_string);
                state.serial += 1;
                let token = format!("link-local-{}", state.serial);
                state.link_tokens.insert(token.clone(), user_id);
                (200, json!({"link_token": token, "request_id": "emu"}).to_string())
            }
            "/cra/check_report/income_insights/get" => match state.users.get(&text("user_id")) {
                Some(user) if user.linked && user.report == Report::Ready => {
                    (200, INCOME_INSIGHTS.to_string())
                }
                Some(_) => (400, PRODUCT_NOT_READY.to_string()),
                None => invalid_input("INVALID_USER_ID"),
            },
            "/user/remove" => match state.users.remove(&text("user_id")) {
                Some(_) => (200, json!({"request_id": "emu"}).to_string()),
                None => invalid_input("INVALID_USER_ID"),
            },
            "/webhook_verification_key/get" => {
                let kid = text("key_id");
                let Some(key) = state.keys.iter().find(|k| k.kid == kid) else {
                    return invalid_input("INVALID_WEBHOOK_VERIFICATION_KEY_ID");
                };
                let point = key.pair.public_key().as_ref();
                let jwk = json!({
                    "alg": "ES256", "crv": "P-256", "kty": "EC", "use": "sig", "kid": key.kid,
                    "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                    "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
                    "created_at": 1_700_000_000, "expired_at": key.expired_at,
                });
                (200, json!({"key": jwk, "request_id": "emu"}).to_string())
            }
            _ => (404, json!({"error_type": "INVALID_REQUEST", "error_code": "NOT_FOUND", "request_id": "emu"}).to_string()),
        }
    }

    /// One connection, one request.
    async fn serve(self, mut stream: TcpStream) {
        let Some((method, target, body)) = read_request(&mut stream).await else {
            return;
        };
        let path = target.split('?').next().unwrap_or_default().to_string();
        let (status, content_type, text) = match (method.as_str(), path.as_str()) {
            ("GET", "/link-initialize.js") => (
                200,
                "application/javascript",
                format!(
                    "window.PLAID_EMULATOR = {:?};\n{LINK_SCRIPT}",
                    self.base_url
                ),
            ),
            ("POST", "/emulator/link/complete") => {
                let token = String::from_utf8_lossy(&body).trim().to_string();
                match self.complete_link(&token) {
                    Some(user_id) => {
                        if self.lock().auto_ready {
                            let emulator = self.clone();
                            tokio::spawn(async move {
                                emulator.settle(&user_id, Report::Ready).await;
                            });
                        }
                        (200, "application/json", "{}".to_string())
                    }
                    None => (
                        400,
                        "application/json",
                        invalid_input("INVALID_LINK_TOKEN").1,
                    ),
                }
            }
            ("POST", _) => {
                let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let (status, text) = self.answer(&path, &value);
                (status, "application/json", text)
            }
            _ => (405, "text/plain", String::new()),
        };
        write_response(&mut stream, status, content_type, &text).await;
    }
}

/// Plaid's `INVALID_INPUT` error body with `code`.
fn invalid_input(code: &str) -> (u16, String) {
    let body = json!({"error_type": "INVALID_INPUT", "error_code": code, "error_message": "", "display_message": null, "request_id": "emu"});
    (400, body.to_string())
}

/// Answers every connection `listener` accepts with `serve`, on its own task.
pub(crate) fn serve_each<E, Fut>(
    listener: TcpListener,
    emulator: E,
    serve: impl Fn(E, TcpStream) -> Fut + Send + 'static,
) where
    E: Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(emulator.clone(), stream));
        }
    });
}

/// Writes one answer and closes the connection (the emulators answer one request each).
pub(crate) async fn write_response(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    text: &str,
) {
    let response = format!(
        "HTTP/1.1 {status} Status\r\nContent-Type: {content_type}\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// One request: its method, its target (path and query), its body.
pub(crate) async fn read_request(stream: &mut TcpStream) -> Option<(String, String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let length: usize = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    Some((method, path, buf[head_end..head_end + length].to_vec()))
}
