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
    from ..models.review_documents_response_data import ReviewDocumentsResponseData


T = TypeVar("T", bound="ReviewDocumentsResponse")


@_attrs_define
class ReviewDocumentsResponse:
    """
    Attributes:
        success (Literal[True]):
        message (str):
        data (ReviewDocumentsResponseData):
    """

    success: Literal[True]
    message: str
    data: ReviewDocumentsResponseData

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
        from ..models.review_documents_response_data import ReviewDocumentsResponseData

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        message = d.pop("message")

        data = ReviewDocumentsResponseData.from_dict(d.pop("data"))

        review_documents_response = cls(
            success=success,
            message=message,
            data=data,
        )

        return review_documents_response
