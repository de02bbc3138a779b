from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="ResendVerificationResponseResends")


@_attrs_define
class ResendVerificationResponseResends:
    """The resends of this UTC day, this one included.

    Attributes:
        today (int):
        limit (Literal[3]):
        remaining_today (int):
    """

    today: int
    limit: Literal[3]
    remaining_today: int

    def to_dict(self) -> dict[str, Any]:
        today = self.today

        limit = self.limit

        remaining_today = self.remaining_today

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "today": today,
                "limit": limit,
                "remaining_today": remaining_today,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        today = d.pop("today")

        limit = cast(Literal[3], d.pop("limit"))
        if limit != 3:
            raise ValueError(f"limit must match const 3, got '{limit}'")

        remaining_today = d.pop("remaining_today")

        resend_verification_response_resends = cls(
            today=today,
            limit=limit,
            remaining_today=remaining_today,
        )

        return resend_verification_response_resends
