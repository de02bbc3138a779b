from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.confidence_factor_factor import ConfidenceFactorFactor

T = TypeVar("T", bound="ConfidenceFactor")


@_attrs_define
class ConfidenceFactor:
    """
    Attributes:
        factor (ConfidenceFactorFactor):
        effect (float): The multiplier this factor applied, three decimals.
        detail (str):
    """

    factor: ConfidenceFactorFactor
    effect: float
    detail: str

    def to_dict(self) -> dict[str, Any]:
        factor = self.factor.value

        effect = self.effect

        detail = self.detail

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "factor": factor,
                "effect": effect,
                "detail": detail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        factor = ConfidenceFactorFactor(d.pop("factor"))

        effect = d.pop("effect")

        detail = d.pop("detail")

        confidence_factor = cls(
            factor=factor,
            effect=effect,
            detail=detail,
        )

        return confidence_factor
