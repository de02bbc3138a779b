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
    from ..models.webhook_reviewed_data import WebhookReviewedData


T = TypeVar("T", bound="WebhookReviewed")


@_attrs_define
class WebhookReviewed:
    """
    Attributes:
        type_ (Literal['verification.reviewed']):
        timestamp (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        data (WebhookReviewedData):
    """

    type_: Literal["verification.reviewed"]
    timestamp: datetime.datetime
    data: WebhookReviewedData

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
        from ..models.webhook_reviewed_data import WebhookReviewedData

        d = dict(src_dict)
        type_ = cast(Literal["verification.reviewed"], d.pop("type"))
        if type_ != "verification.reviewed":
            raise ValueError(
                f"type must match const 'verification.reviewed', got '{type_}'"
            )

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        data = WebhookReviewedData.from_dict(d.pop("data"))

        webhook_reviewed = cls(
            type_=type_,
            timestamp=timestamp,
            data=data,
        )

        return webhook_reviewed
