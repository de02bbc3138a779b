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
    from ..models.list_documents_response_data import ListDocumentsResponseData


T = TypeVar("T", bound="ListDocumentsResponse")


@_attrs_define
class ListDocumentsResponse:
    """
    Attributes:
        success (Literal[True]):
        data (ListDocumentsResponseData):
    """

    success: Literal[True]
    data: ListDocumentsResponseData

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
        from ..models.list_documents_response_data import ListDocumentsResponseData

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        data = ListDocumentsResponseData.from_dict(d.pop("data"))

        list_documents_response = cls(
            success=success,
            data=data,
        )

        return list_documents_response
