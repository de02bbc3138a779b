from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.member_role import MemberRole
from ..models.verification_status import VerificationStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consent import Consent


T = TypeVar("T", bound="VerificationListItem")


@_attrs_define
class VerificationListItem:
    """
    Attributes:
        id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a household
            member, whose id is derived from the household's.
        tenant_email (str): The tenant's e-mail address; empty once the verification's personal data is erased.
        tenant_name (None | str):
        property_address (None | str):
        monthly_rent (float | None):
        status (VerificationStatus): `expired` also covers cancelled verifications.
        created_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        completed_at (datetime.datetime | None):
        consent (Consent | Unset): The tenant's consent to share their income summary, recorded on the page.
        household_id (UUID | Unset):
        role (MemberRole | Unset): Applicants' incomes are added up; a guarantor must meet the guarantor rule alone.
    """

    id: UUID
    tenant_email: str
    tenant_name: None | str
    property_address: None | str
    monthly_rent: float | None
    status: VerificationStatus
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    consent: Consent | Unset = UNSET
    household_id: UUID | Unset = UNSET
    role: MemberRole | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        tenant_email = self.tenant_email

        tenant_name: None | str
        tenant_name = self.tenant_name

        property_address: None | str
        property_address = self.property_address

        monthly_rent: float | None
        monthly_rent = self.monthly_rent

        status = self.status.value

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        consent: dict[str, Any] | Unset = UNSET
        if not isinstance(self.consent, Unset):
            consent = self.consent.to_dict()

        household_id: str | Unset = UNSET
        if not isinstance(self.household_id, Unset):
            household_id = str(self.household_id)

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "tenant_email": tenant_email,
                "tenant_name": tenant_name,
                "property_address": property_address,
                "monthly_rent": monthly_rent,
                "status": status,
                "created_at": created_at,
                "completed_at": completed_at,
            }
        )
        if consent is not UNSET:
            field_dict["consent"] = consent
        if household_id is not UNSET:
            field_dict["household_id"] = household_id
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.consent import Consent

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        tenant_email = d.pop("tenant_email")

        def _parse_tenant_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tenant_name = _parse_tenant_name(d.pop("tenant_name"))

        def _parse_property_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        property_address = _parse_property_address(d.pop("property_address"))

        def _parse_monthly_rent(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        monthly_rent = _parse_monthly_rent(d.pop("monthly_rent"))

        status = VerificationStatus(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
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

        completed_at = _parse_completed_at(d.pop("completed_at"))

        _consent = d.pop("consent", UNSET)
        consent: Consent | Unset
        if isinstance(_consent, Unset):
            consent = UNSET
        else:
            consent = Consent.from_dict(_consent)

        _household_id = d.pop("household_id", UNSET)
        household_id: UUID | Unset
        if isinstance(_household_id, Unset):
            household_id = UNSET
        else:
            household_id = UUID(_household_id)

        _role = d.pop("role", UNSET)
        role: MemberRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = MemberRole(_role)

        verification_list_item = cls(
            id=id,
            tenant_email=tenant_email,
            tenant_name=tenant_name,
            property_address=property_address,
            monthly_rent=monthly_rent,
            status=status,
            created_at=created_at,
            completed_at=completed_at,
            consent=consent,
            household_id=household_id,
            role=role,
        )

        return verification_list_item
