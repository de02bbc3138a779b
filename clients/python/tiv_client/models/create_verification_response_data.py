from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="CreateVerificationResponseData")


@_attrs_define
class CreateVerificationResponseData:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        verification_url (str): The secure link (`{base}/t/{verification_id}/{token}`); the token (256 bits) is shown
            here and in the e-mail only. A replay carries a fresh token for the same verification.
        tenant_email (str):
        status (Literal['pending']):
        expires_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
    """

    verification_id: UUID
    verification_url: str
    tenant_email: str
    status: Literal["pending"]
    expires_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        verification_url = self.verification_url

        tenant_email = self.tenant_email

        status = self.status

        expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verification_id": verification_id,
                "verification_url": verification_url,
                "tenant_email": tenant_email,
                "status": status,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        verification_url = d.pop("verification_url")

        tenant_email = d.pop("tenant_email")

        status = cast(Literal["pending"], d.pop("status"))
        if status != "pending":
            raise ValueError(f"status must match const 'pending', got '{status}'")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        create_verification_response_data = cls(
            verification_id=verification_id,
            verification_url=verification_url,
            tenant_email=tenant_email,
            status=status,
            expires_at=expires_at,
        )

        return create_verification_response_data
