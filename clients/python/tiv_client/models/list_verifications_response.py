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
    from ..models.pagination import Pagination
    from ..models.verification_list_item import VerificationListItem


T = TypeVar("T", bound="ListVerificationsResponse")


@_attrs_define
class ListVerificationsResponse:
    """
    Attributes:
        success (Literal[True]):
        data (list[VerificationListItem]):
        pagination (Pagination):
    """

    success: Literal[True]
    data: list[VerificationListItem]
    pagination: Pagination

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        pagination = self.pagination.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "data": data,
                "pagination": pagination,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pagination import Pagination
        from ..models.verification_list_item import VerificationListItem

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = VerificationListItem.from_dict(data_item_data)

            data.append(data_item)

        pagination = Pagination.from_dict(d.pop("pagination"))

        list_verifications_response = cls(
            success=success,
            data=data,
            pagination=pagination,
        )

        return list_verifications_response
