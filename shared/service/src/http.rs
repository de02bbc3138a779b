//! HTTP glue: a plain request/response pair the handlers work on, and the conversions from and to
//! lambda_http (API Gateway HTTP API, payload v2). The local stack converts from hyper instead.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;

use lambda_http::{Body, RequestExt, Response};

pub mod origin;
mod redact;

pub use origin::OriginCheck;

/// What a handler sees of an HTTP request.
#[derive(Clone)]
pub struct ApiRequest {
    pub method: http::Method,
    pub path: String,
    /// Query parameters; the first value wins when a name repeats.
    pub query: HashMap<String, String>,
    pub headers: http::HeaderMap,
    pub body: Vec<u8>,
    /// API Gateway's request id (also in its access log), or a fresh one locally.
    pub request_id: String,
}

impl ApiRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// A request for tests and tools.
    pub fn new(method: http::Method, path_and_query: &str) -> Self {
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        ApiRequest {
            method,
            path: path.to_string(),
            query: parse_query(query),
            headers: http::HeaderMap::new(),
            body: Vec::new(),
            request_id: uuid::Uuid::new_v4().to_string(),
        }
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.insert(
            name,
            http::HeaderValue::from_str(value).expect("header value"),
        );
        self
    }

    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }
}

/// Decodes `a=1&b=x%20y` (the local server's query strings; API Gateway decodes its own).
pub fn parse_query(raw: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.entry(percent_decode(k))
            .or_insert_with(|| percent_decode(v));
    }
    out
}

fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a handler answers.
#[derive(Clone, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// A binary body (the report PDF), sent instead of `body` (then empty); API Gateway gets it
    /// base64-encoded.
    pub binary: Option<Vec<u8>>,
}

/// A response body as it goes on the wire.
pub enum Payload {
    Text(String),
    Binary(Vec<u8>),
}

impl Payload {
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Payload::Text(text) => text.into_bytes(),
            Payload::Binary(bytes) => bytes,
        }
    }
}

