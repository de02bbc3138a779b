from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="EraseVerificationDataResponseData")


@_attrs_define
class EraseVerificationDataResponseData:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        erased_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
    """

    verification_id: UUID
    erased_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        erased_at = self.erased_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "erased_at": erased_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        erased_at = datetime.datetime.fromisoformat(d.pop("erased_at"))

        erase_verification_data_response_data = cls(
            verification_id=verification_id,
            erased_at=erased_at,
        )

        return erase_verification_data_response_data
