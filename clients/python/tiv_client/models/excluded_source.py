from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.excluded_source_reason import ExcludedSourceReason
from ..models.income_category import IncomeCategory
from ..models.pay_frequency import PayFrequency
from ..models.verification_method import VerificationMethod
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sighting import Sighting


T = TypeVar("T", bound="ExcludedSource")


@_attrs_define
class ExcludedSource:
    """A source seen in the data and not counted towards the income.

    Attributes:
        name (str):
        income_category (IncomeCategory): Bank-income vocabulary; providers' unknown categories become OTHER.
            TAX_REFUND,
            TRANSFER_OWN_ACCOUNTS and LOAN are money that is not income: they appear in
            `excluded_sources` only.
        method (VerificationMethod): `bank`: bank-account income through a provider; `payroll`: payroll data;
            `document`: documents.
        observed_amount (float): An amount in the currency of the rent, in whole cents at most.
        payment_count (int):
        reason (ExcludedSourceReason): Why the source is not counted:
            - `one_off`: a single payment and no stated recurring pay.
            - `ended`: no payment for more than 1.5 periods of its cadence and 5 days (45 days
              without a cadence), or the employment is stated as ended.
            - `not_income`: a tax refund, a transfer between the tenant's own accounts or loan
              proceeds.
            - `no_payments`: nothing was paid in the data window.
            - `duplicate`: a sighting whose amounts did not make the figure of the counted source
              it belongs to, named in `duplicate_of`. It is the same pay seen by another method or
              account, counted once.
            - `insufficient_history`: irregular money with fewer than 3 payments, or with payments
              in fewer than 2 calendar months, in the 12 months to `as_of`.
            - `person_to_person`: transfers from a person through a payment app, such as Zelle or
              Venmo, without a regular schedule of their own. A regular transfer, such as child
              support paid monthly, counts.
            - `variable_pay_not_recurring`: a single bonus, commission or overtime pay in 12
              months. It is listed beside its source as "<source name>: variable pay", with
              `observed_amount` the variable part. Variable pay counts only when it recurs.
        explanation (str): Why it is not counted, in words shown to the landlord and the tenant.
        pay_frequency (PayFrequency | Unset): Absent (never null) for sources without a regular pay cycle; the service
            never sends UNKNOWN.
        last_payment_date (datetime.date | Unset):
        duplicate_of (str | Unset): For a `duplicate`, the name of the counted source it duplicates.
        sightings (list[Sighting] | Unset): Every sighting of this income, the one the rules assessed first. Present
            only when
            more than one method or account saw it.
    """

    name: str
    income_category: IncomeCategory
    method: VerificationMethod
    observed_amount: float
    payment_count: int
    reason: ExcludedSourceReason
    explanation: str
    pay_frequency: PayFrequency | Unset = UNSET
    last_payment_date: datetime.date | Unset = UNSET
    duplicate_of: str | Unset = UNSET
    sightings: list[Sighting] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        income_category = self.income_category.value

        method = self.method.value

        observed_amount = self.observed_amount

        payment_count = self.payment_count

        reason = self.reason.value

        explanation = self.explanation

        pay_frequency: str | Unset = UNSET
        if not isinstance(self.pay_frequency, Unset):
            pay_frequency = self.pay_frequency.value

        last_payment_date: str | Unset = UNSET
        if not isinstance(self.last_payment_date, Unset):
            last_payment_date = self.last_payment_date.isoformat()

        duplicate_of = self.duplicate_of

        sightings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.sightings, Unset):
            sightings = []
            for sightings_item_data in self.sightings:
                sightings_item = sightings_item_data.to_dict()
                sightings.append(sightings_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "income_category": income_category,
                "method": method,
                "observed_amount": observed_amount,
                "payment_count": payment_count,
                "reason": reason,
                "explanation": explanation,
            }
        )
        if pay_frequency is not UNSET:
            field_dict["pay_frequency"] = pay_frequency
        if last_payment_date is not UNSET:
            field_dict["last_payment_date"] = last_payment_date
        if duplicate_of is not UNSET:
            field_dict["duplicate_of"] = duplicate_of
        if sightings is not UNSET:
            field_dict["sightings"] = sightings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sighting import Sighting

        d = dict(src_dict)
        name = d.pop("name")

        income_category = IncomeCategory(d.pop("income_category"))

        method = VerificationMethod(d.pop("method"))

        observed_amount = d.pop("observed_amount")

        payment_count = d.pop("payment_count")

        reason = ExcludedSourceReason(d.pop("reason"))

        explanation = d.pop("explanation")

        _pay_frequency = d.pop("pay_frequency", UNSET)
        pay_frequency: PayFrequency | Unset
        if isinstance(_pay_frequency, Unset):
            pay_frequency = UNSET
        else:
            pay_frequency = PayFrequency(_pay_frequency)

        _last_payment_date = d.pop("last_payment_date", UNSET)
        last_payment_date: datetime.date | Unset
        if isinstance(_last_payment_date, Unset):
            last_payment_date = UNSET
        else:
            last_payment_date = datetime.date.fromisoformat(_last_payment_date)

        duplicate_of = d.pop("duplicate_of", UNSET)

        _sightings = d.pop("sightings", UNSET)
        sightings: list[Sighting] | Unset = UNSET
        if _sightings is not UNSET:
            sightings = []
            for sightings_item_data in _sightings:
                sightings_item = Sighting.from_dict(sightings_item_data)

                sightings.append(sightings_item)

        excluded_source = cls(
            name=name,
            income_category=income_category,
            method=method,
            observed_amount=observed_amount,
            payment_count=payment_count,
            reason=reason,
            explanation=explanation,
            pay_frequency=pay_frequency,
            last_payment_date=last_payment_date,
            duplicate_of=duplicate_of,
            sightings=sightings,
        )

        return excluded_source