impl ApiResponse {
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        ApiResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
            binary: None,
        }
    }

    /// A PDF offered as a download named `filename` (a name of ASCII letters, digits, `-`, `.`).
    pub fn pdf(bytes: Vec<u8>, filename: &str) -> Self {
        ApiResponse {
            status: 200,
            headers: vec![
                ("content-type".into(), "application/pdf".into()),
                (
                    "content-disposition".into(),
                    format!("attachment; filename=\"{filename}\""),
                ),
                ("cache-control".into(), "no-store".into()),
            ],
            body: String::new(),
            binary: Some(bytes),
        }
    }

    pub fn html(status: u16, body: String) -> Self {
        ApiResponse {
            status,
            headers: vec![
                ("content-type".into(), "text/html; charset=utf-8".into()),
                // The page carries a secret link: keep it out of caches and referrers.
                ("cache-control".into(), "no-store".into()),
                ("referrer-policy".into(), "no-referrer".into()),
                ("x-frame-options".into(), "DENY".into()),
                (
                    "content-security-policy".into(),
                    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'".into(),
                ),
            ],
            body,
            binary: None,
        }
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The enveloped 500 sent instead of a response that cannot be sent as built. It keeps the
    /// request id if that one is a valid header value.
    pub fn unsendable(&self) -> ApiResponse {
        let request_id = self
            .header("x-request-id")
            .filter(|id| http::HeaderValue::from_str(id).is_ok())
            .unwrap_or("");
        let fallback = ApiResponse::json(500, &domain::error::ApiError::Internal.body(request_id));
        if request_id.is_empty() {
            fallback
        } else {
            fallback.with_header("x-request-id", request_id)
        }
    }

    pub fn json_body(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Converts a lambda_http request (API Gateway HTTP API) into the handlers' request.
pub fn from_lambda(req: lambda_http::Request) -> ApiRequest {
    let request_id = match req.request_context_ref() {
        Some(lambda_http::request::RequestContext::ApiGatewayV2(ctx)) => ctx.request_id.clone(),
        _ => None,
    }
    .or_else(|| req.lambda_context_ref().map(|c| c.request_id.clone()))
    .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let query = req
        .query_string_parameters_ref()
        .map(|q| {
            q.iter()
                .map(|(k, _)| (k.to_string(), q.first(k).unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let path = req.raw_http_path().to_string();
    let (parts, body) = req.into_parts();
    ApiRequest {
        method: parts.method,
        path,
        query,
        headers: parts.headers,
        body: body.as_ref().to_vec(),
        request_id,
    }
}

/// Headers every response carries, API answers and tenant pages alike, added on the way out
/// (`to_http`): HTTPS only for two years, subdomains included, and no content-type sniffing.
pub const EVERY_RESPONSE: [(&str, &str); 2] = [
    (
        "strict-transport-security",
        "max-age=63072000; includeSubDomains",
    ),
    ("x-content-type-options", "nosniff"),
];

/// Converts the handlers' response into an `http` response with `body` (lambda_http's or hyper's).
/// Every response gets `EVERY_RESPONSE`, the enveloped 500 below included.
/// A response that is not valid HTTP (a status out of range, a header name or value with bytes
/// HTTP forbids) becomes the enveloped 500: never a 200, never an error body without its type.
pub fn to_http<B>(resp: ApiResponse, body: impl Fn(Payload) -> B) -> http::Response<B> {
    let mut builder = with_every_response(http::Response::builder().status(resp.status));
    for (name, value) in &resp.headers {
        builder = builder.header(name, value);
    }
    match builder.body(()) {
        Ok(built) => built.map(|()| {
            body(match resp.binary {
                Some(bytes) => Payload::Binary(bytes),
                None => Payload::Text(resp.body),
            })
        }),
        Err(e) => {
            let fallback = resp.unsendable();
            tracing::error!(error = %e, status = resp.status, "response is not valid HTTP; answered 500");
            let mut builder =
                with_every_response(http::Response::builder().status(fallback.status));
            for (name, value) in &fallback.headers {
                builder = builder.header(name, value);
            }
            builder
                .body(body(Payload::Text(fallback.body)))
                .expect("the fallback has a valid status and validated headers")
        }
    }
}

fn with_every_response(mut builder: http::response::Builder) -> http::response::Builder {
    for (name, value) in EVERY_RESPONSE {
        builder = builder.header(name, value);
    }
    builder
}

/// Converts the handlers' response into what lambda_http hands back to API Gateway.
pub fn to_lambda(resp: ApiResponse) -> Response<Body> {
    to_http(resp, |payload| match payload {
        Payload::Text(text) => Body::Text(text),
        Payload::Binary(bytes) => Body::Binary(bytes),
    })
}

/// Runs a handler for one Lambda invocation, once `origin` admitted the request (the edge's
/// origin check; off unless the stack runs behind CloudFront). It never fails: API Gateway would
/// answer an empty 502 to an `Err`, so every failure is already an enveloped response here.
pub async fn serve<F, Fut>(
    req: lambda_http::Request,
    origin: &OriginCheck,
    handler: F,
) -> Result<Response<Body>, Infallible>
where
    F: FnOnce(ApiRequest) -> Fut,
    Fut: Future<Output = ApiResponse>,
{
    let resp = match origin.admit(from_lambda(req)) {
        Ok(req) => handler(req).await,
        Err(refused) => refused,
    };
    Ok(to_lambda(resp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PDF goes to lambda_http as a binary body (API Gateway then gets it base64-encoded), with
    /// its download headers; a text response stays text.
    #[test]
    fn a_pdf_response_is_a_binary_body() {
        let out = to_lambda(ApiResponse::pdf(
            b"%PDF-1.7 x".to_vec(),
            "income-report-1.pdf",
        ));
        assert_eq!(out.status(), 200);
        assert_eq!(out.headers()["content-type"], "application/pdf");
        assert_eq!(
            out.headers()["content-disposition"],
            "attachment; filename=\"income-report-1.pdf\""
        );
        let Body::Binary(bytes) = out.body() else {
            panic!("binary body")
        };
        assert_eq!(bytes.as_slice(), b"%PDF-1.7 x");
        let text = to_lambda(ApiResponse::json(200, &serde_json::json!({})));
        assert!(matches!(text.body(), Body::Text(_)));
    }

    /// HSTS and nosniff reach the wire once on every kind of response: JSON, a page, a PDF and
    /// the enveloped 500 that replaces an unsendable one.
    #[test]
    fn every_response_carries_hsts_and_nosniff() {
        let responses = [
            ApiResponse::json(200, &serde_json::json!({})),
            ApiResponse::html(404, "<p>gone</p>".into()),
            ApiResponse::pdf(b"%PDF-1.7".to_vec(), "r.pdf"),
            ApiResponse::json(200, &serde_json::json!({})).with_header("x-note", "a\nb"),
        ];
        for resp in responses {
            let out = to_lambda(resp);
            for (name, value) in EVERY_RESPONSE {
                let sent: Vec<_> = out.headers().get_all(name).iter().collect();
                assert_eq!(sent, [value], "{name} on a {}", out.status());
            }
        }
    }

    /// `serve` runs the handler only for a request its origin check admits: with the check on, a
    /// request without the header gets the enveloped 403 and the handler never runs; with the
    /// right header, or with the check off, the handler answers.
    #[tokio::test]
    async fn serve_checks_the_origin_before_the_handler() {
        let event = |origin: Option<&str>| {
            let mut builder = http::Request::builder().uri("https://api.test/api/v1/usage");
            if let Some(value) = origin {
                builder = builder.header(origin::ORIGIN_HEADER, value);
            }
            builder.body(Body::Empty).unwrap()
        };
        let handled = |seen: std::sync::Arc<std::sync::atomic::AtomicUsize>| {
            move |req: ApiRequest| async move {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                assert_eq!(
                    req.header(origin::ORIGIN_HEADER),
                    None,
                    "the secret is stripped"
                );
                ApiResponse::json(200, &serde_json::json!({"success": true}))
            }
        };
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let on = OriginCheck::expecting("edge-secret-value");
        for refused in [None, Some("edge-secret-valuf")] {
            let out = serve(event(refused), &on, handled(seen.clone()))
                .await
                .unwrap();
            assert_eq!(out.status(), 403);
            let Body::Text(text) = out.body() else {
                panic!("text body")
            };
            assert!(text.contains("\"edge_required\""), "{text}");
        }
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 0);
        let out = serve(event(Some("edge-secret-value")), &on, handled(seen.clone()))
            .await
            .unwrap();
        assert_eq!(out.status(), 200);
        let out = serve(event(None), &OriginCheck::off(), handled(seen.clone()))
            .await
            .unwrap();
        assert_eq!(out.status(), 200);
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[test]
    fn query_strings_decode() {
        let q = parse_query("a=1&b=x%20y&a=2&c=%zz&d");
        assert_eq!(q["a"], "1");
        assert_eq!(q["b"], "x y");
        assert_eq!(q["c"], "%zz");
        assert_eq!(q["d"], "");
    }

    /// A handler's response with a header HTTP forbids (here a newline, as a value echoed from
    /// input could carry) or a status out of range is answered as the enveloped 500, typed JSON.
    #[test]
    fn an_unsendable_response_becomes_an_enveloped_500() {
        let cases = [
            ApiResponse::json(200, &serde_json::json!({"success": true}))
                .with_header("x-request-id", "req-42")
                .with_header("x-note", "line\nbreak"),
            ApiResponse::json(201, &serde_json::json!({"success": true}))
                .with_header("x-request-id", "req-42")
                .with_header("bad header", "v"),
            ApiResponse::json(1000, &serde_json::json!({"success": true}))
                .with_header("x-request-id", "req-42"),
        ];
        for resp in cases {
            let out = to_lambda(resp);
            assert_eq!(out.status(), 500);
            assert_eq!(out.headers()["content-type"], "application/json");
            assert_eq!(out.headers()["x-request-id"], "req-42");
            let Body::Text(text) = out.body() else {
                panic!("text body")
            };
            let body: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(body["success"], false);
            assert_eq!(body["code"], "internal_error");
            assert_eq!(body["request_id"], "req-42");
        }
        // An id that is itself not a valid header value is dropped, not echoed.
        let out = to_lambda(
            ApiResponse::json(200, &serde_json::json!({})).with_header("x-request-id", "a\rb"),
        );
        assert_eq!(out.status(), 500);
        assert!(!out.headers().contains_key("x-request-id"));
        // A valid response passes unchanged.
        let ok = to_lambda(ApiResponse::json(
            201,
            &serde_json::json!({"success": true}),
        ));
        assert_eq!(ok.status(), 201);
    }
}
