"""Verify a webhook of the Tenant Income Verification Service and parse it into its model.

The service signs every webhook the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
`webhook-signature`, keyed with the account's `whsec_...` secret); `standardwebhooks` checks the
signature and the timestamp (5 minutes either way), then the payload becomes the generated model
its `type` names (`infra/openapi.yaml`, `webhooks`).

    from tiv_webhooks import verify_webhook
    from tiv_client.models import WebhookCompleted

    event = verify_webhook(secret, request_body, request_headers)  # raises WebhookVerificationError
    if isinstance(event, WebhookCompleted):
        print(event.data.income_report.total_monthly_income)

Answer 2xx once the event is handled (deduplicate by the `webhook-id` header); any other status
is retried.
"""

from __future__ import annotations

from collections.abc import Mapping

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tiv_client.models import (
    WebhookCancelled,
    WebhookCompleted,
    WebhookErased,
    WebhookExpired,
    WebhookFailed,
    WebhookHouseholdCompleted,
    WebhookInProgress,
    WebhookReminderSent,
    WebhookResent,
    WebhookReviewed,
)

__all__ = ["EVENT_MODELS", "WebhookEvent", "WebhookVerificationError", "verify_webhook"]

WebhookEvent = (
    WebhookInProgress
    | WebhookCompleted
    | WebhookFailed
    | WebhookExpired
    | WebhookCancelled
    | WebhookErased
    | WebhookReminderSent
    | WebhookResent
    | WebhookReviewed
    | WebhookHouseholdCompleted
)

# The model of each webhook type (the keys of `webhooks` in infra/openapi.yaml).
EVENT_MODELS: dict[str, type[WebhookEvent]] = {
    "verification.in_progress": WebhookInProgress,
    "verification.completed": WebhookCompleted,
    "verification.failed": WebhookFailed,
    "verification.expired": WebhookExpired,
    "verification.cancelled": WebhookCancelled,
    "verification.erased": WebhookErased,
    "verification.reminder_sent": WebhookReminderSent,
    "verification.resent": WebhookResent,
    "verification.reviewed": WebhookReviewed,
    "household.completed": WebhookHouseholdCompleted,
}


def verify_webhook(secret: str, body: bytes | str, headers: Mapping[str, str]) -> WebhookEvent:
    """The event of a signed delivery, as its model.

    `secret` is the account's `whsec_...` secret, `body` the raw request body (as received: the
    signature covers its exact bytes) and `headers` the request's headers (any case). Raises
    `WebhookVerificationError` when the signature or the timestamp does not verify, or when the
    payload is no event of a known type.
    """
    payload = Webhook(secret).verify(body, dict(headers))
    model = EVENT_MODELS.get(payload.get("type")) if isinstance(payload, dict) else None
    if model is None:
        raise WebhookVerificationError("the payload is no webhook event of a known type")
    try:
        return model.from_dict(payload)
    except (KeyError, TypeError, ValueError) as e:
        raise WebhookVerificationError(f"the payload does not match its type's schema ({type(e).__name__})") from e
