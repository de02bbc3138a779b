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
    from ..models.webhook_erased_data import WebhookErasedData


T = TypeVar("T", bound="WebhookErased")


@_attrs_define
class WebhookErased:
    """
    Attributes:
        type_ (Literal['verification.erased']):
        timestamp (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        data (WebhookErasedData):
    """

    type_: Literal["verification.erased"]
    timestamp: datetime.datetime
    data: WebhookErasedData

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
        from ..models.webhook_erased_data import WebhookErasedData

        d = dict(src_dict)
        type_ = cast(Literal["verification.erased"], d.pop("type"))
        if type_ != "verification.erased":
            raise ValueError(
                f"type must match const 'verification.erased', got '{type_}'"
            )

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        data = WebhookErasedData.from_dict(d.pop("data"))

        webhook_erased = cls(
            type_=type_,
            timestamp=timestamp,
            data=data,
        )

        return webhook_erased
