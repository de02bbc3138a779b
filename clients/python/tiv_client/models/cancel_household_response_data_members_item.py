from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.cancel_household_response_data_members_item_status import (
    CancelHouseholdResponseDataMembersItemStatus,
)
from ..models.member_role import MemberRole

T = TypeVar("T", bound="CancelHouseholdResponseDataMembersItem")


@_attrs_define
class CancelHouseholdResponseDataMembersItem:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        role (MemberRole): Applicants' incomes are added up; a guarantor must meet the guarantor rule alone.
        status (CancelHouseholdResponseDataMembersItemStatus): `cancelled` when this cancel cancelled it (it was open,
            and its own item was cancelled in the same write); otherwise the final status it already had.
    """

    verification_id: UUID
    role: MemberRole
    status: CancelHouseholdResponseDataMembersItemStatus

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        role = self.role.value

        status = self.status.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "role": role,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        role = MemberRole(d.pop("role"))

        status = CancelHouseholdResponseDataMembersItemStatus(d.pop("status"))

        cancel_household_response_data_members_item = cls(
            verification_id=verification_id,
            role=role,
            status=status,
        )

        return cancel_household_response_data_members_item
