from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="AwaitingReview")


@_attrs_define
class AwaitingReview:
    """Present while some documents' income counts only once the landlord accepts them with
    `POST /api/v1/verify/review`: `inconsistent` and `undetermined` documents, and figures the
    tenant typed. The totals and the 3x rule leave them out until then.

        Attributes:
            documents (list[str]): Their names (`Document <n>`), in upload order.
            total_monthly_income_if_accepted (float): What `total_monthly_income` becomes once they are accepted.
    """

    documents: list[str]
    total_monthly_income_if_accepted: float

    def to_dict(self) -> dict[str, Any]:
        documents = self.documents

        total_monthly_income_if_accepted = self.total_monthly_income_if_accepted

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "documents": documents,
                "total_monthly_income_if_accepted": total_monthly_income_if_accepted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        documents = cast(list[str], d.pop("documents"))

        total_monthly_income_if_accepted = d.pop("total_monthly_income_if_accepted")

        awaiting_review = cls(
            documents=documents,
            total_monthly_income_if_accepted=total_monthly_income_if_accepted,
        )

        return awaiting_review
