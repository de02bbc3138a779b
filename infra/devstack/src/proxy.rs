//! A recording HTTP proxy on loopback between a function and moto: the function's
//! `AWS_ENDPOINT_URL` points here, every request is forwarded unchanged and recorded with its
//! operation (`X-Amz-Target`, or method and path for REST APIs such as SES v2), its request body
//! and its start and end. `make bench` counts round trips and cost with it; the least-privilege
//! test (`tests/iam.rs`) gives each function its own (`FunctionProxies`) and checks every recorded
//! call against that function's role in template.yaml.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use tokio::net::TcpListener;

/// One AWS call as the proxy saw it.
#[derive(Debug, Clone)]
pub struct Call {
    /// e.g. `DynamoDB_20120810.GetItem`, `AmazonSQS.SendMessage`, `POST /v2/email/outbound-emails`.
    pub operation: String,
    /// The signing name of the request's credential scope (`dynamodb`, `sqs`, `ses`, `sns`).
    pub service: String,
    pub start: Instant,
    pub end: Instant,
    pub status: u16,
    /// DynamoDB Query/Scan: the `ScannedCount` of the response (items read).
    pub scanned: Option<u64>,
    /// DynamoDB: the capacity units the response reported (`ConsumedCapacity`, summed).
    pub consumed: Option<f64>,
    /// DynamoDB: items in a transaction or batch request.
    pub items: usize,
    /// DynamoDB: a strongly consistent read was asked for.
    pub consistent: bool,
    /// The request's path and query (REST and query-protocol services name their operation and
    /// resource there).
    pub path_and_query: String,
    /// The request body as sent (JSON for DynamoDB, SQS, Secrets Manager, SES v2 and the
    /// scheduler; a form for SNS).
    pub body: Bytes,
}

impl Call {
    /// A call as the proxy would record it, answered 200 at once (for tests of what reads calls).
    pub fn answered(operation: &str, service: &str, body: &[u8]) -> Call {
        let now = Instant::now();
        Call {
            operation: operation.into(),
            service: service.into(),
            start: now,
            end: now,
            status: 200,
            scanned: None,
            consumed: None,
            items: 0,
            consistent: false,
            path_and_query: "/".into(),
            body: Bytes::copy_from_slice(body),
        }
    }

    pub fn is_dynamodb(&self) -> bool {
        self.operation.starts_with("DynamoDB_")
    }

    /// The operation without its service prefix (`GetItem`).
    pub fn short(&self) -> &str {
        self.operation
            .rsplit_once('.')
            .map_or(self.operation.as_str(), |(_, op)| op)
    }
}

