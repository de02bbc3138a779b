//! The Plaid adapter against recorded Plaid answers (tests/fixtures/plaid/, written from Plaid's
//! API reference), served by a tiny HTTP/1.1 server on 127.0.0.1 that also records what the
//! adapter sends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use shared::adapters::plaid::{PlaidConfig, PlaidConfigError, PlaidIncomeProvider};
use shared::domain::Verification;
use shared::domain::income::{AmountsBasis, PayFrequency, VerificationMethod};
use shared::domain::report::build_report;
use shared::domain::stability::{RegularityLabel, TrendLabel};
use shared::ports::{ConnectStep, IncomeProvider, ProviderError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const CLIENT_ID: &str = "5f7c1a2b3c4d5e6f7a8b9c0d";
const SECRET: &str = "b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8";
const USER_TOKEN: &str = "user-sandbox-b0e2c4ee-a763-4df5-bfe9-46a46bce993d";
const LINK_TOKEN: &str = "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176";
const VERIFICATION_ID: &str = "0b7f9a52-3c1e-4d8e-9f61-2a4c5e7d9b13";
const TENANT_EMAIL: &str = "jane.tenant@example.com";

const USER_CREATE: &str = include_str!("../fixtures/plaid/user_create.json");
const LINK_TOKEN_CREATE: &str = include_str!("../fixtures/plaid/link_token_create.json");
const BANK_INCOME: &str = include_str!("../fixtures/plaid/bank_income_get.json");
const BANK_INCOME_UNREADABLE: &str =
    include_str!("../fixtures/plaid/bank_income_get_unavailable_data.json");
const PRODUCT_NOT_READY: &str = include_str!("../fixtures/plaid/error_product_not_ready.json");
const INVALID_API_KEYS: &str = include_str!("../fixtures/plaid/error_invalid_api_keys.json");
const ITEM_LOGIN_REQUIRED: &str = include_str!("../fixtures/plaid/error_item_login_required.json");
const INTERNAL_SERVER_ERROR: &str =
    include_str!("../fixtures/plaid/error_internal_server_error.json");
const USER_REMOVE: &str = include_str!("../fixtures/plaid/user_remove.json");

// ---- A fake Plaid ------------------------------------------------------------------------------

#[derive(Clone)]
enum Reply {
    /// Status and body, served as JSON.
    Body(u16, String),
    /// A redirect elsewhere on the same server (which must not be followed).
    Redirect(&'static str),
    /// Accepts the request and never answers.
    Hang,
    /// The first request to the path gets the first reply, every later one the second.
    Then(Box<Reply>, Box<Reply>),
}

fn ok(body: &str) -> Reply {
    Reply::Body(200, body.to_string())
}

#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: Value,
}

struct FakePlaid {
    base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakePlaid {
    /// Serves `routes` (path -> reply); unknown paths get a Plaid-style 404.
    async fn start(routes: Vec<(&'static str, Reply)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let routes: Arc<HashMap<&'static str, Reply>> = Arc::new(routes.into_iter().collect());
        let recorded = requests.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, routes.clone(), recorded.clone()));
            }
        });
        FakePlaid { base_url, requests }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    fn provider(&self) -> PlaidIncomeProvider {
        self.provider_with_timeout(Duration::from_secs(5))
    }

    fn provider_with_timeout(&self, timeout: Duration) -> PlaidIncomeProvider {
        PlaidIncomeProvider::new(PlaidConfig {
            base_url: self.base_url.clone(),
            client_id: CLIENT_ID.into(),
            secret: SECRET.into(),
            timeout,
        })
        .unwrap()
    }
}

/// One connection, one request (answers close the connection).
async fn serve(
    mut stream: TcpStream,
    routes: Arc<HashMap<&'static str, Reply>>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_string();
    let path = request_line.next().unwrap_or_default().to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    let calls = {
        let mut recorded = recorded.lock().unwrap();
        recorded.push(Recorded {
            method,
            path: path.clone(),
            headers,
            body,
        });
        recorded.iter().filter(|r| r.path == path).count()
    };

    let reply = routes.get(path.as_str()).cloned().unwrap_or_else(|| {
        Reply::Body(
            404,
            r#"{"error_type":"INVALID_REQUEST","error_code":"NOT_FOUND","request_id":"nf"}"#.into(),
        )
    });
    let reply = match reply {
        Reply::Then(first, later) => *(if calls == 1 { first } else { later }),
        other => other,
    };
    let response = match reply {
        Reply::Then(..) => unreachable!("resolved above"),
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            return;
        }
        Reply::Redirect(location) => format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        Reply::Body(status, body) => format!(
            "HTTP/1.1 {status} Status\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

// ---- Helpers -----------------------------------------------------------------------------------

fn verification(provider_user: Option<&str>) -> Verification {
    let mut v = json!({
        "verification_id": VERIFICATION_ID,
        "account_id": "acct_landlord_1",
        "mode": "live",
        "status": "in_progress",
        "tenant_email": TENANT_EMAIL,
        "tenant_name": "Jane Tenant",
        "monthly_rent": 1800.0,
        "created_at": "2026-11-20T10:00:00.000Z",
        "expires_at": "2026-11-27T10:00:00.000Z",
    });
    if let Some(user) = provider_user {
        v["provider_user"] = json!(user);
    }
    serde_json::from_value(v).unwrap()
}

/// No error text may carry the secret, a token or an e-mail address.
fn assert_clean(error: &ProviderError) {
    for text in [error.to_string(), format!("{error:?}")] {
        for forbidden in [SECRET, USER_TOKEN, LINK_TOKEN, "@", CLIENT_ID] {
            assert!(!text.contains(forbidden), "{text:?} contains {forbidden:?}");
        }
    }
}

fn unavailable(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    match result {
        Err(e @ ProviderError::Unavailable(_)) => {
            assert_clean(&e);
            e.to_string()
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

fn rejected(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    match result {
        Err(e @ ProviderError::Rejected(_)) => {
            assert_clean(&e);
            e.to_string()
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

fn assert_authenticated(request: &Recorded, path: &str) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, path);
    assert_eq!(request.headers["content-type"], "application/json");
    assert_eq!(request.headers["plaid-version"], "2020-09-14");
    assert_eq!(request.body["client_id"], CLIENT_ID);
    assert_eq!(request.body["secret"], SECRET);
    // Nothing about the tenant goes to Plaid but the verification id.
    assert!(!request.body.to_string().contains('@'));
}

mod config;
mod errors;
mod fetch_income;
mod link_and_user;
