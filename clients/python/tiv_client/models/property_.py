from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Property")


@_attrs_define
class Property:
    """Once the verification's personal data is erased, `address` is empty and `monthly_rent` null.

    Attributes:
        address (None | str):
        monthly_rent (float | None):
        rent_subsidy_monthly (float | Unset): Present when the create request gave one.
    """

    address: None | str
    monthly_rent: float | None
    rent_subsidy_monthly: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        address: None | str
        address = self.address

        monthly_rent: float | None
        monthly_rent = self.monthly_rent

        rent_subsidy_monthly = self.rent_subsidy_monthly

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
                "monthly_rent": monthly_rent,
            }
        )
        if rent_subsidy_monthly is not UNSET:
            field_dict["rent_subsidy_monthly"] = rent_subsidy_monthly

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        address = _parse_address(d.pop("address"))

        def _parse_monthly_rent(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        monthly_rent = _parse_monthly_rent(d.pop("monthly_rent"))

        rent_subsidy_monthly = d.pop("rent_subsidy_monthly", UNSET)

        property_ = cls(
            address=address,
            monthly_rent=monthly_rent,
            rent_subsidy_monthly=rent_subsidy_monthly,
        )

        return property_
