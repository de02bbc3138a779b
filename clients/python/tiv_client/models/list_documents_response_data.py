from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.uploaded_document import UploadedDocument


T = TypeVar("T", bound="ListDocumentsResponseData")


@_attrs_define
class ListDocumentsResponseData:
    """
    Attributes:
        verification_id (UUID):
        documents (list[UploadedDocument]):
    """

    verification_id: UUID
    documents: list[UploadedDocument]

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        documents = []
        for documents_item_data in self.documents:
            documents_item = documents_item_data.to_dict()
            documents.append(documents_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "documents": documents,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.uploaded_document import UploadedDocument

        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        documents = []
        _documents = d.pop("documents")
        for documents_item_data in _documents:
            documents_item = UploadedDocument.from_dict(documents_item_data)

            documents.append(documents_item)

        list_documents_response_data = cls(
            verification_id=verification_id,
            documents=documents,
        )

        return list_documents_response_data
