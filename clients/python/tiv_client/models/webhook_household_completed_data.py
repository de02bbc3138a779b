from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.household_decision import HouseholdDecision
    from ..models.property_ import Property


T = TypeVar("T", bound="WebhookHouseholdCompletedData")


@_attrs_define
class WebhookHouseholdCompletedData:
    """
    Attributes:
        household_id (UUID):
        status (Literal['decided']):
        property_ (Property): Once the verification's personal data is erased, `address` is empty and `monthly_rent`
            null.
        decided_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        decision (HouseholdDecision): Exact arithmetic in cents. `applicants_meet_requirement`: the completed
            applicants'
            combined monthly income >= income_multiple x tenant_portion. `guarantor_meets_requirement`:
            one completed guarantor's income >= guarantor_multiple x tenant_portion.
            `meets_requirement` is either, and only with at least one completed applicant (a
            guarantor backs an applicant, it does not replace one; `applicants_meet_requirement` is
            false too without one). Members that did not complete are in `made_without` and count for
            nothing.
    """

    household_id: UUID
    status: Literal["decided"]
    property_: Property
    decided_at: datetime.datetime
    decision: HouseholdDecision

    def to_dict(self) -> dict[str, Any]:
        household_id = str(self.household_id)

        status = self.status

        property_ = self.property_.to_dict()

        decided_at = self.decided_at.isoformat()

        decision = self.decision.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "household_id": household_id,
                "status": status,
                "property": property_,
                "decided_at": decided_at,
                "decision": decision,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.household_decision import HouseholdDecision
        from ..models.property_ import Property

        d = dict(src_dict)
        household_id = UUID(d.pop("household_id"))

        status = cast(Literal["decided"], d.pop("status"))
        if status != "decided":
            raise ValueError(f"status must match const 'decided', got '{status}'")

        property_ = Property.from_dict(d.pop("property"))

        decided_at = datetime.datetime.fromisoformat(d.pop("decided_at"))

        decision = HouseholdDecision.from_dict(d.pop("decision"))

        webhook_household_completed_data = cls(
            household_id=household_id,
            status=status,
            property_=property_,
            decided_at=decided_at,
            decision=decision,
        )

        return webhook_household_completed_data
