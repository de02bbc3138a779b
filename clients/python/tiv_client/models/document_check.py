from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.document_check_result import DocumentCheckResult

T = TypeVar("T", bound="DocumentCheck")


@_attrs_define
class DocumentCheck:
    """
    Attributes:
        check (str): The check's name, such as `incremental_updates` or `net_pay_arithmetic` (docs/documents.md).
        result (DocumentCheckResult): `partial`: the values agree in part, such as a name written another way; a person
            should compare them.
        evidence (str): What was compared, and the values found.
    """

    check: str
    result: DocumentCheckResult
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        check = self.check

        result = self.result.value

        evidence = self.evidence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "check": check,
                "result": result,
                "evidence": evidence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        check = d.pop("check")

        result = DocumentCheckResult(d.pop("result"))

        evidence = d.pop("evidence")

        document_check = cls(
            check=check,
            result=result,
            evidence=evidence,
        )

        return document_check
