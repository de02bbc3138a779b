from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.method_attempt_outcome import MethodAttemptOutcome
from ..models.verification_method_name import VerificationMethodName

T = TypeVar("T", bound="MethodAttempt")


@_attrs_define
class MethodAttempt:
    """
    Attributes:
        method (VerificationMethodName): A verification method: `bank` (a bank connection), `payroll` (a payroll
            connection) or `document` (uploaded documents).
        outcome (MethodAttemptOutcome): `succeeded`: the report was made from it; `failed`: the provider refused;
            `no_income`: it found no income that counts; `abandoned`: the tenant left it for another.
        at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
    """

    method: VerificationMethodName
    outcome: MethodAttemptOutcome
    at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        method = self.method.value

        outcome = self.outcome.value

        at = self.at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "method": method,
                "outcome": outcome,
                "at": at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = VerificationMethodName(d.pop("method"))

        outcome = MethodAttemptOutcome(d.pop("outcome"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        method_attempt = cls(
            method=method,
            outcome=outcome,
            at=at,
        )

        return method_attempt
