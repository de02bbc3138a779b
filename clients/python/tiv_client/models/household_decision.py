from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.member_outcome import MemberOutcome


T = TypeVar("T", bound="HouseholdDecision")


@_attrs_define
class HouseholdDecision:
    """Exact arithmetic in cents. `applicants_meet_requirement`: the completed applicants'
    combined monthly income >= income_multiple x tenant_portion. `guarantor_meets_requirement`:
    one completed guarantor's income >= guarantor_multiple x tenant_portion.
    `meets_requirement` is either, and only with at least one completed applicant (a
    guarantor backs an applicant, it does not replace one; `applicants_meet_requirement` is
    false too without one). Members that did not complete are in `made_without` and count for
    nothing.

        Attributes:
            monthly_rent (float):
            rent_subsidy_monthly (float):
            tenant_portion (float):
            applicants_monthly_income (float):
            income_multiple (float):
            income_required (float):
            applicants_meet_requirement (bool):
            guarantor_multiple (float):
            guarantor_income_required (float):
            guarantor_meets_requirement (bool):
            meets_requirement (bool):
            members (list[MemberOutcome]):
            made_without (list[MemberOutcome]):
            rule (str):
    """

    monthly_rent: float
    rent_subsidy_monthly: float
    tenant_portion: float
    applicants_monthly_income: float
    income_multiple: float
    income_required: float
    applicants_meet_requirement: bool
    guarantor_multiple: float
    guarantor_income_required: float
    guarantor_meets_requirement: bool
    meets_requirement: bool
    members: list[MemberOutcome]
    made_without: list[MemberOutcome]
    rule: str

    def to_dict(self) -> dict[str, Any]:
        monthly_rent = self.monthly_rent

        rent_subsidy_monthly = self.rent_subsidy_monthly

        tenant_portion = self.tenant_portion

        applicants_monthly_income = self.applicants_monthly_income

        income_multiple = self.income_multiple

        income_required = self.income_required

        applicants_meet_requirement = self.applicants_meet_requirement

        guarantor_multiple = self.guarantor_multiple

        guarantor_income_required = self.guarantor_income_required

        guarantor_meets_requirement = self.guarantor_meets_requirement

        meets_requirement = self.meets_requirement

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        made_without = []
        for made_without_item_data in self.made_without:
            made_without_item = made_without_item_data.to_dict()
            made_without.append(made_without_item)

        rule = self.rule

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "monthly_rent": monthly_rent,
                "rent_subsidy_monthly": rent_subsidy_monthly,
                "tenant_portion": tenant_portion,
                "applicants_monthly_income": applicants_monthly_income,
                "income_multiple": income_multiple,
                "income_required": income_required,
                "applicants_meet_requirement": applicants_meet_requirement,
                "guarantor_multiple": guarantor_multiple,
                "guarantor_income_required": guarantor_income_required,
                "guarantor_meets_requirement": guarantor_meets_requirement,
                "meets_requirement": meets_requirement,
                "members": members,
                "made_without": made_without,
                "rule": rule,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.member_outcome import MemberOutcome

        d = dict(src_dict)
        monthly_rent = d.pop("monthly_rent")

        rent_subsidy_monthly = d.pop("rent_subsidy_monthly")

        tenant_portion = d.pop("tenant_portion")

        applicants_monthly_income = d.pop("applicants_monthly_income")

        income_multiple = d.pop("income_multiple")

        income_required = d.pop("income_required")

        applicants_meet_requirement = d.pop("applicants_meet_requirement")

        guarantor_multiple = d.pop("guarantor_multiple")

        guarantor_income_required = d.pop("guarantor_income_required")

        guarantor_meets_requirement = d.pop("guarantor_meets_requirement")

        meets_requirement = d.pop("meets_requirement")

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = MemberOutcome.from_dict(members_item_data)

            members.append(members_item)

        made_without = []
        _made_without = d.pop("made_without")
        for made_without_item_data in _made_without:
            made_without_item = MemberOutcome.from_dict(made_without_item_data)

            made_without.append(made_without_item)

        rule = d.pop("rule")

        household_decision = cls(
            monthly_rent=monthly_rent,
            rent_subsidy_monthly=rent_subsidy_monthly,
            tenant_portion=tenant_portion,
            applicants_monthly_income=applicants_monthly_income,
            income_multiple=income_multiple,
            income_required=income_required,
            applicants_meet_requirement=applicants_meet_requirement,
            guarantor_multiple=guarantor_multiple,
            guarantor_income_required=guarantor_income_required,
            guarantor_meets_requirement=guarantor_meets_requirement,
            meets_requirement=meets_requirement,
            members=members,
            made_without=made_without,
            rule=rule,
        )

        return household_decision
