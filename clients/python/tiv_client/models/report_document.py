from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.report_document_kind import ReportDocumentKind
from ..models.report_document_verdict import ReportDocumentVerdict
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.document_check import DocumentCheck


T = TypeVar("T", bound="ReportDocument")


@_attrs_define
class ReportDocument:
    """One uploaded document, its verdict and the checks behind it.

    Attributes:
        name (str): `Document <n>`, by upload order.
        kind (ReportDocumentKind):
        verdict (ReportDocumentVerdict): `edited`: the file's structure shows its content changed after it was made (a
            later
            revision rewriting a page, an editing tool's save, text drawn over the figures);
            `inconsistent`: inconsistencies found, needs review (figures, dates, fonts or the name
            disagree, with the evidence in `checks`); `undetermined`: the document could not be
            checked (`reason` says why); `clean` otherwise.
        counted (bool): Whether its income counts. A `clean` document's counts at once and an `edited` one's
            never; the others', and typed figures, once the landlord accepts them.
        summary (str): The verdict in plain words, with the failed checks or the reason, and the uploads it replaced.
        checks (list[DocumentCheck]):
        reason (str | Unset): Why the verdict is `undetermined`, or why the upload was refused; absent otherwise.
        awaiting_review (bool | Unset): Present when its income counts only once the landlord accepts the documents.
        stated_by_tenant (bool | Unset): Present when the pay date, gross and net pay were typed by the tenant (a photo
            or scan).
        replaced (list[str] | Unset): Present when the tenant posted the same form again: each earlier upload it
            replaced,
            oldest first, as its name and its verdict or refusal, e.g. `Document 1 (signs of
            editing found)`.
        refused (bool | Unset): Present when the upload was refused (not a readable PDF or image, too large, ...):
            never counted, its verdict `undetermined` and `reason` the refusal. Listed so that
            every upload, and what it replaced, stays in the report.
    """

    name: str
    kind: ReportDocumentKind
    verdict: ReportDocumentVerdict
    counted: bool
    summary: str
    checks: list[DocumentCheck]
    reason: str | Unset = UNSET
    awaiting_review: bool | Unset = UNSET
    stated_by_tenant: bool | Unset = UNSET
    replaced: list[str] | Unset = UNSET
    refused: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        kind = self.kind.value

        verdict = self.verdict.value

        counted = self.counted

        summary = self.summary

        checks = []
        for checks_item_data in self.checks:
            checks_item = checks_item_data.to_dict()
            checks.append(checks_item)

        reason = self.reason

        awaiting_review = self.awaiting_review

        stated_by_tenant = self.stated_by_tenant

        replaced: list[str] | Unset = UNSET
        if not isinstance(self.replaced, Unset):
            replaced = self.replaced

        refused = self.refused

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "kind": kind,
                "verdict": verdict,
                "counted": counted,
                "summary": summary,
                "checks": checks,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if awaiting_review is not UNSET:
            field_dict["awaiting_review"] = awaiting_review
        if stated_by_tenant is not UNSET:
            field_dict["stated_by_tenant"] = stated_by_tenant
        if replaced is not UNSET:
            field_dict["replaced"] = replaced
        if refused is not UNSET:
            field_dict["refused"] = refused

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.document_check import DocumentCheck

        d = dict(src_dict)
        name = d.pop("name")

        kind = ReportDocumentKind(d.pop("kind"))

        verdict = ReportDocumentVerdict(d.pop("verdict"))

        counted = d.pop("counted")

        summary = d.pop("summary")

        checks = []
        _checks = d.pop("checks")
        for checks_item_data in _checks:
            checks_item = DocumentCheck.from_dict(checks_item_data)

            checks.append(checks_item)

        reason = d.pop("reason", UNSET)

        awaiting_review = d.pop("awaiting_review", UNSET)

        stated_by_tenant = d.pop("stated_by_tenant", UNSET)

        replaced = cast(list[str], d.pop("replaced", UNSET))

        refused = d.pop("refused", UNSET)

        report_document = cls(
            name=name,
            kind=kind,
            verdict=verdict,
            counted=counted,
            summary=summary,
            checks=checks,
            reason=reason,
            awaiting_review=awaiting_review,
            stated_by_tenant=stated_by_tenant,
            replaced=replaced,
            refused=refused,
        )

        return report_document
