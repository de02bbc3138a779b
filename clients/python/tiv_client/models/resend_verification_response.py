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
    from ..models.resend_verification_response_resends import (
        ResendVerificationResponseResends,
    )
    from ..models.verification import Verification


T = TypeVar("T", bound="ResendVerificationResponse")


@_attrs_define
class ResendVerificationResponse:
    """
    Attributes:
        success (Literal[True]):
        message (str):
        data (Verification):
        resends (ResendVerificationResponseResends): The resends of this UTC day, this one included.
    """

    success: Literal[True]
    message: str
    data: Verification
    resends: ResendVerificationResponseResends

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        message = self.message

        data = self.data.to_dict()

        resends = self.resends.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "message": message,
                "data": data,
                "resends": resends,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.resend_verification_response_resends import (
            ResendVerificationResponseResends,
        )
        from ..models.verification import Verification

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        message = d.pop("message")

        data = Verification.from_dict(d.pop("data"))

        resends = ResendVerificationResponseResends.from_dict(d.pop("resends"))

        resend_verification_response = cls(
            success=success,
            message=message,
            data=data,
            resends=resends,
        )

        return resend_verification_response
