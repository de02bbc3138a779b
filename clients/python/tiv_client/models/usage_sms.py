from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UsageSms")


@_attrs_define
class UsageSms:
    """Texts to tenants this UTC month against the plan's monthly SMS allowance. They are the account's live texts,
    whichever key asks: test-mode texts are never counted. A text refused because the allowance was used up is not
    counted, and the e-mail still goes.

        Attributes:
            used_this_month (int):
            limit (int): Monthly SMS allowance of the plan.
            remaining (int):
    """

    used_this_month: int
    limit: int
    remaining: int

    def to_dict(self) -> dict[str, Any]:
        used_this_month = self.used_this_month

        limit = self.limit

        remaining = self.remaining

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "used_this_month": used_this_month,
                "limit": limit,
                "remaining": remaining,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        used_this_month = d.pop("used_this_month")

        limit = d.pop("limit")

        remaining = d.pop("remaining")

        usage_sms = cls(
            used_this_month=used_this_month,
            limit=limit,
            remaining=remaining,
        )

        return usage_sms
