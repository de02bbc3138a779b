from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.verification_method import VerificationMethod

T = TypeVar("T", bound="Sighting")


@_attrs_define
class Sighting:
    """One method's or one account's sighting of an income source.

    Attributes:
        method (VerificationMethod): `bank`: bank-account income through a provider; `payroll`: payroll data;
            `document`: documents.
        name (str): The payer's name as this method gives it.
        payment_count (int): The pays of the source this sighting holds.
    """

    method: VerificationMethod
    name: str
    payment_count: int

    def to_dict(self) -> dict[str, Any]:
        method = self.method.value

        name = self.name

        payment_count = self.payment_count

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "method": method,
                "name": name,
                "payment_count": payment_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = VerificationMethod(d.pop("method"))

        name = d.pop("name")

        payment_count = d.pop("payment_count")

        sighting = cls(
            method=method,
            name=name,
            payment_count=payment_count,
        )

        return sighting