pub struct Proxy {
    pub endpoint: String,
    calls: Arc<Mutex<Vec<Call>>>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl Proxy {
    /// Listens on a free loopback port and forwards to `upstream` (moto's endpoint).
    pub async fn start(upstream: &str) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        let calls: Arc<Mutex<Vec<Call>>> = Arc::default();
        // A redirect (S3's answer to an upload form) goes back to the caller, as it would from AWS.
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(std::io::Error::other)?;
        let upstream = Arc::new(upstream.trim_end_matches('/').to_string());
        let log = calls.clone();
        let server = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let (client, upstream, log) = (client.clone(), upstream.clone(), log.clone());
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let (client, upstream, log) = (client.clone(), upstream.clone(), log.clone());
                        async move { Ok::<_, Infallible>(forward(&client, &upstream, &log, req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Proxy {
            endpoint,
            calls,
            server,
        })
    }

    /// The calls recorded since the last `take`.
    pub fn take(&self) -> Vec<Call> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
}

/// One proxy per function, all forwarding to the same moto, so each function's calls are
/// recorded apart (its handler's AWS clients are built from `sdk(function)`).
pub struct FunctionProxies {
    upstream: String,
    proxies: Mutex<BTreeMap<String, Arc<Proxy>>>,
}

impl FunctionProxies {
    pub fn new(upstream: &str) -> Self {
        FunctionProxies {
            upstream: upstream.to_string(),
            proxies: Mutex::default(),
        }
    }

    /// SDK configuration whose calls go through `function`'s own proxy (started on first use).
    pub async fn sdk(&self, function: &str) -> std::io::Result<aws_config::SdkConfig> {
        let known = self.proxies.lock().unwrap().get(function).cloned();
        let proxy = match known {
            Some(proxy) => proxy,
            None => {
                let started = Arc::new(Proxy::start(&self.upstream).await?);
                let mut proxies = self.proxies.lock().unwrap();
                proxies
                    .entry(function.to_string())
                    .or_insert(started)
                    .clone()
            }
        };
        Ok(crate::moto::sdk_config(&proxy.endpoint).await)
    }

    /// The calls recorded since the last `take`, by function.
    pub fn take(&self) -> BTreeMap<String, Vec<Call>> {
        let proxies = self.proxies.lock().unwrap();
        proxies
            .iter()
            .map(|(function, proxy)| (function.clone(), proxy.take()))
            .collect()
    }
}

async fn forward(
    client: &reqwest::Client,
    upstream: &str,
    log: &Mutex<Vec<Call>>,
    req: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let start = Instant::now();
    let operation = match req.headers().get("x-amz-target") {
        Some(target) => target.to_str().unwrap_or("?").to_string(),
        None => format!("{} {}", req.method(), req.uri().path()),
    };
    // `Credential=<key>/<date>/<region>/<service>/aws4_request`.
    let service = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|auth| auth.split("Credential=").nth(1))
        .and_then(|scope| scope.split('/').nth(3))
        .unwrap_or("?")
        .to_string();
    let path_and_query = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let url = format!("{upstream}{path_and_query}");
    let method = req.method().clone();
    let mut headers = req.headers().clone();
    for hop in [
        "host",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "upgrade",
    ] {
        headers.remove(hop);
    }
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let request_body = body.clone();
    let request: Option<serde_json::Value> = operation
        .starts_with("DynamoDB_")
        .then(|| serde_json::from_slice(&body).ok())
        .flatten();
    let items = request.as_ref().map_or(0, |r| {
        r["TransactItems"].as_array().map_or(0, Vec::len)
            + r["RequestItems"].as_object().map_or(0, |tables| {
                tables
                    .values()
                    .map(|t| t["Keys"].as_array().or(t.as_array()).map_or(0, Vec::len))
                    .sum()
            })
    });
    let consistent = request
        .as_ref()
        .is_some_and(|r| r["ConsistentRead"].as_bool() == Some(true));
    let result = client
        .request(method, url)
        .headers(headers)
        .body(body.clone())
        .send()
        .await;
    let (status, headers, body) = match result {
        Ok(resp) => {
            let status = resp.status();
            let headers = resp.headers().clone();
            let body = resp.bytes().await.unwrap_or_default();
            (status, headers, body)
        }
        Err(e) => (
            http::StatusCode::BAD_GATEWAY,
            http::HeaderMap::new(),
            Bytes::from(format!("proxy: {e}")),
        ),
    };
    let answer: Option<serde_json::Value> = operation
        .starts_with("DynamoDB_")
        .then(|| serde_json::from_slice(&body).ok())
        .flatten();
    let scanned = (operation.ends_with(".Query") || operation.ends_with(".Scan"))
        .then(|| answer.as_ref().and_then(|v| v["ScannedCount"].as_u64()))
        .flatten();
    let consumed = answer
        .as_ref()
        .and_then(|v| consumed_units(&v["ConsumedCapacity"]));
    let mut builder = Response::builder().status(status);
    for (name, value) in &headers {
        if !matches!(
            name.as_str(),
            "connection" | "keep-alive" | "transfer-encoding" | "content-length"
        ) {
            builder = builder.header(name, value);
        }
    }
    let response = builder.body(Full::new(body)).expect("response");
    log.lock().unwrap().push(Call {
        operation,
        service,
        start,
        end: Instant::now(),
        status: status.as_u16(),
        scanned,
        consumed,
        items,
        consistent,
        path_and_query,
        body: request_body,
    });
    response
}

/// `ConsumedCapacity` is one object (item and query calls) or a list (batches, transactions).
fn consumed_units(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Object(o) => o.get("CapacityUnits").and_then(|u| u.as_f64()),
        serde_json::Value::Array(list) if !list.is_empty() => Some(
            list.iter()
                .filter_map(|c| c["CapacityUnits"].as_f64())
                .sum(),
        ),
        _ => None,
    }
}

/// The number of round trips on the critical path: the longest chain of calls in which each one
/// starts after the previous one has ended. Calls that overlap in time count once.
pub fn sequential(calls: &[&Call]) -> usize {
    let mut sorted: Vec<&&Call> = calls.iter().collect();
    sorted.sort_by_key(|c| c.start);
    let mut depth = vec![0usize; sorted.len()];
    for i in 0..sorted.len() {
        depth[i] = 1
            + (0..i)
                .filter(|&j| sorted[j].end <= sorted[i].start)
                .map(|j| depth[j])
                .max()
                .unwrap_or(0);
    }
    depth.into_iter().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn call(t0: Instant, from: u64, to: u64) -> Call {
        Call {
            operation: "DynamoDB_20120810.GetItem".into(),
            service: "dynamodb".into(),
            start: t0 + Duration::from_millis(from),
            end: t0 + Duration::from_millis(to),
            status: 200,
            scanned: None,
            consumed: None,
            items: 0,
            consistent: true,
            path_and_query: "/".into(),
            body: Bytes::new(),
        }
    }

    #[test]
    fn overlapping_calls_count_once_on_the_critical_path() {
        let t0 = Instant::now();
        let calls = [
            call(t0, 0, 10),
            call(t0, 11, 20),
            call(t0, 12, 30),
            call(t0, 31, 40),
        ];
        let refs: Vec<&Call> = calls.iter().collect();
        assert_eq!(sequential(&refs), 3);
        assert_eq!(sequential(&refs[1..3]), 1);
        assert_eq!(sequential(&[]), 0);
    }

    #[test]
    fn consumed_capacity_is_read_from_an_object_or_a_list() {
        let one = serde_json::json!({"TableName": "t", "CapacityUnits": 1.5});
        assert_eq!(consumed_units(&one), Some(1.5));
        let list = serde_json::json!([{"CapacityUnits": 2.0}, {"CapacityUnits": 4.0}]);
        assert_eq!(consumed_units(&list), Some(6.0));
        assert_eq!(consumed_units(&serde_json::json!([])), None);
        assert_eq!(consumed_units(&serde_json::Value::Null), None);
    }
}
