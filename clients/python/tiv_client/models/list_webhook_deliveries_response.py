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
    from ..models.pagination import Pagination
    from ..models.webhook_delivery_attempt import WebhookDeliveryAttempt


T = TypeVar("T", bound="ListWebhookDeliveriesResponse")


@_attrs_define
class ListWebhookDeliveriesResponse:
    """
    Attributes:
        success (Literal[True]):
        data (list[WebhookDeliveryAttempt]):
        pagination (Pagination):
    """

    success: Literal[True]
    data: list[WebhookDeliveryAttempt]
    pagination: Pagination

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        pagination = self.pagination.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "success": success,
                "data": data,
                "pagination": pagination,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pagination import Pagination
        from ..models.webhook_delivery_attempt import WebhookDeliveryAttempt

        d = dict(src_dict)
        success = cast(Literal[True], d.pop("success"))
        if success != True:
            raise ValueError(f"success must match const True, got '{success}'")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = WebhookDeliveryAttempt.from_dict(data_item_data)

            data.append(data_item)

        pagination = Pagination.from_dict(d.pop("pagination"))

        list_webhook_deliveries_response = cls(
            success=success,
            data=data,
            pagination=pagination,
        )

        return list_webhook_deliveries_response
