from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.delivery_error import DeliveryError
from ..models.webhook_delivery_attempt_outcome import WebhookDeliveryAttemptOutcome

T = TypeVar("T", bound="WebhookDeliveryAttempt")


@_attrs_define
class WebhookDeliveryAttempt:
    """
    Attributes:
        event_id (str): The `webhook-id` of the event.
        event_type (str): The event's `type` (`verification.completed`, ...).
        attempt (int): The attempt's number for its queued message (a redelivery starts again at 1).
        attempted_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        outcome (WebhookDeliveryAttemptOutcome): `delivered` (2xx), `failed` (retried later unless `final_attempt`),
            `gone` (410: not retried), `refused` (the URL or its addresses are not allowed: not retried).
        http_status (int | None): The receiver's HTTP status; null when there was no answer.
        error (DeliveryError | None): Why there was no HTTP answer; null when there was one.
        duration_ms (int):
        final_attempt (bool): True on the last failed attempt; the message then went to the dead-letter queue (redeliver
            it with `POST /api/v1/webhooks/redeliver`).
    """

    event_id: str
    event_type: str
    attempt: int
    attempted_at: datetime.datetime
    outcome: WebhookDeliveryAttemptOutcome
    http_status: int | None
    error: DeliveryError | None
    duration_ms: int
    final_attempt: bool

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        event_type = self.event_type

        attempt = self.attempt

        attempted_at = self.attempted_at.isoformat()

        outcome = self.outcome.value

        http_status: int | None
        http_status = self.http_status

        error: None | str
        if isinstance(self.error, DeliveryError):
            error = self.error.value
        else:
            error = self.error

        duration_ms = self.duration_ms

        final_attempt = self.final_attempt

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "event_id": event_id,
                "event_type": event_type,
                "attempt": attempt,
                "attempted_at": attempted_at,
                "outcome": outcome,
                "http_status": http_status,
                "error": error,
                "duration_ms": duration_ms,
                "final_attempt": final_attempt,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        event_type = d.pop("event_type")

        attempt = d.pop("attempt")

        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        outcome = WebhookDeliveryAttemptOutcome(d.pop("outcome"))

        def _parse_http_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        http_status = _parse_http_status(d.pop("http_status"))

        def _parse_error(data: object) -> DeliveryError | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                error_type_0 = DeliveryError(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeliveryError | None, data)

        error = _parse_error(d.pop("error"))

        duration_ms = d.pop("duration_ms")

        final_attempt = d.pop("final_attempt")

        webhook_delivery_attempt = cls(
            event_id=event_id,
            event_type=event_type,
            attempt=attempt,
            attempted_at=attempted_at,
            outcome=outcome,
            http_status=http_status,
            error=error,
            duration_ms=duration_ms,
            final_attempt=final_attempt,
        )

        return webhook_delivery_attempt
