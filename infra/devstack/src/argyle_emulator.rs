//! An Argyle on loopback with state, for the tests: the calls of the payroll flow on API v2,
//! answered with the documented shapes (the adapters' fixtures, each citing its page in
//! `shared/adapters/tests/fixtures/argyle/README.md`).
//!
//! - `POST /v2/users` makes a user; `POST /v2/user-tokens` answers a token for a known user;
//!   `DELETE /v2/users/{id}` removes one (404 once gone).
//! - A user's payroll accounts move as Argyle's do (`Stage`): none until Link, `connecting`,
//!   then `connected` with pay stubs and gigs `in_progress`, then pay stubs `synced` while gigs
//!   are still read, then all `synced` (or `sync_failed`). GigAndGo's account is a gig
//!   platform: it alone has `availability.gigs`. The test says when, with `set`.
//! - `GET /v2/accounts`, `/v2/employments`, `/v2/identities`, `/v2/paystubs` (two pages linked
//!   by `next`) and `/v2/gigs` answer the user's records; `GET /v2/users/{id}` the user, with
//!   the `external_id` it was made with.
//! - The stand-in Link script (`/argyle.web.v5.js`, served only here) defines `Argyle.create`;
//!   its `open()` posts the user token to `/emulator/link/complete`, which moves the user's
//!   accounts to `connecting`, then calls `onAccountConnected` and `onClose`. With `auto_sync`
//!   (`make dev`) the accounts then sync at once and the webhook is sent until answered 2xx.
//! - Its webhooks are signed as Argyle signs them (https://docs.argyle.com/api-guide/webhooks:
//!   `X-Argyle-Signature`, the hex HMAC-SHA512 of the body under the subscription's secret).
//!   `settle` moves a user's accounts and sends what Argyle would: `paystubs.fully_synced`
//!   (https://docs.argyle.com/api-reference/paystubs-webhooks) once the pay stubs are in,
//!   `gigs.fully_synced` (https://docs.argyle.com/api-reference/gigs-webhooks) once the gigs
//!   are in after them, `accounts.updated`
//!   (https://docs.argyle.com/api-reference/accounts-webhooks) for a failed sync.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

use crate::plaid_emulator::{read_request, serve_each, write_response};
use adapters::argyle::ArgyleWebhookVerifier;

const ACCOUNTS: &str = include_str!("../../../shared/adapters/tests/fixtures/argyle/accounts.json");
const EMPLOYMENTS: &str =
    include_str!("../../../shared/adapters/tests/fixtures/argyle/employments.json");
const IDENTITIES: &str =
    include_str!("../../../shared/adapters/tests/fixtures/argyle/identities.json");
const PAYSTUBS_1: &str =
    include_str!("../../../shared/adapters/tests/fixtures/argyle/paystubs_page1.json");
const PAYSTUBS_2: &str =
    include_str!("../../../shared/adapters/tests/fixtures/argyle/paystubs_page2.json");
const GIGS: &str = include_str!("../../../shared/adapters/tests/fixtures/argyle/gigs.json");
const NOT_FOUND: &str =
    include_str!("../../../shared/adapters/tests/fixtures/argyle/error_not_found.json");
/// The `secret` of the stack's subscription to the emulator's webhooks.
pub const WEBHOOK_SECRET: &str = "emulator-webhook-secret";
/// The stand-in for Argyle Link's script: the same `Argyle.create({userToken,
/// onAccountConnected, onClose})` shape, and an `open()` that connects at the emulator. A
/// text/plain POST needs no CORS preflight.
const LINK_SCRIPT: &str = r#"window.Argyle = { create: function (config) { return { open: function () {
  fetch(window.ARGYLE_EMULATOR + "/emulator/link/complete", { method: "POST", headers: { "content-type": "text/plain" }, body: config.userToken })
    .then(function (r) { if (r.ok) { if (config.onAccountConnected) { config.onAccountConnected({}); } if (config.onClose) { config.onClose(); } } });
} }; } };
"#;
/// The prefix of the user tokens the emulator makes; the user id follows.
const TOKEN_PREFIX: &str = "emu-token-";
/// The cursor of the second page of pay stubs.
const CURSOR: &str = "cursor=ZXhhbXBsZV9jdXJzb3I";

