from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.usage_api import UsageApi
    from ..models.usage_sms import UsageSms
    from ..models.usage_subscription import UsageSubscription
    from ..models.usage_verifications import UsageVerifications


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """
    Attributes:
        plan (str): The account's plan (by default `pro` or `business`; plans are configurable).
        verifications (UsageVerifications): Counts for the key's mode (a test key sees its test verifications, which are
            never charged against the live allowance); the month is the UTC calendar month.
        api (UsageApi):
        sms (UsageSms): Texts to tenants this UTC month against the plan's monthly SMS allowance. They are the account's
            live texts, whichever key asks: test-mode texts are never counted. A text refused because the allowance was used
            up is not counted, and the e-mail still goes.
        subscription (UsageSubscription):
    """

    plan: str
    verifications: UsageVerifications
    api: UsageApi
    sms: UsageSms
    subscription: UsageSubscription

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan

        verifications = self.verifications.to_dict()

        api = self.api.to_dict()

        sms = self.sms.to_dict()

        subscription = self.subscription.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "plan": plan,
                "verifications": verifications,
                "api": api,
                "sms": sms,
                "subscription": subscription,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_api import UsageApi
        from ..models.usage_sms import UsageSms
        from ..models.usage_subscription import UsageSubscription
        from ..models.usage_verifications import UsageVerifications

        d = dict(src_dict)
        plan = d.pop("plan")

        verifications = UsageVerifications.from_dict(d.pop("verifications"))

        api = UsageApi.from_dict(d.pop("api"))

        sms = UsageSms.from_dict(d.pop("sms"))

        subscription = UsageSubscription.from_dict(d.pop("subscription"))

        usage = cls(
            plan=plan,
            verifications=verifications,
            api=api,
            sms=sms,
            subscription=subscription,
        )

        return usage
