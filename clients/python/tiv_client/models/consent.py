from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Consent")


@_attrs_define
class Consent:
    """The tenant's consent to share their income summary, recorded on the page.

    Attributes:
        consented_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        consent_version (str): Version of the consent text the tenant agreed to (e.g. `2026-11-v1`).
    """

    consented_at: datetime.datetime
    consent_version: str

    def to_dict(self) -> dict[str, Any]:
        consented_at = self.consented_at.isoformat()

        consent_version = self.consent_version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "consented_at": consented_at,
                "consent_version": consent_version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        consented_at = datetime.datetime.fromisoformat(d.pop("consented_at"))

        consent_version = d.pop("consent_version")

        consent = cls(
            consented_at=consented_at,
            consent_version=consent_version,
        )

        return consent
