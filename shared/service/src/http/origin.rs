//! The edge's origin check (template.yaml's `EdgeProtection`): with a CloudFront distribution and
//! its WAF in front, the API's own execute-api URL must not answer, or the WAF's limits would be
//! bypassed by calling it directly. CloudFront sends a secret header on every request it forwards;
//! every HTTP function checks it before its handler runs, here, in the one entry all share.

use domain::error::ApiError;
use domain::secrets::same_secret;

use super::{ApiRequest, ApiResponse};
use crate::handlers::api::respond::error_response;

/// The header CloudFront's origin carries the secret in (template.yaml, `EdgeDistribution`).
pub const ORIGIN_HEADER: &str = "x-origin-verify";

/// The viewer's own `Host`, which the distribution's viewer-request function copies here: behind
/// CloudFront, API Gateway is reached under its own domain, so `host` names execute-api.
pub const VIEWER_HOST_HEADER: &str = "x-forwarded-host";

/// Whether, and against what, a request's origin header is checked. Off (no secret configured)
/// in the default deploy and the local stack: every request passes unchanged.
#[derive(Clone, Default)]
pub struct OriginCheck {
    secret: Option<String>,
}

impl std::fmt::Debug for OriginCheck {
    /// Says whether the check is on, never the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OriginCheck")
            .field("on", &self.secret.is_some())
            .finish()
    }
}

/// What a caller that bypassed the distribution is told: where to go, nothing of the header.
fn refusal() -> ApiError {
    ApiError::Forbidden {
        code: "edge_required",
        message: "This API answers only through its CloudFront address; send the request there"
            .into(),
    }
}

impl OriginCheck {
    /// No check: what the stack runs without edge protection.
    pub fn off() -> Self {
        OriginCheck { secret: None }
    }

    /// Requests must carry `secret` in `ORIGIN_HEADER` (trimmed, as Secrets Manager's text may end
    /// in a newline when an operator pasted it).
    pub fn expecting(secret: &str) -> Self {
        OriginCheck {
            secret: Some(secret.trim().to_string()),
        }
    }

    pub fn is_on(&self) -> bool {
        self.secret.is_some()
    }

    /// The request a handler may see, or the enveloped 403 a bypassing caller gets. A request that
    /// passes loses the secret header (no handler, log or echo can hold it) and, when CloudFront
    /// named the viewer's host, gets it back as `host`, so links and redirects the handlers build
    /// from the host name the distribution, not the execute-api domain. With the check off the
    /// request is untouched: a caller-sent `x-forwarded-host` then means nothing.
    pub fn admit(&self, mut req: ApiRequest) -> Result<ApiRequest, ApiResponse> {
        let Some(secret) = &self.secret else {
            return Ok(req);
        };
        let presented = req.header(ORIGIN_HEADER).unwrap_or_default();
        if !same_secret(presented, secret) {
            tracing::warn!(
                request_id = %req.request_id,
                header_present = !presented.is_empty(),
                "refused a request that did not come through the edge (origin header missing or wrong)"
            );
            let response = error_response(&refusal(), &req.request_id);
            return Err(response.with_header("x-request-id", req.request_id.clone()));
        }
        req.headers.remove(ORIGIN_HEADER);
        if let Some(host) = req.headers.remove(VIEWER_HOST_HEADER) {
            req.headers.insert(http::header::HOST, host);
        }
        Ok(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "k3VwZ8pQ2mN7rT4xL9cB6hJ1fD5sG0aY";

    fn request() -> ApiRequest {
        ApiRequest::new(http::Method::POST, "/api/v1/verify")
            .with_header("host", "abc123.execute-api.us-east-1.amazonaws.com")
    }

    fn assert_refused(check: &OriginCheck, req: ApiRequest) {
        let id = req.request_id.clone();
        let resp = check.admit(req).expect_err("refused");
        assert_eq!(resp.status, 403);
        assert_eq!(resp.header("content-type"), Some("application/json"));
        assert_eq!(resp.header("x-request-id"), Some(id.as_str()));
        let body = resp.json_body();
        assert_eq!(body["success"], false);
        assert_eq!(body["code"], "edge_required");
        assert_eq!(body["request_id"], id);
        assert!(
            body["error"].as_str().unwrap().contains("CloudFront"),
            "{body}"
        );
        assert!(!resp.body.contains(SECRET), "{}", resp.body);
    }

    /// Without the header, with a wrong value, with the secret's prefix or with the secret plus
    /// one character, the enveloped 403; the body never holds the secret.
    #[test]
    fn a_request_without_the_right_origin_header_gets_the_403_envelope() {
        let check = OriginCheck::expecting(SECRET);
        assert_refused(&check, request());
        assert_refused(&check, request().with_header(ORIGIN_HEADER, "wrong"));
        assert_refused(&check, request().with_header(ORIGIN_HEADER, &SECRET[..31]));
        assert_refused(
            &check,
            request().with_header(ORIGIN_HEADER, &format!("{SECRET}x")),
        );
        assert_refused(&check, request().with_header(ORIGIN_HEADER, ""));
    }

    /// The right header passes; the handler sees neither it nor the execute-api host, but the
    /// viewer's host CloudFront forwarded.
    #[test]
    fn the_right_origin_header_passes_without_the_secret_and_with_the_viewer_host() {
        let check = OriginCheck::expecting(&format!("{SECRET}\n"));
        let req = request()
            .with_header(ORIGIN_HEADER, SECRET)
            .with_header(VIEWER_HOST_HEADER, "d111111abcdef8.cloudfront.net");
        let admitted = check.admit(req).expect("admitted");
        assert_eq!(admitted.header(ORIGIN_HEADER), None);
        assert_eq!(admitted.header(VIEWER_HOST_HEADER), None);
        assert_eq!(
            admitted.header("host"),
            Some("d111111abcdef8.cloudfront.net")
        );
        // Without a forwarded host the request keeps its own.
        let admitted = check
            .admit(request().with_header(ORIGIN_HEADER, SECRET))
            .expect("admitted");
        assert_eq!(
            admitted.header("host"),
            Some("abc123.execute-api.us-east-1.amazonaws.com")
        );
    }

    /// Unconfigured, the check is off: every request passes as it came, a caller's
    /// `x-forwarded-host` included (it does not become the host).
    #[test]
    fn the_check_is_off_when_unconfigured() {
        let check = OriginCheck::off();
        assert!(!check.is_on());
        let req = request().with_header(VIEWER_HOST_HEADER, "evil.example");
        let admitted = check.admit(req).expect("admitted");
        assert_eq!(
            admitted.header("host"),
            Some("abc123.execute-api.us-east-1.amazonaws.com")
        );
        assert_eq!(admitted.header(VIEWER_HOST_HEADER), Some("evil.example"));
        assert!(OriginCheck::default().admit(request()).is_ok());
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let shown = format!("{:?}", OriginCheck::expecting(SECRET));
        assert_eq!(shown, "OriginCheck { on: true }");
    }
}
