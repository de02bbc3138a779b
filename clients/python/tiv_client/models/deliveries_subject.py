from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeliveriesSubject")


@_attrs_define
class DeliveriesSubject:
    """Exactly one of the two ids (the server refuses both together).

    Attributes:
        verification_id (UUID | Unset): The verification's id.
        household_id (UUID | Unset): Additive. A household's id, for its own event (`household.completed`).
    """

    verification_id: UUID | Unset = UNSET
    household_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        verification_id: str | Unset = UNSET
        if not isinstance(self.verification_id, Unset):
            verification_id = str(self.verification_id)

        household_id: str | Unset = UNSET
        if not isinstance(self.household_id, Unset):
            household_id = str(self.household_id)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if verification_id is not UNSET:
            field_dict["verification_id"] = verification_id
        if household_id is not UNSET:
            field_dict["household_id"] = household_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _verification_id = d.pop("verification_id", UNSET)
        verification_id: UUID | Unset
        if isinstance(_verification_id, Unset):
            verification_id = UNSET
        else:
            verification_id = UUID(_verification_id)

        _household_id = d.pop("household_id", UNSET)
        household_id: UUID | Unset
        if isinstance(_household_id, Unset):
            household_id = UNSET
        else:
            household_id = UUID(_household_id)

        deliveries_subject = cls(
            verification_id=verification_id,
            household_id=household_id,
        )

        return deliveries_subject
