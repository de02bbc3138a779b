from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.cancel_household_response_data_members_item import (
        CancelHouseholdResponseDataMembersItem,
    )


T = TypeVar("T", bound="CancelHouseholdResponseData")


@_attrs_define
class CancelHouseholdResponseData:
    """
    Attributes:
        household_id (UUID):
        members (list[CancelHouseholdResponseDataMembersItem]):
    """

    household_id: UUID
    members: list[CancelHouseholdResponseDataMembersItem]

    def to_dict(self) -> dict[str, Any]:
        household_id = str(self.household_id)

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "household_id": household_id,
                "members": members,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cancel_household_response_data_members_item import (
            CancelHouseholdResponseDataMembersItem,
        )

        d = dict(src_dict)
        household_id = UUID(d.pop("household_id"))

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = CancelHouseholdResponseDataMembersItem.from_dict(
                members_item_data
            )

            members.append(members_item)

        cancel_household_response_data = cls(
            household_id=household_id,
            members=members,
        )

        return cancel_household_response_data
