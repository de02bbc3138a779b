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
    from ..models.webhook_in_progress_data import WebhookInProgressData


T = TypeVar("T", bound="WebhookInProgress")


@_attrs_define
class WebhookInProgress:
    """
    Attributes:
        type_ (Literal['verification.in_progress']):
        timestamp (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        data (WebhookInProgressData):
    """

    type_: Literal["verification.in_progress"]
    timestamp: datetime.datetime
    data: WebhookInProgressData

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
        from ..models.webhook_in_progress_data import WebhookInProgressData

        d = dict(src_dict)
        type_ = cast(Literal["verification.in_progress"], d.pop("type"))
        if type_ != "verification.in_progress":
            raise ValueError(
                f"type must match const 'verification.in_progress', got '{type_}'"
            )

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        data = WebhookInProgressData.from_dict(d.pop("data"))

        webhook_in_progress = cls(
            type_=type_,
            timestamp=timestamp,
            data=data,
        )

        return webhook_in_progress
