from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.stability_regularity import StabilityRegularity
    from ..models.stability_trend import StabilityTrend


T = TypeVar("T", bound="Stability")


@_attrs_define
class Stability:
    """How steady the income is, from the dated payments the provider reported (absent when it
    gave none). `months_observed`: one pay period before the first payment to the last, in
    months. `regularity`: coefficient of variation of the payment amounts or of the days
    between payments, whichever is larger (<= 0.10 regular, <= 0.35 variable, else irregular;
    fewer than 3 payments: insufficient_history). `trend`: the monthly rate of the last three
    months (a whole number of pay periods) against the months before; +-10% or more is
    rising/declining; insufficient_history with less than a month before. Overall: the
    longest months_observed, the latest payment, the income-weighted regularity and the summed
    rates of the sources.

        Attributes:
            months_observed (int):
            last_payment_date (datetime.date):
            regularity (StabilityRegularity):
            trend (StabilityTrend):
    """

    months_observed: int
    last_payment_date: datetime.date
    regularity: StabilityRegularity
    trend: StabilityTrend

    def to_dict(self) -> dict[str, Any]:
        months_observed = self.months_observed

        last_payment_date = self.last_payment_date.isoformat()

        regularity = self.regularity.to_dict()

        trend = self.trend.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "months_observed": months_observed,
                "last_payment_date": last_payment_date,
                "regularity": regularity,
                "trend": trend,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.stability_regularity import StabilityRegularity
        from ..models.stability_trend import StabilityTrend

        d = dict(src_dict)
        months_observed = d.pop("months_observed")

        last_payment_date = datetime.date.fromisoformat(d.pop("last_payment_date"))

        regularity = StabilityRegularity.from_dict(d.pop("regularity"))

        trend = StabilityTrend.from_dict(d.pop("trend"))

        stability = cls(
            months_observed=months_observed,
            last_payment_date=last_payment_date,
            regularity=regularity,
            trend=trend,
        )

        return stability
