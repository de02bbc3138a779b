from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Affordability")


@_attrs_define
class Affordability:
    """Present when the verification has a monthly_rent. Exact arithmetic in cents (the multiple
    in hundredths): `meets_requirement` is total_monthly_income >= income_multiple x
    tenant_portion; `income_required` is that product rounded up to the cent.

        Attributes:
            monthly_rent (float): An amount in the currency of the rent, in whole cents at most.
            rent_subsidy_monthly (float): An amount in the currency of the rent, in whole cents at most.
            tenant_portion (float): An amount in the currency of the rent, in whole cents at most.
            income_multiple (float):
            income_required (float): An amount in the currency of the rent, in whole cents at most.
            meets_requirement (bool):
            rule (str): The rule applied, one sentence, e.g. "Income 1,317.00 is at least 2.5 x the tenant's portion 400.00
                (rent 1,400.00 less a subsidy of 1,000.00)."
    """

    monthly_rent: float
    rent_subsidy_monthly: float
    tenant_portion: float
    income_multiple: float
    income_required: float
    meets_requirement: bool
    rule: str

    def to_dict(self) -> dict[str, Any]:
        monthly_rent = self.monthly_rent

        rent_subsidy_monthly = self.rent_subsidy_monthly

        tenant_portion = self.tenant_portion

        income_multiple = self.income_multiple

        income_required = self.income_required

        meets_requirement = self.meets_requirement

        rule = self.rule

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "monthly_rent": monthly_rent,
                "rent_subsidy_monthly": rent_subsidy_monthly,
                "tenant_portion": tenant_portion,
                "income_multiple": income_multiple,
                "income_required": income_required,
                "meets_requirement": meets_requirement,
                "rule": rule,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        monthly_rent = d.pop("monthly_rent")

        rent_subsidy_monthly = d.pop("rent_subsidy_monthly")

        tenant_portion = d.pop("tenant_portion")

        income_multiple = d.pop("income_multiple")

        income_required = d.pop("income_required")

        meets_requirement = d.pop("meets_requirement")

        rule = d.pop("rule")

        affordability = cls(
            monthly_rent=monthly_rent,
            rent_subsidy_monthly=rent_subsidy_monthly,
            tenant_portion=tenant_portion,
            income_multiple=income_multiple,
            income_required=income_required,
            meets_requirement=meets_requirement,
            rule=rule,
        )

        return affordability
