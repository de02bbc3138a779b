from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UsageApi")


@_attrs_define
class UsageApi:
    """
    Attributes:
        requests_limit (int): API requests per UTC day (the X-RateLimit-Limit header).
        requests_remaining (int): Left today, this request counted (the X-RateLimit-Remaining header).
        resets_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
    """

    requests_limit: int
    requests_remaining: int
    resets_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        requests_limit = self.requests_limit

        requests_remaining = self.requests_remaining

        resets_at = self.resets_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "requests_limit": requests_limit,
                "requests_remaining": requests_remaining,
                "resets_at": resets_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        requests_limit = d.pop("requests_limit")

        requests_remaining = d.pop("requests_remaining")

        resets_at = datetime.datetime.fromisoformat(d.pop("resets_at"))

        usage_api = cls(
            requests_limit=requests_limit,
            requests_remaining=requests_remaining,
            resets_at=resets_at,
        )

        return usage_api
