//! A tiny HTTP/1.1 server on 127.0.0.1 standing in for an income provider's API (Plaid, Argyle):
//! it serves recorded answers by path and records what the adapter sends. A route keyed by a
//! whole target (`/v2/paystubs?cursor=p2`) wins over one keyed by the path alone. Also the checks
//! every adapter's errors share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use domain::Verification;
use ports::ProviderError;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Clone)]
pub enum Reply {
    /// Status and body, served as JSON.
    Body(u16, String),
    /// A redirect elsewhere on the same server (which must not be followed).
    Redirect(&'static str),
    /// Accepts the request and never answers.
    Hang,
    /// The first request to the route gets the first reply, every later one the second.
    Then(Box<Reply>, Box<Reply>),
}

pub fn ok(body: &str) -> Reply {
    Reply::Body(200, body.to_string())
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// The request target: path and query.
    pub path: String,
    pub headers: HashMap<String, String>,
    /// The JSON body; null without one.
    pub body: Value,
}

type Routes = Arc<Mutex<HashMap<String, Reply>>>;

pub struct FakeProvider {
    pub base_url: String,
    routes: Routes,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakeProvider {
    /// Listens at once; routes may be added before or after (`route`).
    pub async fn start(routes: Vec<(&str, Reply)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let routes: Routes = Arc::new(Mutex::new(
            routes
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        ));
        let (recorded, served) = (requests.clone(), routes.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, served.clone(), recorded.clone()));
            }
        });
        FakeProvider {
            base_url,
            routes,
            requests,
        }
    }

    pub fn route(&self, key: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(key.to_string(), reply);
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

/// One connection, one request (answers close the connection).
async fn serve(mut stream: TcpStream, routes: Routes, recorded: Arc<Mutex<Vec<Recorded>>>) {
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
    let target = request_line.next().unwrap_or_default().to_string();
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
    let path = target.split('?').next().unwrap_or_default().to_string();
    let (key, reply) = {
        let routes = routes.lock().unwrap();
        match routes.get(&target) {
            Some(reply) => (target.clone(), Some(reply.clone())),
            None => (path.clone(), routes.get(&path).cloned()),
        }
    };
    let calls = {
        let mut recorded = recorded.lock().unwrap();
        recorded.push(Recorded {
            method,
            path: target,
            headers,
            body,
        });
        recorded
            .iter()
            .filter(|r| r.path == key || r.path.split('?').next() == Some(key.as_str()))
            .count()
    };
    // Unknown paths: a 404 with the error fields of both Plaid and Argyle.
    let reply = reply.unwrap_or_else(|| {
        Reply::Body(
            404,
            r#"{"error_type":"INVALID_REQUEST","error_code":"NOT_FOUND","request_id":"nf","detail":"Not found."}"#
                .into(),
        )
    });
    let reply = match reply {
        Reply::Then(first, later) => *(if calls == 1 { first } else { later }),
        other => other,
    };
    let response = match reply {
        Reply::Then(..) => unreachable!("resolved above"),
        Reply::Hang => {
            // Answer nothing and hold the connection until the client gives up and closes it:
            // the wait ends on the client's timeout, not on a clock of its own.
            let mut rest = [0u8; 512];
            while matches!(stream.read(&mut rest).await, Ok(n) if n > 0) {}
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

/// No error text may carry any of `forbidden` (keys, tokens, `@` of an e-mail address).
pub fn assert_clean(error: &ProviderError, forbidden: &[&str]) {
    for text in [error.to_string(), format!("{error:?}")] {
        for f in forbidden {
            assert!(!text.contains(f), "{text:?} contains {f:?}");
        }
    }
}

/// The error text of an `Unavailable`, checked clean.
pub fn expect_unavailable(
    result: Result<impl std::fmt::Debug, ProviderError>,
    forbidden: &[&str],
) -> String {
    match result {
        Err(e @ ProviderError::Unavailable(_)) => {
            assert_clean(&e, forbidden);
            e.to_string()
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

/// The error text of a `Rejected`, checked clean.
pub fn expect_rejected(
    result: Result<impl std::fmt::Debug, ProviderError>,
    forbidden: &[&str],
) -> String {
    match result {
        Err(e @ ProviderError::Rejected(_)) => {
            assert_clean(&e, forbidden);
            e.to_string()
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

pub const VERIFICATION_ID: &str = "0b7f9a52-3c1e-4d8e-9f61-2a4c5e7d9b13";
pub const TENANT_EMAIL: &str = "jane.tenant@example.com";

/// A live verification in progress, with the provider's user handle when given.
pub fn verification(provider_user: Option<&str>) -> Verification {
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
