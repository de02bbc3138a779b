//! What an Argyle error means for the verification, and what of it may be logged.
//!
//! Argyle answers errors with an HTTP status and a JSON body such as `{"detail": "Invalid
//! username/password."}`, or field errors (`{"email": ["Enter a valid email address."]}`). The
//! body is never kept: it may echo what was sent. Only the endpoint and the status reach a
//! [`ProviderError`] or a log line.
//!
//! - `Unavailable` (the tenant may try again): 5xx, 429 (Argyle's rate limit), 408; timeouts,
//!   connection failures, redirects, malformed answers; pay stubs still syncing after a
//!   connection. Also 401 and 403: wrong or wrong-environment API keys are the operator's to fix,
//!   not the tenant's, so they are logged as errors and never fail the verification.
//! - `Rejected` (the verification fails): any other 4xx (404: the user or account is gone; 400:
//!   Argyle refuses the request for this user), no payroll account connected, or every connected
//!   account in `error` (`account_disabled`, `auth_required`, ...: the code is kept).

use reqwest::StatusCode;

use ports::ProviderError;

pub(super) fn argyle_error(endpoint: &'static str, status: StatusCode) -> ProviderError {
    let code = status.as_u16();
    let text = format!("Argyle {endpoint}: HTTP {code}");
    if status.is_server_error()
        || status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
        || !status.is_client_error()
    {
        tracing::warn!(endpoint, status = code, "Argyle: transient error");
        return ProviderError::Unavailable(text);
    }
    if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        tracing::error!(
            endpoint,
            status = code,
            "Argyle refuses the service's own API key (wrong key or environment)"
        );
        return ProviderError::Unavailable(text);
    }
    tracing::info!(endpoint, status = code, "Argyle: refused for this user");
    ProviderError::Rejected(text)
}

/// Network-level failures. reqwest's own text is not used: it carries the URL and nested causes.
pub(super) fn transport_error(endpoint: &'static str, error: &reqwest::Error) -> ProviderError {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the answer could not be read"
    } else if error.is_redirect() || error.status().is_some_and(|s| s.is_redirection()) {
        "unexpected redirect"
    } else {
        "request failed"
    };
    tracing::warn!(endpoint, what, "Argyle call failed");
    unavailable(endpoint, what)
}

pub(super) fn unavailable(endpoint: &str, what: &str) -> ProviderError {
    ProviderError::Unavailable(format!("Argyle {endpoint}: {what}"))
}

/// Argyle's connection error codes are short snake_case tokens; anything else is replaced.
pub(super) fn safe_code(raw: Option<&str>) -> String {
    match raw.map(str::trim) {
        Some(s)
            if !s.is_empty()
                && s.len() <= 64
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
        {
            s.to_string()
        }
        _ => "unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_split_into_retry_and_refusal() {
        let unavailable = |s: u16| {
            matches!(
                argyle_error("/v2/paystubs", StatusCode::from_u16(s).unwrap()),
                ProviderError::Unavailable(_)
            )
        };
        for s in [500, 502, 503, 429, 408, 401, 403, 302] {
            assert!(unavailable(s), "{s}");
        }
        for s in [400, 404, 409, 422] {
            assert!(!unavailable(s), "{s}");
        }
        assert_eq!(safe_code(Some("auth_required")), "auth_required");
        assert_eq!(safe_code(Some("jane@example.com")), "unknown");
        assert_eq!(safe_code(None), "unknown");
    }
}
