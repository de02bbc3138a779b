from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="CancelVerificationResponseData")


@_attrs_define
class CancelVerificationResponseData:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        status (Literal['cancelled']): Only in this response; the verification is stored and read as `expired`.
    """

    verification_id: UUID
    status: Literal["cancelled"]

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        status = cast(Literal["cancelled"], d.pop("status"))
        if status != "cancelled":
            raise ValueError(f"status must match const 'cancelled', got '{status}'")

        cancel_verification_response_data = cls(
            verification_id=verification_id,
            status=status,
        )

        return cancel_verification_response_data
