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
    from ..models.webhook_completed_data import WebhookCompletedData


T = TypeVar("T", bound="WebhookCompleted")


@_attrs_define
class WebhookCompleted:
    """
    Attributes:
        type_ (Literal['verification.completed']):
        timestamp (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        data (WebhookCompletedData):
    """

    type_: Literal["verification.completed"]
    timestamp: datetime.datetime
    data: WebhookCompletedData

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        timestamp = self.timestamp.isoformat()

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "timestamp": timestamp,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_completed_data import WebhookCompletedData

        d = dict(src_dict)
        type_ = cast(Literal["verification.completed"], d.pop("type"))
        if type_ != "verification.completed":
            raise ValueError(
                f"type must match const 'verification.completed', got '{type_}'"
            )

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        data = WebhookCompletedData.from_dict(d.pop("data"))

        webhook_completed = cls(
            type_=type_,
            timestamp=timestamp,
            data=data,
        )

        return webhook_completed
