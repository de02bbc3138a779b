//! `Debug` for a request and a response (the rules are in `domain::redact`): header values hold
//! the API key, the tenant page's path holds the link token, bodies hold the tenant's data.

use std::fmt::{self, Debug, Formatter};

use domain::redact::{Hidden, Size};

use super::{ApiRequest, ApiResponse};

impl Debug for ApiRequest {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // Header values hold the API key; the tenant page's path holds the link token; bodies and
        // query values hold the tenant's data.
        let header_names: Vec<&str> = self.headers.keys().map(|k| k.as_str()).collect();
        let query_names: Vec<&String> = self.query.keys().collect();
        let path: &dyn Debug = if self.path.starts_with("/api/") {
            &self.path
        } else {
            &Hidden
        };
        f.debug_struct("ApiRequest")
            .field("method", &self.method)
            .field("path", path)
            .field("query", &query_names)
            .field("headers", &header_names)
            .field("body", &Size(self.body.len()))
            .field("request_id", &self.request_id)
            .finish_non_exhaustive()
    }
}

impl Debug for ApiResponse {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // A `location` may be the tenant link; bodies hold the tenant's data.
        let header_names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ApiResponse")
            .field("status", &self.status)
            .field("headers", &header_names)
            .field("body", &Size(self.body.len()))
            .field("binary", &self.binary.as_ref().map(|b| Size(b.len())))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use domain::redact::assert_hides;

    use super::*;

    const EMAIL: &str = "jane.private@example.com";
    const LINK_TOKEN: &str = "link-sandbox-af1a0311";

    #[test]
    fn http_request_and_response_hide_key_token_and_bodies() {
        let api_key = "tiv_live_0123456789abcdefghijklmnopqrstuv";
        let request = ApiRequest::new(http::Method::POST, "/api/v1/verify?tenant_email=x%40y.z")
            .with_header("authorization", &format!("Bearer {api_key}"))
            .with_body(format!("{{\"tenant_email\":\"{EMAIL}\"}}"));
        let out = assert_hides(&request, &[api_key, EMAIL, "x@y.z"]);
        assert!(out.contains("/api/v1/verify") && out.contains("authorization"));
        let page = ApiRequest::new(http::Method::GET, &format!("/t/some-id/{LINK_TOKEN}"));
        assert_hides(&page, &[LINK_TOKEN]);

        let response = ApiResponse::json(201, &serde_json::json!({"tenant_email": EMAIL}))
            .with_header(
                "location",
                format!("https://verify.example.com/t/id/{LINK_TOKEN}"),
            );
        let out = assert_hides(&response, &[EMAIL, LINK_TOKEN]);
        assert!(out.contains("201"));
    }
}
