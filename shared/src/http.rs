//! HTTP glue: a plain request/response pair the handlers work on, and the conversions from and to
//! lambda_http (API Gateway HTTP API, payload v2). The local stack converts from hyper instead.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;

use lambda_http::{Body, RequestExt, Response};

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
}

impl ApiResponse {
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        ApiResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
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

/// Converts the handlers' response into what lambda_http hands back to API Gateway.
pub fn to_lambda(resp: ApiResponse) -> Response<Body> {
    let mut builder = Response::builder().status(resp.status);
    for (name, value) in &resp.headers {
        builder = builder.header(name, value);
    }
    builder
        .body(Body::Text(resp.body))
        .unwrap_or_else(|_| Response::new(Body::Text(r#"{"success":false,"error":"Internal error","code":"internal_error","details":[],"request_id":""}"#.into())))
}

/// Runs a handler for one Lambda invocation. It never fails: API Gateway would answer an empty
/// 502 to an `Err`, so every failure is already an enveloped response here.
pub async fn serve<F, Fut>(
    req: lambda_http::Request,
    handler: F,
) -> Result<Response<Body>, Infallible>
where
    F: FnOnce(ApiRequest) -> Fut,
    Fut: Future<Output = ApiResponse>,
{
    Ok(to_lambda(handler(from_lambda(req)).await))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_decode() {
        let q = parse_query("a=1&b=x%20y&a=2&c=%zz&d");
        assert_eq!(q["a"], "1");
        assert_eq!(q["b"], "x y");
        assert_eq!(q["c"], "%zz");
        assert_eq!(q["d"], "");
    }
}
