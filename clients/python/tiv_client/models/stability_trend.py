from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.stability_trend_label import StabilityTrendLabel

T = TypeVar("T", bound="StabilityTrend")


@_attrs_define
class StabilityTrend:
    """
    Attributes:
        label (StabilityTrendLabel):
        change_percent (float | None):
        recent_monthly_average (float | None):
        earlier_monthly_average (float | None):
    """

    label: StabilityTrendLabel
    change_percent: float | None
    recent_monthly_average: float | None
    earlier_monthly_average: float | None

    def to_dict(self) -> dict[str, Any]:
        label = self.label.value

        change_percent: float | None
        change_percent = self.change_percent

        recent_monthly_average: float | None
        recent_monthly_average = self.recent_monthly_average

        earlier_monthly_average: float | None
        earlier_monthly_average = self.earlier_monthly_average

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "label": label,
                "change_percent": change_percent,
                "recent_monthly_average": recent_monthly_average,
                "earlier_monthly_average": earlier_monthly_average,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        label = StabilityTrendLabel(d.pop("label"))

        def _parse_change_percent(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        change_percent = _parse_change_percent(d.pop("change_percent"))

        def _parse_recent_monthly_average(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        recent_monthly_average = _parse_recent_monthly_average(
            d.pop("recent_monthly_average")
        )

        def _parse_earlier_monthly_average(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        earlier_monthly_average = _parse_earlier_monthly_average(
            d.pop("earlier_monthly_average")
        )

        stability_trend = cls(
            label=label,
            change_percent=change_percent,
            recent_monthly_average=recent_monthly_average,
            earlier_monthly_average=earlier_monthly_average,
        )

        return stability_trend
