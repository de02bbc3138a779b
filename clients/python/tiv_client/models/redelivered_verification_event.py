from __future__ import annotations

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

T = TypeVar("T", bound="RedeliveredVerificationEvent")


@_attrs_define
class RedeliveredVerificationEvent:
    """A verification's event, queued again.

    Attributes:
        event_id (str):
        event_type (str):
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        status (Literal['queued']):
    """

    event_id: str
    event_type: str
    verification_id: UUID
    status: Literal["queued"]

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        event_type = self.event_type

        verification_id = str(self.verification_id)

        status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "event_id": event_id,
                "event_type": event_type,
                "verification_id": verification_id,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        event_type = d.pop("event_type")

        verification_id = UUID(d.pop("verification_id"))

        status = cast(Literal["queued"], d.pop("status"))
        if status != "queued":
            raise ValueError(f"status must match const 'queued', got '{status}'")

        redelivered_verification_event = cls(
            event_id=event_id,
            event_type=event_type,
            verification_id=verification_id,
            status=status,
        )

        return redelivered_verification_event
