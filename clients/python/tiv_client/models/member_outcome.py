from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.member_role import MemberRole
from ..models.verification_status import VerificationStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemberOutcome")


@_attrs_define
class MemberOutcome:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        role (MemberRole): Applicants' incomes are added up; a guarantor must meet the guarantor rule alone.
        status (VerificationStatus): `expired` also covers cancelled verifications.
        monthly_income (float | Unset): The verified monthly income (completed members only).
    """

    verification_id: UUID
    role: MemberRole
    status: VerificationStatus
    monthly_income: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        role = self.role.value

        status = self.status.value

        monthly_income = self.monthly_income

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "role": role,
                "status": status,
            }
        )
        if monthly_income is not UNSET:
            field_dict["monthly_income"] = monthly_income

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        role = MemberRole(d.pop("role"))

        status = VerificationStatus(d.pop("status"))

        monthly_income = d.pop("monthly_income", UNSET)

        member_outcome = cls(
            verification_id=verification_id,
            role=role,
            status=status,
            monthly_income=monthly_income,
        )

        return member_outcome
