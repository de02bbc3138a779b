from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.create_household_response_data_members_item import (
        CreateHouseholdResponseDataMembersItem,
    )


T = TypeVar("T", bound="CreateHouseholdResponseData")


@_attrs_define
class CreateHouseholdResponseData:
    """
    Attributes:
        household_id (UUID):
        status (Literal['open']):
        created_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        members (list[CreateHouseholdResponseDataMembersItem]):
    """

    household_id: UUID
    status: Literal["open"]
    created_at: datetime.datetime
    members: list[CreateHouseholdResponseDataMembersItem]

    def to_dict(self) -> dict[str, Any]:
        household_id = str(self.household_id)

        status = self.status

        created_at = self.created_at.isoformat()

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "household_id": household_id,
                "status": status,
                "created_at": created_at,
                "members": members,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_household_response_data_members_item import (
            CreateHouseholdResponseDataMembersItem,
        )

        d = dict(src_dict)
        household_id = UUID(d.pop("household_id"))

        status = cast(Literal["open"], d.pop("status"))
        if status != "open":
            raise ValueError(f"status must match const 'open', got '{status}'")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = CreateHouseholdResponseDataMembersItem.from_dict(
                members_item_data
            )

            members.append(members_item)

        create_household_response_data = cls(
            household_id=household_id,
            status=status,
            created_at=created_at,
            members=members,
        )

        return create_household_response_data