/// Where a user's payroll accounts stand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stage {
    /// Link not finished: no account.
    NoAccount,
    /// The tenant signed in; Argyle is authenticating.
    Connecting,
    /// Connected; pay stubs and gigs still being read.
    Syncing,
    /// Connected; every pay stub read, the gigs still being read.
    GigsSyncing,
    /// Connected; the pay stubs could not be read.
    SyncFailed,
    /// Connected and every pay stub read.
    Synced,
}

#[derive(Default)]
struct State {
    users: HashMap<String, Stage>,
    /// Each user's `external_id`, as made.
    external_ids: HashMap<String, String>,
    calls: Vec<String>,
    serial: u64,
    /// Where the stack's subscription receives the webhooks.
    webhook_url: Option<String>,
    /// Accounts sync at once after Link (`make dev`); tests say when.
    auto_sync: bool,
}

/// The emulator; clones share it.
#[derive(Clone)]
pub struct ArgyleEmulator {
    pub base_url: String,
    state: Arc<Mutex<State>>,
}

impl ArgyleEmulator {
    /// Listens on a free loopback port. `auto_sync`: a user's accounts sync (and the webhook is
    /// sent) right after Link, as `make dev` wants; tests say when.
    pub async fn start(auto_sync: bool) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let emulator = ArgyleEmulator {
            base_url: format!("http://{}", listener.local_addr()?),
            state: Arc::new(Mutex::new(State {
                auto_sync,
                ..State::default()
            })),
        };
        serve_each(listener, emulator.clone(), Self::serve);
        Ok(emulator)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("emulator state")
    }

    /// Moves `user`'s accounts to `stage`.
    pub fn set(&self, user: &str, stage: Stage) {
        if let Some(s) = self.lock().users.get_mut(user) {
            *s = stage;
        }
    }

    /// The stack's subscription: webhooks go to `url`.
    pub fn subscribe(&self, url: &str) {
        self.lock().webhook_url = Some(url.to_string());
    }

    /// The body of Argyle's `event` for `user`'s account.
    pub fn webhook_body(event: &str, user: &str) -> String {
        json!({
            "event": event,
            "name": "tenant-income-verification",
            "data": {"account": "0187c66e-e7e5-811c-b006-2232f00f426a", "user": user},
        })
        .to_string()
    }

    /// Posts `body` to `url` with `signature` as `X-Argyle-Signature` (none when empty); the
    /// answer's status, if the stack was reached.
    pub async fn post_webhook(url: &str, body: &str, signature: &str) -> Option<u16> {
        let client = reqwest::Client::builder().no_proxy().build().ok()?;
        let mut request = (client.post(url))
            .header("content-type", "application/json")
            .body(body.to_string());
        if !signature.is_empty() {
            request = request.header(adapters::argyle::SIGNATURE_HEADER, signature);
        }
        Some(request.send().await.ok()?.status().as_u16())
    }

    /// Moves `user`'s accounts to `stage` and sends the subscription the webhook Argyle would,
    /// signed: the stack's answer, if there was a webhook and it was reached.
    pub async fn settle(&self, user: &str, stage: Stage) -> Option<u16> {
        let before = self.lock().users.get(user).copied();
        self.set(user, stage);
        let event = match stage {
            Stage::Synced if before == Some(Stage::GigsSyncing) => "gigs.fully_synced",
            Stage::Synced | Stage::GigsSyncing => "paystubs.fully_synced",
            Stage::SyncFailed => "accounts.updated",
            _ => return None,
        };
        self.notify(user, event).await
    }

    /// Sends the subscription Argyle's `event` for `user`, signed: the stack's answer.
    async fn notify(&self, user: &str, event: &str) -> Option<u16> {
        let url = self.lock().webhook_url.clone()?;
        let body = Self::webhook_body(event, user);
        let signature = ArgyleWebhookVerifier::sign(WEBHOOK_SECRET, body.as_bytes());
        let status = Self::post_webhook(&url, &body, &signature).await;
        tracing::info!(target: "argyle_emulator", event, ?status, "emulator sent a signed webhook");
        status
    }

    /// Link connected the accounts of the user `user_token` was made for: they are
    /// `connecting`. The user's id, if the token is one of ours.
    pub fn complete_link(&self, user_token: &str) -> Option<String> {
        let user = user_token.trim().strip_prefix(TOKEN_PREFIX)?.to_string();
        let mut state = self.lock();
        let stage = state.users.get_mut(&user)?;
        if *stage == Stage::NoAccount {
            *stage = Stage::Connecting;
        }
        Some(user)
    }

    /// `make dev`: the accounts sync, and the webhook goes until the stack answers 2xx (it
    /// answers 503 while the page has not yet recorded the wait), as Argyle retries.
    async fn sync_and_notify(self, user: String) {
        self.set(&user, Stage::Synced);
        for _ in 0..30 {
            let status = self.notify(&user, "gigs.fully_synced").await;
            if status.is_some_and(|s| (200..300).contains(&s)) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    }

    /// The URL of the stand-in Link script.
    pub fn link_script_url(&self) -> String {
        format!("{}/argyle.web.v5.js", self.base_url)
    }

    /// The verifier of the emulator's webhooks, as `provider-webhooks` builds Argyle's.
    pub fn verifier(&self) -> ArgyleWebhookVerifier {
        ArgyleWebhookVerifier::new(self.config()).expect("a loopback URL and a webhook secret")
    }

    /// The users made so far.
    pub fn user_ids(&self) -> Vec<String> {
        self.lock().users.keys().cloned().collect()
    }

    /// How often `path` was called (the path without its query).
    pub fn count(&self, path: &str) -> usize {
        self.lock().calls.iter().filter(|c| *c == path).count()
    }

    /// How the service reaches the emulator: its URL and made-up keys (it checks none).
    pub fn config(&self) -> adapters::argyle::ArgyleConfig {
        adapters::argyle::ArgyleConfig {
            base_url: self.base_url.clone(),
            api_key_id: "emulator-key-id".into(),
            api_key_secret: "emulator-key-secret".into(),
            webhook_secret: Some(WEBHOOK_SECRET.into()),
            timeout: std::time::Duration::from_secs(5),
        }
    }

    /// Argyle at the emulator, opening Link with the stand-in script.
    pub fn provider(&self) -> adapters::argyle::ArgyleIncomeProvider {
        adapters::argyle::ArgyleIncomeProvider::new(self.config())
            .expect("a loopback URL")
            .with_link_script(self.link_script_url())
    }

    fn answer(&self, method: &str, target: &str, body: &Value) -> (u16, String) {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let query_user = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("user="))
            .unwrap_or_default();
        let mut state = self.lock();
        state.calls.push(path.to_string());
        let known = |state: &State, user: &str| state.users.get(user).copied();
        match (method, path) {
            ("POST", "/v2/users") => {
                state.serial += 1;
                let id = format!("0187c66e-0000-4000-8000-{:012x}", state.serial);
                state.users.insert(id.clone(), Stage::NoAccount);
                let external_id = body["external_id"].as_str().unwrap_or_default();
                (state.external_ids).insert(id.clone(), external_id.to_string());
                let token = format!("emu-user-token-{}", state.serial);
                (201, json!({"id": id, "user_token": token}).to_string())
            }
            ("POST", "/v2/user-tokens") => {
                let user = body["user"].as_str().unwrap_or_default();
                match known(&state, user) {
                    Some(_) => (
                        200,
                        json!({"user_token": format!("{TOKEN_PREFIX}{user}")}).to_string(),
                    ),
                    None => (404, NOT_FOUND.to_string()),
                }
            }
            ("GET", p) if p.starts_with("/v2/users/") => {
                let user = p.trim_start_matches("/v2/users/");
                match state
                    .external_ids
                    .get(user)
                    .filter(|_| state.users.contains_key(user))
                {
                    Some(external_id) => (
                        200,
                        json!({"id": user, "created_at": "2026-01-30T22:25:38.971Z",
                               "items_connected": [], "employers_connected": [],
                               "external_metadata": null, "external_id": external_id})
                        .to_string(),
                    ),
                    None => (404, NOT_FOUND.to_string()),
                }
            }
            ("DELETE", p) if p.starts_with("/v2/users/") => {
                let user = p.trim_start_matches("/v2/users/");
                match state.users.remove(user) {
                    Some(_) => (204, String::new()),
                    None => (404, NOT_FOUND.to_string()),
                }
            }
            ("GET", "/v2/accounts") => match known(&state, query_user) {
                Some(stage) => (200, accounts(stage)),
                None => (
                    200,
                    json!({"next": null, "previous": null, "results": []}).to_string(),
                ),
            },
            ("GET", "/v2/employments") => (200, EMPLOYMENTS.to_string()),
            ("GET", "/v2/identities") => (200, IDENTITIES.to_string()),
            ("GET", "/v2/gigs") => (200, GIGS.to_string()),
            ("GET", "/v2/paystubs") if query.contains(CURSOR) => (200, PAYSTUBS_2.to_string()),
            ("GET", "/v2/paystubs") => {
                let next = format!("{}/v2/paystubs?{CURSOR}", self.base_url);
                (200, PAYSTUBS_1.replace("NEXT_PAGE_URL", &next))
            }
            _ => (404, NOT_FOUND.to_string()),
        }
    }

    /// One connection, one request.
    async fn serve(self, mut stream: TcpStream) {
        let Some((method, target, body)) = read_request(&mut stream).await else {
            return;
        };
        let (status, content_type, text) = match (method.as_str(), target.as_str()) {
            ("GET", "/argyle.web.v5.js") => (
                200,
                "application/javascript",
                format!(
                    "window.ARGYLE_EMULATOR = {:?};\n{LINK_SCRIPT}",
                    self.base_url
                ),
            ),
            ("POST", "/emulator/link/complete") => {
                let token = String::from_utf8_lossy(&body).to_string();
                match self.complete_link(&token) {
                    Some(user) => {
                        if self.lock().auto_sync {
                            tokio::spawn(self.clone().sync_and_notify(user));
                        }
                        (200, "application/json", "{}".to_string())
                    }
                    None => (404, "application/json", NOT_FOUND.to_string()),
                }
            }
            _ => {
                let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let (status, text) = self.answer(&method, &target, &value);
                (status, "application/json", text)
            }
        };
        write_response(&mut stream, status, content_type, &text).await;
    }
}

