//! The one error type of the HTTP API, and how it becomes the enveloped error of design §3.

use serde::Serialize;

/// A problem with one field of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub code: &'static str,
    pub message: String,
}

impl FieldError {
    pub fn new(field: &str, code: &'static str, message: impl Into<String>) -> Self {
        FieldError {
            field: field.to_string(),
            code,
            message: message.into(),
        }
    }
}

/// Failures a caller can see. Messages are written for people and never carry a key, token,
/// e-mail address, phone number or an SDK's own words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    Validation {
        message: String,
        details: Vec<FieldError>,
    },
    #[error("Request body is not valid JSON: {0}")]
    InvalidJson(String),
    #[error(
        "Verification is {status}; only pending and in_progress verifications can be cancelled"
    )]
    NotCancellable { status: &'static str },
    #[error("{message}")]
    Unauthorized { code: &'static str, message: String },
    #[error("{message}")]
    Forbidden { code: &'static str, message: String },
    #[error("{0}")]
    NotFound(String),
    #[error("Method not allowed on this path")]
    MethodNotAllowed,
    #[error("A request with this Idempotency-Key is still being processed; retry shortly")]
    IdempotencyInFlight,
    #[error("Request body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("Content-Type must be application/json")]
    UnsupportedMediaType,
    #[error("This Idempotency-Key was already used with a different request body")]
    IdempotencyMismatch,
    #[error("API request allowance exceeded; it resets in {retry_after} seconds")]
    RateLimited { retry_after: u64 },
    /// One API key's burst is spent (`metering::burst_step`); the account's day may have room.
    #[error("Too many requests with this API key at once; retry in {retry_after} seconds")]
    KeyBurstExceeded { retry_after: u64 },
    #[error("Verification is {status}; its report exists only once it is completed")]
    ReportNotReady { status: &'static str },
    #[error("Verification is {status}; only pending and in_progress verifications can be resent")]
    NotResendable { status: &'static str },
    #[error(
        "Verification is {status}; cancel it first: only closed verifications can have their data erased"
    )]
    NotErasable { status: &'static str },
    #[error(
        "The invite was already resent {limit} times today (UTC); it can be resent again in {retry_after} seconds"
    )]
    ResendLimitReached { limit: u32, retry_after: u64 },
    /// The request conflicts with the resource's state (409), with its own code.
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    /// Concurrent requests on the same account outlasted the store's retries; nothing was done.
    #[error("The service is busy with concurrent requests on this account; retry in a second")]
    Busy,
    /// Something the request needs is down for a moment; nothing was done (a provider's webhook
    /// is sent again after `retry_after` seconds).
    #[error("The service cannot take this now; retry in {retry_after} seconds")]
    Unavailable { retry_after: u64 },
    #[error("Internal error; retry later and quote the request_id if it persists")]
    Internal,
}

impl ApiError {
    pub fn validation(field: &str, code: &'static str, message: impl Into<String>) -> Self {
        let message = message.into();
        ApiError::Validation {
            message: message.clone(),
            details: vec![FieldError::new(field, code, message)],
        }
    }

    pub fn status(&self) -> u16 {
        match self {
            ApiError::Validation { .. }
            | ApiError::InvalidJson(_)
            | ApiError::NotCancellable { .. }
            | ApiError::NotResendable { .. }
            | ApiError::NotErasable { .. } => 400,
            ApiError::Unauthorized { .. } => 401,
            ApiError::Forbidden { .. } => 403,
            ApiError::NotFound(_) => 404,
            ApiError::MethodNotAllowed => 405,
            ApiError::IdempotencyInFlight
            | ApiError::ReportNotReady { .. }
            | ApiError::Conflict { .. } => 409,
            ApiError::PayloadTooLarge { .. } => 413,
            ApiError::UnsupportedMediaType => 415,
            ApiError::IdempotencyMismatch => 422,
            ApiError::RateLimited { .. }
            | ApiError::KeyBurstExceeded { .. }
            | ApiError::ResendLimitReached { .. } => 429,
            ApiError::Internal => 500,
            ApiError::Busy | ApiError::Unavailable { .. } => 503,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Validation { .. } => "validation_error",
            ApiError::InvalidJson(_) => "invalid_json",
            ApiError::NotCancellable { .. } => "verification_not_cancellable",
            ApiError::NotResendable { .. } => "verification_not_resendable",
            ApiError::NotErasable { .. } => "verification_not_erasable",
            ApiError::ResendLimitReached { .. } => "resend_limit_reached",
            ApiError::Unauthorized { code, .. }
            | ApiError::Forbidden { code, .. }
            | ApiError::Conflict { code, .. } => code,
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed => "method_not_allowed",
            ApiError::IdempotencyInFlight => "idempotency_key_in_use",
            ApiError::ReportNotReady { .. } => "report_not_ready",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::IdempotencyMismatch => "idempotency_key_reused",
            ApiError::RateLimited { .. } | ApiError::KeyBurstExceeded { .. } => {
                "rate_limit_exceeded"
            }
            ApiError::Internal => "internal_error",
            ApiError::Busy => "busy",
            ApiError::Unavailable { .. } => "unavailable",
        }
    }

    pub fn details(&self) -> &[FieldError] {
        match self {
            ApiError::Validation { details, .. } => details,
            _ => &[],
        }
    }

    /// The enveloped error body.
    pub fn body(&self, request_id: &str) -> serde_json::Value {
        serde_json::json!({
            "success": false,
            "error": self.to_string(),
            "code": self.code(),
            "details": self.details(),
            "request_id": request_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_every_field() {
        let e = ApiError::validation("tenant_email", "required", "tenant_email is required");
        let body = e.body("req-1");
        assert_eq!(body["success"], false);
        assert_eq!(body["error"], "tenant_email is required");
        assert_eq!(body["code"], "validation_error");
        assert_eq!(body["details"][0]["field"], "tenant_email");
        assert_eq!(body["details"][0]["code"], "required");
        assert_eq!(body["request_id"], "req-1");
        assert_eq!(e.status(), 400);
        assert_eq!(
            ApiError::Internal.body("r")["details"],
            serde_json::json!([])
        );
    }

    #[test]
    fn statuses_follow_the_design() {
        let cases = [
            (
                ApiError::NotCancellable {
                    status: "completed",
                },
                400,
            ),
            (
                ApiError::Unauthorized {
                    code: "invalid_api_key",
                    message: "x".into(),
                },
                401,
            ),
            (
                ApiError::Forbidden {
                    code: "verification_limit_reached",
                    message: "x".into(),
                },
                403,
            ),
            (ApiError::NotFound("x".into()), 404),
            (ApiError::IdempotencyInFlight, 409),
            (ApiError::ReportNotReady { status: "pending" }, 409),
            (
                ApiError::Conflict {
                    code: "no_webhook_url",
                    message: "x".into(),
                },
                409,
            ),
            (ApiError::PayloadTooLarge { limit: 1 }, 413),
            (ApiError::UnsupportedMediaType, 415),
            (ApiError::IdempotencyMismatch, 422),
            (ApiError::RateLimited { retry_after: 5 }, 429),
            (ApiError::KeyBurstExceeded { retry_after: 1 }, 429),
            (
                ApiError::ResendLimitReached {
                    limit: 3,
                    retry_after: 5,
                },
                429,
            ),
            (
                ApiError::NotResendable {
                    status: "completed",
                },
                400,
            ),
            (ApiError::Internal, 500),
            (ApiError::Busy, 503),
            (ApiError::Unavailable { retry_after: 60 }, 503),
        ];
        for (e, status) in cases {
            assert_eq!(e.status(), status, "{e:?}");
        }
    }
}
