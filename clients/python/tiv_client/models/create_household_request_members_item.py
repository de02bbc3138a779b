from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.member_role import MemberRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateHouseholdRequestMembersItem")


@_attrs_define
class CreateHouseholdRequestMembersItem:
    """
    Attributes:
        tenant_email (str):
        role (MemberRole): Applicants' incomes are added up; a guarantor must meet the guarantor rule alone.
        tenant_name (None | str | Unset):
        tenant_phone (None | str | Unset):
    """

    tenant_email: str
    role: MemberRole
    tenant_name: None | str | Unset = UNSET
    tenant_phone: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tenant_email = self.tenant_email

        role = self.role.value

        tenant_name: None | str | Unset
        if isinstance(self.tenant_name, Unset):
            tenant_name = UNSET
        else:
            tenant_name = self.tenant_name

        tenant_phone: None | str | Unset
        if isinstance(self.tenant_phone, Unset):
            tenant_phone = UNSET
        else:
            tenant_phone = self.tenant_phone

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tenant_email": tenant_email,
                "role": role,
            }
        )
        if tenant_name is not UNSET:
            field_dict["tenant_name"] = tenant_name
        if tenant_phone is not UNSET:
            field_dict["tenant_phone"] = tenant_phone

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tenant_email = d.pop("tenant_email")

        role = MemberRole(d.pop("role"))

        def _parse_tenant_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant_name = _parse_tenant_name(d.pop("tenant_name", UNSET))

        def _parse_tenant_phone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant_phone = _parse_tenant_phone(d.pop("tenant_phone", UNSET))

        create_household_request_members_item = cls(
            tenant_email=tenant_email,
            role=role,
            tenant_name=tenant_name,
            tenant_phone=tenant_phone,
        )

        create_household_request_members_item.additional_properties = d
        return create_household_request_members_item

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
