//! A minimal Lambda Runtime API on loopback: enough for `lambda_runtime` (and for a Python loop)
//! to start, take events and post their results.
//!
//! `GET /2018-06-01/runtime/invocation/next` is held open until an event is queued (as Lambda
//! does); the time of every `next` is recorded, so the first one marks the end of a cold init and
//! a later one marks the function idle again.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

/// What the function posted back for one invocation.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub request_id: String,
    /// `response`, `error` or `init/error`.
    pub kind: &'static str,
    pub body: String,
    pub at: Instant,
}

struct Shared {
    events: tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, String)>>,
    /// Times of the `next` requests, in order.
    nexts: watch::Sender<Vec<Instant>>,
    /// When each event was handed out (request id, time).
    handed: Mutex<Vec<(String, Instant)>>,
    outcomes: mpsc::UnboundedSender<Outcome>,
}

/// One Runtime API endpoint, for one function process. Dropping it stops the server and makes
/// held `next` requests fail.
pub struct RuntimeApi {
    pub addr: SocketAddr,
    events: mpsc::UnboundedSender<(String, String)>,
    nexts: watch::Receiver<Vec<Instant>>,
    outcomes: mpsc::UnboundedReceiver<Outcome>,
    shared: Arc<Shared>,
    server: tokio::task::JoinHandle<()>,
    counter: u64,
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

const PREFIX: &str = "/2018-06-01/runtime/";

impl RuntimeApi {
    pub async fn start() -> std::io::Result<RuntimeApi> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let (outcomes_tx, outcomes_rx) = mpsc::unbounded_channel();
        let (nexts_tx, nexts_rx) = watch::channel(Vec::new());
        let shared = Arc::new(Shared {
            events: tokio::sync::Mutex::new(events_rx),
            nexts: nexts_tx,
            handed: Mutex::new(Vec::new()),
            outcomes: outcomes_tx,
        });
        let state = shared.clone();
        let server = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let state = state.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(handle(&state, req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(RuntimeApi {
            addr,
            events: events_tx,
            nexts: nexts_rx,
            outcomes: outcomes_rx,
            shared,
            server,
            counter: 0,
        })
    }

    /// The value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn endpoint(&self) -> String {
        self.addr.to_string()
    }

    /// Waits until the function has made `n` `next` requests; returns the time of the n-th.
    pub async fn wait_next(&mut self, n: usize) -> Option<Instant> {
        let nexts = self.nexts.wait_for(|times| times.len() >= n).await.ok()?;
        Some(nexts[n - 1])
    }

    /// A function that failed its init posts to `init/error` and exits; this reports it.
    pub fn try_outcome(&mut self) -> Option<Outcome> {
        self.outcomes.try_recv().ok()
    }

    /// Queues one event and waits for its result. Returns the outcome and the time from handing
    /// the event out to receiving the result.
    pub async fn invoke(&mut self, event: &str) -> Option<(Outcome, std::time::Duration)> {
        self.counter += 1;
        let id = format!(
            "bench-{:08}-{}",
            self.counter,
            uuid::Uuid::new_v4().simple()
        );
        self.events.send((id.clone(), event.to_string())).ok()?;
        loop {
            let outcome = self.outcomes.recv().await?;
            if outcome.kind == "init/error" {
                return Some((outcome, std::time::Duration::ZERO));
            }
            if outcome.request_id == id {
                let handed = self
                    .shared
                    .handed
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|(r, _)| *r == id)
                    .map(|(_, t)| *t)?;
                let took = outcome.at.saturating_duration_since(handed);
                return Some((outcome, took));
            }
        }
    }
}

fn reply(status: u16, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(body.into()))
        .expect("response")
}

async fn handle(state: &Shared, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return reply(404, r#"{"errorMessage":"not found"}"#);
    };
    if method == hyper::Method::GET && rest == "invocation/next" {
        let now = Instant::now();
        state.nexts.send_modify(|times| times.push(now));
        // Held until an event is queued; a dropped RuntimeApi ends it.
        let next = state.events.lock().await.recv().await;
        let Some((id, event)) = next else {
            return reply(500, r#"{"errorMessage":"runtime API closed"}"#);
        };
        let deadline = chrono::Utc::now().timestamp_millis() + 30_000;
        state
            .handed
            .lock()
            .unwrap()
            .push((id.clone(), Instant::now()));
        return Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .header("lambda-runtime-aws-request-id", &id)
            .header("lambda-runtime-deadline-ms", deadline.to_string())
            .header(
                "lambda-runtime-invoked-function-arn",
                "arn:aws:lambda:us-east-1:123456789012:function:bench",
            )
            .header(
                "lambda-runtime-trace-id",
                "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0",
            )
            .body(Full::new(Bytes::from(event)))
            .expect("response");
    }
    if method != hyper::Method::POST {
        return reply(405, r#"{"errorMessage":"method not allowed"}"#);
    }
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let at = Instant::now();
    let body = String::from_utf8_lossy(&body).into_owned();
    let (request_id, kind) = if rest == "init/error" {
        (String::new(), "init/error")
    } else if let Some(inv) = rest.strip_prefix("invocation/") {
        match inv.rsplit_once('/') {
            Some((id, "response")) => (id.to_string(), "response"),
            Some((id, "error")) => (id.to_string(), "error"),
            _ => return reply(404, r#"{"errorMessage":"not found"}"#),
        }
    } else {
        return reply(404, r#"{"errorMessage":"not found"}"#);
    };
    let _ = state.outcomes.send(Outcome {
        request_id,
        kind,
        body,
        at,
    });
    reply(202, r#"{"status":"OK"}"#)
}
