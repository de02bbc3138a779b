from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.field_error_code import FieldErrorCode

T = TypeVar("T", bound="FieldError")


@_attrs_define
class FieldError:
    """
    Attributes:
        field (str): The body field, query parameter or header at fault (`body` for the body as a whole).
        code (FieldErrorCode):
        message (str):
    """

    field: str
    code: FieldErrorCode
    message: str

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        code = self.code.value

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "field": field,
                "code": code,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        code = FieldErrorCode(d.pop("code"))

        message = d.pop("message")

        field_error = cls(
            field=field,
            code=code,
            message=message,
        )

        return field_error
