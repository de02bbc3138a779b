from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.household_status import HouseholdStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.household_decision import HouseholdDecision
    from ..models.household_members_item import HouseholdMembersItem
    from ..models.property_ import Property


T = TypeVar("T", bound="Household")


@_attrs_define
class Household:
    """
    Attributes:
        household_id (UUID):
        status (HouseholdStatus):
        property_ (Property): Once the verification's personal data is erased, `address` is empty and `monthly_rent`
            null.
        income_multiple (float | None):
        guarantor_multiple (float | None):
        created_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        members (list[HouseholdMembersItem]):
        open_members (list[UUID]):
        decision (HouseholdDecision | None):
        decided_at (datetime.datetime | None):
        cancelled_at (datetime.datetime | None):
        erased_at (datetime.datetime | None | Unset):
    """

    household_id: UUID
    status: HouseholdStatus
    property_: Property
    income_multiple: float | None
    guarantor_multiple: float | None
    created_at: datetime.datetime
    members: list[HouseholdMembersItem]
    open_members: list[UUID]
    decision: HouseholdDecision | None
    decided_at: datetime.datetime | None
    cancelled_at: datetime.datetime | None
    erased_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.household_decision import HouseholdDecision

        household_id = str(self.household_id)

        status = self.status.value

        property_ = self.property_.to_dict()

        income_multiple: float | None
        income_multiple = self.income_multiple

        guarantor_multiple: float | None
        guarantor_multiple = self.guarantor_multiple

        created_at = self.created_at.isoformat()

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        open_members = []
        for open_members_item_data in self.open_members:
            open_members_item = str(open_members_item_data)
            open_members.append(open_members_item)

        decision: dict[str, Any] | None
        if isinstance(self.decision, HouseholdDecision):
            decision = self.decision.to_dict()
        else:
            decision = self.decision

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        cancelled_at: None | str
        if isinstance(self.cancelled_at, datetime.datetime):
            cancelled_at = self.cancelled_at.isoformat()
        else:
            cancelled_at = self.cancelled_at

        erased_at: None | str | Unset
        if isinstance(self.erased_at, Unset):
            erased_at = UNSET
        elif isinstance(self.erased_at, datetime.datetime):
            erased_at = self.erased_at.isoformat()
        else:
            erased_at = self.erased_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "household_id": household_id,
                "status": status,
                "property": property_,
                "income_multiple": income_multiple,
                "guarantor_multiple": guarantor_multiple,
                "created_at": created_at,
                "members": members,
                "open_members": open_members,
                "decision": decision,
                "decided_at": decided_at,
                "cancelled_at": cancelled_at,
            }
        )
        if erased_at is not UNSET:
            field_dict["erased_at"] = erased_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.household_decision import HouseholdDecision
        from ..models.household_members_item import HouseholdMembersItem
        from ..models.property_ import Property

        d = dict(src_dict)
        household_id = UUID(d.pop("household_id"))

        status = HouseholdStatus(d.pop("status"))

        property_ = Property.from_dict(d.pop("property"))

        def _parse_income_multiple(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        income_multiple = _parse_income_multiple(d.pop("income_multiple"))

        def _parse_guarantor_multiple(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        guarantor_multiple = _parse_guarantor_multiple(d.pop("guarantor_multiple"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = HouseholdMembersItem.from_dict(members_item_data)

            members.append(members_item)

        open_members = []
        _open_members = d.pop("open_members")
        for open_members_item_data in _open_members:
            open_members_item = UUID(open_members_item_data)

            open_members.append(open_members_item)

        def _parse_decision(data: object) -> HouseholdDecision | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                decision_type_0 = HouseholdDecision.from_dict(data)

                return decision_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HouseholdDecision | None, data)

        decision = _parse_decision(d.pop("decision"))

        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_nullable_timestamp_type_0 = (
                    datetime.datetime.fromisoformat(data)
                )

                return componentsschemas_nullable_timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))

        def _parse_cancelled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_nullable_timestamp_type_0 = (
                    datetime.datetime.fromisoformat(data)
                )

                return componentsschemas_nullable_timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        cancelled_at = _parse_cancelled_at(d.pop("cancelled_at"))

        def _parse_erased_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_nullable_timestamp_type_0 = (
                    datetime.datetime.fromisoformat(data)
                )

                return componentsschemas_nullable_timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        erased_at = _parse_erased_at(d.pop("erased_at", UNSET))

        household = cls(
            household_id=household_id,
            status=status,
            property_=property_,
            income_multiple=income_multiple,
            guarantor_multiple=guarantor_multiple,
            created_at=created_at,
            members=members,
            open_members=open_members,
            decision=decision,
            decided_at=decided_at,
            cancelled_at=cancelled_at,
            erased_at=erased_at,
        )

        return household
