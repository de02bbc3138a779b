from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.document_review_decision import DocumentReviewDecision

T = TypeVar("T", bound="DocumentReview")


@_attrs_define
class DocumentReview:
    """The landlord's review of the documents, as recorded.

    Attributes:
        decision (DocumentReviewDecision):
        note (str):
        reviewed_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
    """

    decision: DocumentReviewDecision
    note: str
    reviewed_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        note = self.note

        reviewed_at = self.reviewed_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decision": decision,
                "note": note,
                "reviewed_at": reviewed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision = DocumentReviewDecision(d.pop("decision"))

        note = d.pop("note")

        reviewed_at = datetime.datetime.fromisoformat(d.pop("reviewed_at"))

        document_review = cls(
            decision=decision,
            note=note,
            reviewed_at=reviewed_at,
        )

        return document_review
