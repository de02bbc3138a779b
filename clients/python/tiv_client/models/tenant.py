from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Tenant")


@_attrs_define
class Tenant:
    """Its strings are empty once the verification's personal data is erased (`erased_at`).

    Attributes:
        email (str): The tenant's e-mail address; empty once erased.
        name (None | str):
    """

    email: str
    name: None | str

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        name: None | str
        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "email": email,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        email = d.pop("email")

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        tenant = cls(
            email=email,
            name=name,
        )

        return tenant
