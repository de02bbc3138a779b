from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.usage_subscription_status import UsageSubscriptionStatus

T = TypeVar("T", bound="UsageSubscription")


@_attrs_define
class UsageSubscription:
    """
    Attributes:
        status (UsageSubscriptionStatus):
        current_period_end (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
    """

    status: UsageSubscriptionStatus
    current_period_end: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        current_period_end = self.current_period_end.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "current_period_end": current_period_end,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = UsageSubscriptionStatus(d.pop("status"))

        current_period_end = datetime.datetime.fromisoformat(
            d.pop("current_period_end")
        )

        usage_subscription = cls(
            status=status,
            current_period_end=current_period_end,
        )

        return usage_subscription
