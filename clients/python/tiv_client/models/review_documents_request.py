from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.review_documents_request_decision import ReviewDocumentsRequestDecision

T = TypeVar("T", bound="ReviewDocumentsRequest")


@_attrs_define
class ReviewDocumentsRequest:
    """
    Attributes:
        decision (ReviewDocumentsRequestDecision): What the landlord decided about the documents.
        note (str): Why, in at most 500 characters with something besides spaces; line breaks and tabs are kept, other
            control characters refused. It is kept trimmed.
    """

    decision: ReviewDocumentsRequestDecision
    note: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        note = self.note

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "note": note,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision = ReviewDocumentsRequestDecision(d.pop("decision"))

        note = d.pop("note")

        review_documents_request = cls(
            decision=decision,
            note=note,
        )

        review_documents_request.additional_properties = d
        return review_documents_request

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
