from __future__ import annotations

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
    from ..models.verification import Verification


T = TypeVar("T", bound="GetVerificationResponse")


@_attrs_define
class GetVerificationResponse:
    """
    Attributes:
        success (Literal[True]):
        data (Verification):
    """

    success: Literal[True]
    data: Verification

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.verification import Verification

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        data = Verification.from_dict(d.pop("data"))

        get_verification_response = cls(
            success=success,
            data=data,
        )

        return get_verification_response
