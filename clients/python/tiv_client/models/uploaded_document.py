from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.uploaded_document_kind import UploadedDocumentKind
from ..models.uploaded_document_state import UploadedDocumentState
from ..models.uploaded_document_verdict import UploadedDocumentVerdict
from ..types import UNSET, Unset

T = TypeVar("T", bound="UploadedDocument")


@_attrs_define
class UploadedDocument:
    """
    Attributes:
        name (str): `Document <n>`, by upload order.
        state (UploadedDocumentState):
        size (int): Bytes, as the upload's notification stated them.
        uploaded_at (datetime.datetime):
        download_url (str): Downloads the version analysed as an attachment named `document-<n>`; signed for five
            minutes.
        download_expires_at (datetime.datetime):
        kind (UploadedDocumentKind | Unset):
        verdict (UploadedDocumentVerdict | Unset):
        verdict_words (str | Unset):
        refusal (str | Unset): Why the file was not accepted (state `refused`).
        replaced_by (str | Unset): Present when a later upload to the same form replaced this one: that upload's name,
            `Document <n>`.
    """

    name: str
    state: UploadedDocumentState
    size: int
    uploaded_at: datetime.datetime
    download_url: str
    download_expires_at: datetime.datetime
    kind: UploadedDocumentKind | Unset = UNSET
    verdict: UploadedDocumentVerdict | Unset = UNSET
    verdict_words: str | Unset = UNSET
    refusal: str | Unset = UNSET
    replaced_by: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        state = self.state.value

        size = self.size

        uploaded_at = self.uploaded_at.isoformat()

        download_url = self.download_url

        download_expires_at = self.download_expires_at.isoformat()

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        verdict: str | Unset = UNSET
        if not isinstance(self.verdict, Unset):
            verdict = self.verdict.value

        verdict_words = self.verdict_words

        refusal = self.refusal

        replaced_by = self.replaced_by

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "state": state,
                "size": size,
                "uploaded_at": uploaded_at,
                "download_url": download_url,
                "download_expires_at": download_expires_at,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if verdict is not UNSET:
            field_dict["verdict"] = verdict
        if verdict_words is not UNSET:
            field_dict["verdict_words"] = verdict_words
        if refusal is not UNSET:
            field_dict["refusal"] = refusal
        if replaced_by is not UNSET:
            field_dict["replaced_by"] = replaced_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        state = UploadedDocumentState(d.pop("state"))

        size = d.pop("size")

        uploaded_at = datetime.datetime.fromisoformat(d.pop("uploaded_at"))

        download_url = d.pop("download_url")

        download_expires_at = datetime.datetime.fromisoformat(
            d.pop("download_expires_at")
        )

        _kind = d.pop("kind", UNSET)
        kind: UploadedDocumentKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = UploadedDocumentKind(_kind)

        _verdict = d.pop("verdict", UNSET)
        verdict: UploadedDocumentVerdict | Unset
        if isinstance(_verdict, Unset):
            verdict = UNSET
        else:
            verdict = UploadedDocumentVerdict(_verdict)

        verdict_words = d.pop("verdict_words", UNSET)

        refusal = d.pop("refusal", UNSET)

        replaced_by = d.pop("replaced_by", UNSET)

        uploaded_document = cls(
            name=name,
            state=state,
            size=size,
            uploaded_at=uploaded_at,
            download_url=download_url,
            download_expires_at=download_expires_at,
            kind=kind,
            verdict=verdict,
            verdict_words=verdict_words,
            refusal=refusal,
            replaced_by=replaced_by,
        )

        return uploaded_document
