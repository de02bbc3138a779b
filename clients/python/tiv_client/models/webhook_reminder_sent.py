from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.webhook_reminder_sent_data import WebhookReminderSentData


T = TypeVar("T", bound="WebhookReminderSent")


@_attrs_define
class WebhookReminderSent:
    """
    Attributes:
        type_ (Literal['verification.reminder_sent']):
        timestamp (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        reminder (str): The reminder point, as time before `expires_at` (`72h`, `24h`).
        data (WebhookReminderSentData):
    """

    type_: Literal["verification.reminder_sent"]
    timestamp: datetime.datetime
    reminder: str
    data: WebhookReminderSentData

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        timestamp = self.timestamp.isoformat()

        reminder = self.reminder

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "timestamp": timestamp,
                "reminder": reminder,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_reminder_sent_data import WebhookReminderSentData

        d = dict(src_dict)
        type_ = cast(Literal["verification.reminder_sent"], d.pop("type"))
        if type_ != "verification.reminder_sent":
            raise ValueError(
                f"type must match const 'verification.reminder_sent', got '{type_}'"
            )

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        reminder = d.pop("reminder")

        data = WebhookReminderSentData.from_dict(d.pop("data"))

        webhook_reminder_sent = cls(
            type_=type_,
            timestamp=timestamp,
            reminder=reminder,
            data=data,
        )

        return webhook_reminder_sent
