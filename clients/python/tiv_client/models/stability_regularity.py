from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.stability_regularity_label import StabilityRegularityLabel

T = TypeVar("T", bound="StabilityRegularity")


@_attrs_define
class StabilityRegularity:
    """
    Attributes:
        label (StabilityRegularityLabel):
        coefficient_of_variation (float | None):
    """

    label: StabilityRegularityLabel
    coefficient_of_variation: float | None

    def to_dict(self) -> dict[str, Any]:
        label = self.label.value

        coefficient_of_variation: float | None
        coefficient_of_variation = self.coefficient_of_variation

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "label": label,
                "coefficient_of_variation": coefficient_of_variation,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        label = StabilityRegularityLabel(d.pop("label"))

        def _parse_coefficient_of_variation(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        coefficient_of_variation = _parse_coefficient_of_variation(
            d.pop("coefficient_of_variation")
        )

        stability_regularity = cls(
            label=label,
            coefficient_of_variation=coefficient_of_variation,
        )

        return stability_regularity
