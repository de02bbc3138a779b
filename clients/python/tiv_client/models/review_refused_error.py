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

from ..models.review_refused_error_code import ReviewRefusedErrorCode

if TYPE_CHECKING:
    from ..models.field_error import FieldError


T = TypeVar("T", bound="ReviewRefusedError")


@_attrs_define
class ReviewRefusedError:
    """The body of `components.responses.ReviewRefused`.

    Attributes:
        success (Literal[False]):
        error (str): A human-readable message (never echoes keys, tokens, e-mail addresses or phone numbers).
        code (ReviewRefusedErrorCode):
        details (list[FieldError]): Always empty (only a `validation_error` names fields).
        request_id (str): The request id, also sent as `X-Request-Id` and logged.
    """

    success: Literal[False]
    error: str
    code: ReviewRefusedErrorCode
    details: list[FieldError]
    request_id: str

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        error = self.error

        code = self.code.value

        details = []
        for componentsschemas_no_field_errors_item_data in self.details:
            componentsschemas_no_field_errors_item = (
                componentsschemas_no_field_errors_item_data.to_dict()
            )
            details.append(componentsschemas_no_field_errors_item)

        request_id = self.request_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "error": error,
                "code": code,
                "details": details,
                "request_id": request_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field_error import FieldError

        d = dict(src_dict)
        success = cast(Literal[False], d.pop("success"))
        if success != False:
            raise ValueError(f"success must match const False, got '{success}'")

        error = d.pop("error")

        code = ReviewRefusedErrorCode(d.pop("code"))

        details = []
        _details = d.pop("details")
        for componentsschemas_no_field_errors_item_data in _details:
            componentsschemas_no_field_errors_item = FieldError.from_dict(
                componentsschemas_no_field_errors_item_data
            )

            details.append(componentsschemas_no_field_errors_item)

        request_id = d.pop("request_id")

        review_refused_error = cls(
            success=success,
            error=error,
            code=code,
            details=details,
            request_id=request_id,
        )

        return review_refused_error
