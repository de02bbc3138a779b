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
    from ..models.cancel_verification_response_data import (
        CancelVerificationResponseData,
    )


T = TypeVar("T", bound="CancelVerificationResponse")


@_attrs_define
class CancelVerificationResponse:
    """
    Attributes:
        success (Literal[True]):
        message (str):
        data (CancelVerificationResponseData):
    """

    success: Literal[True]
    message: str
    data: CancelVerificationResponseData

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        message = self.message

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "message": message,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cancel_verification_response_data import (
            CancelVerificationResponseData,
        )

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        message = d.pop("message")

        data = CancelVerificationResponseData.from_dict(d.pop("data"))

        cancel_verification_response = cls(
            success=success,
            message=message,
            data=data,
        )

        return cancel_verification_response
