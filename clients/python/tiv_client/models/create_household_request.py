from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_household_request_members_item import (
        CreateHouseholdRequestMembersItem,
    )


T = TypeVar("T", bound="CreateHouseholdRequest")


@_attrs_define
class CreateHouseholdRequest:
    """
    Attributes:
        monthly_rent (float):
        members (list[CreateHouseholdRequestMembersItem]): Each member's tenant, validated as on POST /api/v1/verify
            (problems named
            `members[i].<field>`). At least one member is an `applicant` (400
            `applicant_required` on `members`); no two members share a `tenant_email` (compared
            without case; 400 `duplicate`).
        property_address (None | str | Unset):
        rent_subsidy_monthly (float | None | Unset): As on POST /api/v1/verify (0 to `monthly_rent`).
        income_multiple (float | None | Unset): The applicants' multiple (default 3) on the tenant's portion.
        guarantor_multiple (float | None | Unset): A guarantor's own income must be at least this many times the
            tenant's portion (default 5).
        webhook_url (None | str | Unset): As on POST /api/v1/verify.
    """

    monthly_rent: float
    members: list[CreateHouseholdRequestMembersItem]
    property_address: None | str | Unset = UNSET
    rent_subsidy_monthly: float | None | Unset = UNSET
    income_multiple: float | None | Unset = UNSET
    guarantor_multiple: float | None | Unset = UNSET
    webhook_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        monthly_rent = self.monthly_rent

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        property_address: None | str | Unset
        if isinstance(self.property_address, Unset):
            property_address = UNSET
        else:
            property_address = self.property_address

        rent_subsidy_monthly: float | None | Unset
        if isinstance(self.rent_subsidy_monthly, Unset):
            rent_subsidy_monthly = UNSET
        else:
            rent_subsidy_monthly = self.rent_subsidy_monthly

        income_multiple: float | None | Unset
        if isinstance(self.income_multiple, Unset):
            income_multiple = UNSET
        else:
            income_multiple = self.income_multiple

        guarantor_multiple: float | None | Unset
        if isinstance(self.guarantor_multiple, Unset):
            guarantor_multiple = UNSET
        else:
            guarantor_multiple = self.guarantor_multiple

        webhook_url: None | str | Unset
        if isinstance(self.webhook_url, Unset):
            webhook_url = UNSET
        else:
            webhook_url = self.webhook_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "monthly_rent": monthly_rent,
                "members": members,
            }
        )
        if property_address is not UNSET:
            field_dict["property_address"] = property_address
        if rent_subsidy_monthly is not UNSET:
            field_dict["rent_subsidy_monthly"] = rent_subsidy_monthly
        if income_multiple is not UNSET:
            field_dict["income_multiple"] = income_multiple
        if guarantor_multiple is not UNSET:
            field_dict["guarantor_multiple"] = guarantor_multiple
        if webhook_url is not UNSET:
            field_dict["webhook_url"] = webhook_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_household_request_members_item import (
            CreateHouseholdRequestMembersItem,
        )

        d = dict(src_dict)
        monthly_rent = d.pop("monthly_rent")

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = CreateHouseholdRequestMembersItem.from_dict(
                members_item_data
            )

            members.append(members_item)

        def _parse_property_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        property_address = _parse_property_address(d.pop("property_address", UNSET))

        def _parse_rent_subsidy_monthly(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        rent_subsidy_monthly = _parse_rent_subsidy_monthly(
            d.pop("rent_subsidy_monthly", UNSET)
        )

        def _parse_income_multiple(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        income_multiple = _parse_income_multiple(d.pop("income_multiple", UNSET))

        def _parse_guarantor_multiple(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        guarantor_multiple = _parse_guarantor_multiple(
            d.pop("guarantor_multiple", UNSET)
        )

        def _parse_webhook_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url", UNSET))

        create_household_request = cls(
            monthly_rent=monthly_rent,
            members=members,
            property_address=property_address,
            rent_subsidy_monthly=rent_subsidy_monthly,
            income_multiple=income_multiple,
            guarantor_multiple=guarantor_multiple,
            webhook_url=webhook_url,
        )

        create_household_request.additional_properties = d
        return create_household_request

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
