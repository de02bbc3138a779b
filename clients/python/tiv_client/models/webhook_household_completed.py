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
    from ..models.webhook_household_completed_data import WebhookHouseholdCompletedData


T = TypeVar("T", bound="WebhookHouseholdCompleted")


@_attrs_define
class WebhookHouseholdCompleted:
    """
    Attributes:
        type_ (Literal['household.completed']):
        timestamp (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        data (WebhookHouseholdCompletedData):
    """

    type_: Literal["household.completed"]
    timestamp: datetime.datetime
    data: WebhookHouseholdCompletedData

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
        from ..models.webhook_household_completed_data import (
            WebhookHouseholdCompletedData,
        )

        d = dict(src_dict)
        type_ = cast(Literal["household.completed"], d.pop("type"))
        if type_ != "household.completed":
            raise ValueError(
                f"type must match const 'household.completed', got '{type_}'"
            )

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        data = WebhookHouseholdCompletedData.from_dict(d.pop("data"))

        webhook_household_completed = cls(
            type_=type_,
            timestamp=timestamp,
            data=data,
        )

        return webhook_household_completed
