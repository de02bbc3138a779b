from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.income_category import IncomeCategory
from ..models.income_source_amounts_basis import IncomeSourceAmountsBasis
from ..models.income_source_reason import IncomeSourceReason
from ..models.pay_frequency import PayFrequency
from ..models.verification_method import VerificationMethod
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sighting import Sighting
    from ..models.stability import Stability


T = TypeVar("T", bound="IncomeSource")


@_attrs_define
class IncomeSource:
    """A counted source, with how its figure was reached.

    Attributes:
        name (str):
        income_category (IncomeCategory): Bank-income vocabulary; providers' unknown categories become OTHER.
            TAX_REFUND,
            TRANSFER_OWN_ACCOUNTS and LOAN are money that is not income: they appear in
            `excluded_sources` only.
        monthly_income (float): An amount in the currency of the rent, in whole cents at most.
        method (VerificationMethod): `bank`: bank-account income through a provider; `payroll`: payroll data;
            `document`: documents.
        basis (str): How `monthly_income` was reached, e.g. "mean of 6 payments in the 90 days to 2026-11-13: 2,400.00
            paid every two weeks".
        twelve_month_average (float): An amount in the currency of the rent, in whole cents at most.
        payment_count (int):
        last_payment_date (datetime.date):
        sightings (list[Sighting]): Every sighting of this income, the one whose amounts make the figure first. A job
            seen
            by payroll and by the bank is one source with two sightings. A pay split across two
            accounts shows both accounts.
        pay_frequency (PayFrequency | Unset): Absent (never null) for sources without a regular pay cycle; the service
            never sends UNKNOWN.
        reason (IncomeSourceReason | Unset): Present when the figure is not simply the 12-month one. `recent_level`: the
            pay of the
            last 90 days differs from the 12-month figure (a raise, a cut, a new job).
            `stated_pay`: the pay the source states. It is the pay rate the provider states when
            one payment was seen, or a benefit award letter's amount in force on `as_of`. An award
            letter states ongoing income, so a gap in payments never ends it.
        stability (Stability | Unset): How steady the income is, from the dated payments the provider reported (absent
            when it
            gave none). `months_observed`: one pay period before the first payment to the last, in
            months. `regularity`: coefficient of variation of the payment amounts or of the days
            between payments, whichever is larger (<= 0.10 regular, <= 0.35 variable, else irregular;
            fewer than 3 payments: insufficient_history). `trend`: the monthly rate of the last three
            months (a whole number of pay periods) against the months before; +-10% or more is
            rising/declining; insufficient_history with less than a month before. Overall: the
            longest months_observed, the latest payment, the income-weighted regularity and the summed
            rates of the sources.
        amounts_basis (IncomeSourceAmountsBasis | Unset): Whether `monthly_income` is after (`net`) or before (`gross`)
            taxes and deductions. Bank deposits are net; payroll and pay stubs give gross.
        net_monthly_income (float | Unset): For a gross source whose net pay the provider states beside it (payroll, pay
            stubs), the same rule over the net pay.
        provider_forecast_monthly_income (float | Unset): The provider's own forecast of this source's monthly income
            (Plaid Check), beside the rules' figure.
        base_monthly_income (float | Unset): A regular source's base pay a month, at its current rate. `monthly_income`
            is
            `base_monthly_income` plus `variable_monthly_income`. Absent for irregular income and
            for awards.
        variable_monthly_income (float | Unset): A regular source's bonus, commission and overtime a month, present with
            `base_monthly_income`. Variable pay recurred when at least 2 pays in the 12 months to
            `as_of` carried some. It is then their monthly average over those 12 months, or over
            the months the source was seen in them. Otherwise it is 0.
    """

    name: str
    income_category: IncomeCategory
    monthly_income: float
    method: VerificationMethod
    basis: str
    twelve_month_average: float
    payment_count: int
    last_payment_date: datetime.date
    sightings: list[Sighting]
    pay_frequency: PayFrequency | Unset = UNSET
    reason: IncomeSourceReason | Unset = UNSET
    stability: Stability | Unset = UNSET
    amounts_basis: IncomeSourceAmountsBasis | Unset = UNSET
    net_monthly_income: float | Unset = UNSET
    provider_forecast_monthly_income: float | Unset = UNSET
    base_monthly_income: float | Unset = UNSET
    variable_monthly_income: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        income_category = self.income_category.value

        monthly_income = self.monthly_income

        method = self.method.value

        basis = self.basis

        twelve_month_average = self.twelve_month_average

        payment_count = self.payment_count

        last_payment_date = self.last_payment_date.isoformat()

        sightings = []
        for sightings_item_data in self.sightings:
            sightings_item = sightings_item_data.to_dict()
            sightings.append(sightings_item)

        pay_frequency: str | Unset = UNSET
        if not isinstance(self.pay_frequency, Unset):
            pay_frequency = self.pay_frequency.value

        reason: str | Unset = UNSET
        if not isinstance(self.reason, Unset):
            reason = self.reason.value

        stability: dict[str, Any] | Unset = UNSET
        if not isinstance(self.stability, Unset):
            stability = self.stability.to_dict()

        amounts_basis: str | Unset = UNSET
        if not isinstance(self.amounts_basis, Unset):
            amounts_basis = self.amounts_basis.value

        net_monthly_income = self.net_monthly_income

        provider_forecast_monthly_income = self.provider_forecast_monthly_income

        base_monthly_income = self.base_monthly_income

        variable_monthly_income = self.variable_monthly_income

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "income_category": income_category,
                "monthly_income": monthly_income,
                "method": method,
                "basis": basis,
                "twelve_month_average": twelve_month_average,
                "payment_count": payment_count,
                "last_payment_date": last_payment_date,
                "sightings": sightings,
            }
        )
        if pay_frequency is not UNSET:
            field_dict["pay_frequency"] = pay_frequency
        if reason is not UNSET:
            field_dict["reason"] = reason
        if stability is not UNSET:
            field_dict["stability"] = stability
        if amounts_basis is not UNSET:
            field_dict["amounts_basis"] = amounts_basis
        if net_monthly_income is not UNSET:
            field_dict["net_monthly_income"] = net_monthly_income
        if provider_forecast_monthly_income is not UNSET:
            field_dict["provider_forecast_monthly_income"] = (
                provider_forecast_monthly_income
            )
        if base_monthly_income is not UNSET:
            field_dict["base_monthly_income"] = base_monthly_income
        if variable_monthly_income is not UNSET:
            field_dict["variable_monthly_income"] = variable_monthly_income

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sighting import Sighting
        from ..models.stability import Stability

        d = dict(src_dict)
        name = d.pop("name")

        income_category = IncomeCategory(d.pop("income_category"))

        monthly_income = d.pop("monthly_income")

        method = VerificationMethod(d.pop("method"))

        basis = d.pop("basis")

        twelve_month_average = d.pop("twelve_month_average")

        payment_count = d.pop("payment_count")

        last_payment_date = datetime.date.fromisoformat(d.pop("last_payment_date"))

        sightings = []
        _sightings = d.pop("sightings")
        for sightings_item_data in _sightings:
            sightings_item = Sighting.from_dict(sightings_item_data)

            sightings.append(sightings_item)

        _pay_frequency = d.pop("pay_frequency", UNSET)
        pay_frequency: PayFrequency | Unset
        if isinstance(_pay_frequency, Unset):
            pay_frequency = UNSET
        else:
            pay_frequency = PayFrequency(_pay_frequency)

        _reason = d.pop("reason", UNSET)
        reason: IncomeSourceReason | Unset
        if isinstance(_reason, Unset):
            reason = UNSET
        else:
            reason = IncomeSourceReason(_reason)

        _stability = d.pop("stability", UNSET)
        stability: Stability | Unset
        if isinstance(_stability, Unset):
            stability = UNSET
        else:
            stability = Stability.from_dict(_stability)

        _amounts_basis = d.pop("amounts_basis", UNSET)
        amounts_basis: IncomeSourceAmountsBasis | Unset
        if isinstance(_amounts_basis, Unset):
            amounts_basis = UNSET
        else:
            amounts_basis = IncomeSourceAmountsBasis(_amounts_basis)

        net_monthly_income = d.pop("net_monthly_income", UNSET)

        provider_forecast_monthly_income = d.pop(
            "provider_forecast_monthly_income", UNSET
        )

        base_monthly_income = d.pop("base_monthly_income", UNSET)

        variable_monthly_income = d.pop("variable_monthly_income", UNSET)

        income_source = cls(
            name=name,
            income_category=income_category,
            monthly_income=monthly_income,
            method=method,
            basis=basis,
            twelve_month_average=twelve_month_average,
            payment_count=payment_count,
            last_payment_date=last_payment_date,
            sightings=sightings,
            pay_frequency=pay_frequency,
            reason=reason,
            stability=stability,
            amounts_basis=amounts_basis,
            net_monthly_income=net_monthly_income,
            provider_forecast_monthly_income=provider_forecast_monthly_income,
            base_monthly_income=base_monthly_income,
            variable_monthly_income=variable_monthly_income,
        )

        return income_source
