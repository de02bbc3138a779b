from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.document_review import DocumentReview


T = TypeVar("T", bound="ReviewDocumentsResponseData")


@_attrs_define
class ReviewDocumentsResponseData:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        document_review (DocumentReview): The landlord's review of the documents, as recorded.
    """

    verification_id: UUID
    document_review: DocumentReview

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        document_review = self.document_review.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "document_review": document_review,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.document_review import DocumentReview

        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        document_review = DocumentReview.from_dict(d.pop("document_review"))

        review_documents_response_data = cls(
            verification_id=verification_id,
            document_review=document_review,
        )

        return review_documents_response_data
