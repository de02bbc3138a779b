from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.redelivered_household_event import RedeliveredHouseholdEvent
    from ..models.redelivered_verification_event import RedeliveredVerificationEvent


T = TypeVar("T", bound="RedeliverWebhookResponse")


@_attrs_define
class RedeliverWebhookResponse:
    """
    Attributes:
        success (Literal[True]):
        message (str):
        data (RedeliveredHouseholdEvent | RedeliveredVerificationEvent): Names the event's verification, or for
            `household.completed` its household.
    """

    success: Literal[True]
    message: str
    data: RedeliveredHouseholdEvent | RedeliveredVerificationEvent

    def to_dict(self) -> dict[str, Any]:
        from ..models.redelivered_verification_event import RedeliveredVerificationEvent

        success = self.success

        message = self.message

        data: dict[str, Any]
        if isinstance(self.data, RedeliveredVerificationEvent):
            data = self.data.to_dict()
        else:
            data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "message": message,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.redelivered_household_event import RedeliveredHouseholdEvent
        from ..models.redelivered_verification_event import RedeliveredVerificationEvent

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        message = d.pop("message")

        def _parse_data(
            data: object,
        ) -> RedeliveredHouseholdEvent | RedeliveredVerificationEvent:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = RedeliveredVerificationEvent.from_dict(data)

                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            data_type_1 = RedeliveredHouseholdEvent.from_dict(data)

            return data_type_1

        data = _parse_data(d.pop("data"))

        redeliver_webhook_response = cls(
            success=success,
            message=message,
            data=data,
        )

        return redeliver_webhook_response
