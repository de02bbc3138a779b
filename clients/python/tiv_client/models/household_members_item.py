from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.member_role import MemberRole
from ..models.verification_status import VerificationStatus

T = TypeVar("T", bound="HouseholdMembersItem")


@_attrs_define
class HouseholdMembersItem:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        role (MemberRole): Applicants' incomes are added up; a guarantor must meet the guarantor rule alone.
        tenant_email (str):
        tenant_name (None | str):
        status (VerificationStatus): `expired` also covers cancelled verifications.
        completed_at (datetime.datetime | None):
        monthly_income (float | None):
    """

    verification_id: UUID
    role: MemberRole
    tenant_email: str
    tenant_name: None | str
    status: VerificationStatus
    completed_at: datetime.datetime | None
    monthly_income: float | None

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        role = self.role.value

        tenant_email = self.tenant_email

        tenant_name: None | str
        tenant_name = self.tenant_name

        status = self.status.value

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        monthly_income: float | None
        monthly_income = self.monthly_income

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "role": role,
                "tenant_email": tenant_email,
                "tenant_name": tenant_name,
                "status": status,
                "completed_at": completed_at,
                "monthly_income": monthly_income,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        role = MemberRole(d.pop("role"))

        tenant_email = d.pop("tenant_email")

        def _parse_tenant_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tenant_name = _parse_tenant_name(d.pop("tenant_name"))

        status = VerificationStatus(d.pop("status"))

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

        def _parse_monthly_income(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        monthly_income = _parse_monthly_income(d.pop("monthly_income"))

        household_members_item = cls(
            verification_id=verification_id,
            role=role,
            tenant_email=tenant_email,
            tenant_name=tenant_name,
            status=status,
            completed_at=completed_at,
            monthly_income=monthly_income,
        )

        return household_members_item
