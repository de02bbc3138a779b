//! What a Plaid error means for the verification, and what of it may be logged.
//!
//! Plaid answers `{error_type, error_code, error_message, request_id}` with a 4xx or 5xx status.
//! Only the type, the code and the request id ever reach a [`ProviderError`] or a log line: Plaid's
//! free-text `error_message` can echo request fields (client id, tokens), so it is dropped.
//!
//! - `Unavailable` (the tenant may try again): 5xx, 429, 408; `PRODUCT_NOT_READY` (the report is
//!   still being generated) and `VERIFICATION_STATUS_PENDING_APPROVAL`; error types `API_ERROR`,
//!   `RATE_LIMIT_EXCEEDED`, `INSTITUTION_ERROR`; timeouts, connection failures, redirects,
//!   malformed or unrecognisable answers. Also the service's own configuration errors
//!   (`INVALID_API_KEYS`, `UNAUTHORIZED_ENVIRONMENT`, `PRODUCT_NOT_ENABLED`, ...): they are not
//!   the tenant's doing and an operator can fix them, so they must not fail the verification;
//!   they are logged at error level.
//! - `Rejected` (the verification fails): any other 4xx with a Plaid error body (`INVALID_INPUT`,
//!   `INVALID_REQUEST`, `ITEM_ERROR` such as `ITEM_LOGIN_REQUIRED`, `INCOME_VERIFICATION_ERROR`,
//!   ...), no report for the user, or a report Plaid could not fill.

use reqwest::StatusCode;

use crate::plaid::wire::PlaidErrorBody;
use ports::ProviderError;

/// What a Plaid error means for the verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Disposition {
    /// Transient: Plaid, the bank or the report is not ready; the tenant may try again.
    Retry,
    /// Our own configuration (keys, environment, product access). Not the tenant's doing, so the
    /// verification must not fail for it; it is logged as an error for the operator instead.
    Operator,
    /// About this tenant's user, Item or data: retrying cannot help, the verification fails.
    Refuse,
}

/// Error codes that point at the service's Plaid account rather than at the tenant.
const OPERATOR_CODES: &[&str] = &[
    "INVALID_API_KEYS",
    "UNAUTHORIZED_ENVIRONMENT",
    "UNAUTHORIZED_ROUTE_ACCESS",
    "INVALID_PRODUCT",
    "PRODUCT_NOT_ENABLED",
    "DIRECT_INTEGRATION_NOT_ENABLED",
];

/// The table of the module docs ("Errors"): status first (5xx, 429 and 408 are always transient),
/// then Plaid's code, then its type.
fn disposition(status: StatusCode, error_type: &str, error_code: &str) -> Disposition {
    if status.is_server_error()
        || status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
    {
        return Disposition::Retry;
    }
    if matches!(
        error_code,
        "PRODUCT_NOT_READY" | "VERIFICATION_STATUS_PENDING_APPROVAL"
    ) || matches!(
        error_type,
        "API_ERROR" | "RATE_LIMIT_EXCEEDED" | "INSTITUTION_ERROR"
    ) {
        return Disposition::Retry;
    }
    if OPERATOR_CODES.contains(&error_code) {
        return Disposition::Operator;
    }
    if status.is_client_error() {
        Disposition::Refuse
    } else {
        // 1xx/3xx: nothing Plaid documents; treat it as a glitch.
        Disposition::Retry
    }
}

/// A non-2xx answer. Without a recognisable Plaid error body (a proxy's HTML page, a truncated
/// body) nothing is known about the tenant, so the tenant may retry.
pub(super) fn plaid_error(
    endpoint: &'static str,
    status: StatusCode,
    body: &[u8],
) -> ProviderError {
    let parsed = serde_json::from_slice::<PlaidErrorBody>(body)
        .ok()
        .filter(|e| e.error_code.is_some() || e.error_type.is_some());
    let Some(error) = parsed else {
        tracing::warn!(
            endpoint,
            status = status.as_u16(),
            "Plaid error without an error body"
        );
        return unavailable(
            endpoint,
            &format!("HTTP {} without an error body", status.as_u16()),
        );
    };
    let error_type = safe_token(error.error_type.as_deref());
    let error_code = safe_token(error.error_code.as_deref());
    let request_id = safe_token(error.request_id.as_deref());
    let text = format!(
        "Plaid {endpoint}: {error_type}/{error_code} (HTTP {}, request {request_id})",
        status.as_u16()
    );
    let disposition = disposition(status, &error_type, &error_code);
    let status = status.as_u16();
    match disposition {
        Disposition::Retry => {
            tracing::warn!(endpoint, status, %error_type, %error_code, %request_id,
                "Plaid: transient error");
            ProviderError::Unavailable(text)
        }
        Disposition::Operator => {
            tracing::error!(endpoint, status, %error_type, %error_code, %request_id,
                "Plaid refuses the service's own configuration");
            ProviderError::Unavailable(text)
        }
        Disposition::Refuse => {
            tracing::info!(endpoint, status, %error_type, %error_code, %request_id,
                "Plaid: refused for this user");
            ProviderError::Rejected(text)
        }
    }
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
    tracing::warn!(endpoint, what, "Plaid call failed");
    unavailable(endpoint, what)
}

pub(super) fn unavailable(endpoint: &str, what: &str) -> ProviderError {
    ProviderError::Unavailable(format!("Plaid {endpoint}: {what}"))
}

/// Plaid's codes and request ids are short upper-case or alphanumeric tokens; anything else (which
/// could carry user data) is replaced.
pub(super) fn safe_token(raw: Option<&str>) -> String {
    match raw.map(str::trim) {
        Some(s)
            if !s.is_empty()
                && s.len() <= 64
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            s.to_string()
        }
        _ => "UNKNOWN".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_dispositions() {
        let bad = StatusCode::BAD_REQUEST;
        use Disposition::*;
        assert_eq!(disposition(bad, "ITEM_ERROR", "PRODUCT_NOT_READY"), Retry);
        assert_eq!(
            disposition(bad, "ITEM_ERROR", "ITEM_LOGIN_REQUIRED"),
            Refuse
        );
        assert_eq!(
            disposition(bad, "INVALID_INPUT", "INVALID_API_KEYS"),
            Operator
        );
        assert_eq!(disposition(bad, "INVALID_INPUT", "INVALID_FIELD"), Refuse);
        assert_eq!(
            disposition(
                bad,
                "INCOME_VERIFICATION_ERROR",
                "INCOME_VERIFICATION_NOT_FOUND"
            ),
            Refuse
        );
        assert_eq!(
            disposition(
                StatusCode::TOO_MANY_REQUESTS,
                "RATE_LIMIT_EXCEEDED",
                "RATE_LIMIT"
            ),
            Retry
        );
        assert_eq!(
            disposition(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INCOME_VERIFICATION_ERROR",
                "INCOME_VERIFICATION_FAILED"
            ),
            Retry
        );
        assert_eq!(
            disposition(bad, "INSTITUTION_ERROR", "INSTITUTION_DOWN"),
            Retry
        );
    }

    #[test]
    fn only_plain_tokens_pass() {
        assert_eq!(safe_token(Some("PRODUCT_NOT_READY")), "PRODUCT_NOT_READY");
        assert_eq!(safe_token(Some("jane@example.com")), "UNKNOWN");
        assert_eq!(safe_token(Some("a b")), "UNKNOWN");
        assert_eq!(safe_token(None), "UNKNOWN");
    }
}
