from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UsageVerifications")


@_attrs_define
class UsageVerifications:
    """Counts for the key's mode (a test key sees its test verifications, which are never charged against the live
    allowance); the month is the UTC calendar month.

        Attributes:
            used_this_month (int):
            limit (int): Monthly verification allowance of the plan.
            remaining (int):
            total_all_time (int):
            completed_this_month (int):
    """

    used_this_month: int
    limit: int
    remaining: int
    total_all_time: int
    completed_this_month: int

    def to_dict(self) -> dict[str, Any]:
        used_this_month = self.used_this_month

        limit = self.limit

        remaining = self.remaining

        total_all_time = self.total_all_time

        completed_this_month = self.completed_this_month

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "used_this_month": used_this_month,
                "limit": limit,
                "remaining": remaining,
                "total_all_time": total_all_time,
                "completed_this_month": completed_this_month,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        used_this_month = d.pop("used_this_month")

        limit = d.pop("limit")

        remaining = d.pop("remaining")

        total_all_time = d.pop("total_all_time")

        completed_this_month = d.pop("completed_this_month")

        usage_verifications = cls(
            used_this_month=used_this_month,
            limit=limit,
            remaining=remaining,
            total_all_time=total_all_time,
            completed_this_month=completed_this_month,
        )

        return usage_verifications
