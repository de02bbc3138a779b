from enum import StrEnum


class ErrorCode(StrEnum):
    ALREADY_REVIEWED = "already_reviewed"
    API_KEY_REVOKED = "api_key_revoked"
    BUSY = "busy"
    HOUSEHOLD_CLOSED = "household_closed"
    IDEMPOTENCY_KEY_IN_USE = "idempotency_key_in_use"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    INTERNAL_ERROR = "internal_error"
    INVALID_API_KEY = "invalid_api_key"
    INVALID_AUTHORIZATION = "invalid_authorization"
    INVALID_JSON = "invalid_json"
    LIVE_MODE_UNAVAILABLE = "live_mode_unavailable"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    MISSING_API_KEY = "missing_api_key"
    NOT_FOUND = "not_found"
    NO_DOCUMENTS = "no_documents"
    NO_WEBHOOK_URL = "no_webhook_url"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    PLAN_WITHOUT_API_ACCESS = "plan_without_api_access"
    RATE_LIMIT_EXCEEDED = "rate_limit_exceeded"
    REPORT_NOT_READY = "report_not_ready"
    RESEND_LIMIT_REACHED = "resend_limit_reached"
    SUBSCRIPTION_INACTIVE = "subscription_inactive"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    VALIDATION_ERROR = "validation_error"
    VERIFICATION_LIMIT_REACHED = "verification_limit_reached"
    VERIFICATION_NOT_CANCELLABLE = "verification_not_cancellable"
    VERIFICATION_NOT_RESENDABLE = "verification_not_resendable"

    def __str__(self) -> str:
        return str(self.value)