/// GigAndGo's account in the accounts fixture: a gig platform here.
const GIG_ACCOUNT: usize = 2;

/// The documented accounts, every one at `stage`.
fn accounts(stage: Stage) -> String {
    let mut page: Value = serde_json::from_str(ACCOUNTS).expect("the accounts fixture");
    let results = page["results"].as_array_mut().expect("results");
    if stage == Stage::NoAccount {
        results.clear();
    }
    for (i, account) in results.iter_mut().enumerate() {
        let (connection, stubs, gigs) = match stage {
            Stage::NoAccount | Stage::Connecting => ("connecting", None, None),
            Stage::Syncing => ("connected", Some("in_progress"), Some("in_progress")),
            Stage::GigsSyncing => ("connected", Some("synced"), Some("in_progress")),
            Stage::SyncFailed => ("connected", Some("sync_failed"), Some("sync_failed")),
            Stage::Synced => ("connected", Some("synced"), Some("synced")),
        };
        account["connection"]["status"] = connection.into();
        match (stubs, gigs) {
            (Some(stubs), Some(gigs)) => {
                account["availability"]["paystubs"]["status"] = stubs.into();
                if i == GIG_ACCOUNT {
                    account["availability"]["gigs"] = json!({"status": gigs});
                }
            }
            _ => account["availability"] = Value::Null,
        }
    }
    page.to_string()
}
