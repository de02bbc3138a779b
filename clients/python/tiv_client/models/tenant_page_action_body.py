from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tenant_page_action_body_action import TenantPageActionBodyAction
from ..models.tenant_page_action_body_agree import TenantPageActionBodyAgree
from ..models.tenant_page_action_body_frequency import TenantPageActionBodyFrequency
from ..models.tenant_page_action_body_method import TenantPageActionBodyMethod
from ..models.tenant_page_action_body_more import TenantPageActionBodyMore
from ..models.tenant_page_action_body_scenario import TenantPageActionBodyScenario
from ..types import UNSET, Unset

T = TypeVar("T", bound="TenantPageActionBody")


@_attrs_define
class TenantPageActionBody:
    """
    Attributes:
        action (TenantPageActionBodyAction):
        note (str | Unset): The tenant's note to the landlord (action=note, completed verifications only; once): at most
            500 characters once trimmed, with each line break counted once. A browser sends a line break as two characters,
            so up to 1000 may arrive; a longer note is refused with 400 whatever the page's state.
        agree (TenantPageActionBodyAgree | Unset): `yes` when the consent box is ticked (action=consent).
        document (str | Unset): The uploaded document whose figures the tenant typed (action=state_pay).
        pay_date (datetime.date | Unset): The pay date the document shows (action=state_pay).
        gross (str | Unset): The gross pay the document shows, in dollars (action=state_pay).
        net (str | Unset): The net pay the document shows, in dollars (action=state_pay).
        frequency (TenantPageActionBodyFrequency | Unset): How often the tenant is paid (action=state_pay).
        method (TenantPageActionBodyMethod | Unset): The method the tenant switches to, the next of the verification's
            open methods (action=switch_method).
        first_name (str | Unset): The tenant's legal first name (action=consent, when the live provider asks the
            identity).
        last_name (str | Unset): The tenant's legal last name (action=consent, when the live provider asks the
            identity).
        phone (str | Unset): The tenant's mobile number, a US one without a country code (action=consent, when the live
            provider asks the identity).
        date_of_birth (datetime.date | Unset): The tenant's date of birth; 18 or older (action=consent, when the live
            provider asks the identity).
        street (str | Unset): The street line of the tenant's US home address (action=consent, when the live provider
            asks the identity).
        city (str | Unset): The city of the tenant's home address (action=consent, when the live provider asks the
            identity).
        region (str | Unset): The state of the tenant's home address, as two letters (action=consent, when the live
            provider asks the identity).
        postal_code (str | Unset): The ZIP code of the tenant's home address (action=consent, when the live provider
            asks the identity).
        more (TenantPageActionBodyMore | Unset): `yes` when the tenant adds another income source after this connection
            (action=connect).
        scenario (TenantPageActionBodyScenario | Unset): Sandbox scenario (test verifications; action=connect).
    """

    action: TenantPageActionBodyAction
    note: str | Unset = UNSET
    agree: TenantPageActionBodyAgree | Unset = UNSET
    document: str | Unset = UNSET
    pay_date: datetime.date | Unset = UNSET
    gross: str | Unset = UNSET
    net: str | Unset = UNSET
    frequency: TenantPageActionBodyFrequency | Unset = UNSET
    method: TenantPageActionBodyMethod | Unset = UNSET
    first_name: str | Unset = UNSET
    last_name: str | Unset = UNSET
    phone: str | Unset = UNSET
    date_of_birth: datetime.date | Unset = UNSET
    street: str | Unset = UNSET
    city: str | Unset = UNSET
    region: str | Unset = UNSET
    postal_code: str | Unset = UNSET
    more: TenantPageActionBodyMore | Unset = UNSET
    scenario: TenantPageActionBodyScenario | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        note = self.note

        agree: str | Unset = UNSET
        if not isinstance(self.agree, Unset):
            agree = self.agree.value

        document = self.document

        pay_date: str | Unset = UNSET
        if not isinstance(self.pay_date, Unset):
            pay_date = self.pay_date.isoformat()

        gross = self.gross

        net = self.net

        frequency: str | Unset = UNSET
        if not isinstance(self.frequency, Unset):
            frequency = self.frequency.value

        method: str | Unset = UNSET
        if not isinstance(self.method, Unset):
            method = self.method.value

        first_name = self.first_name

        last_name = self.last_name

        phone = self.phone

        date_of_birth: str | Unset = UNSET
        if not isinstance(self.date_of_birth, Unset):
            date_of_birth = self.date_of_birth.isoformat()

        street = self.street

        city = self.city

        region = self.region

        postal_code = self.postal_code

        more: str | Unset = UNSET
        if not isinstance(self.more, Unset):
            more = self.more.value

        scenario: str | Unset = UNSET
        if not isinstance(self.scenario, Unset):
            scenario = self.scenario.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
            }
        )
        if note is not UNSET:
            field_dict["note"] = note
        if agree is not UNSET:
            field_dict["agree"] = agree
        if document is not UNSET:
            field_dict["document"] = document
        if pay_date is not UNSET:
            field_dict["pay_date"] = pay_date
        if gross is not UNSET:
            field_dict["gross"] = gross
        if net is not UNSET:
            field_dict["net"] = net
        if frequency is not UNSET:
            field_dict["frequency"] = frequency
        if method is not UNSET:
            field_dict["method"] = method
        if first_name is not UNSET:
            field_dict["first_name"] = first_name
        if last_name is not UNSET:
            field_dict["last_name"] = last_name
        if phone is not UNSET:
            field_dict["phone"] = phone
        if date_of_birth is not UNSET:
            field_dict["date_of_birth"] = date_of_birth
        if street is not UNSET:
            field_dict["street"] = street
        if city is not UNSET:
            field_dict["city"] = city
        if region is not UNSET:
            field_dict["region"] = region
        if postal_code is not UNSET:
            field_dict["postal_code"] = postal_code
        if more is not UNSET:
            field_dict["more"] = more
        if scenario is not UNSET:
            field_dict["scenario"] = scenario

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = TenantPageActionBodyAction(d.pop("action"))

        note = d.pop("note", UNSET)

        _agree = d.pop("agree", UNSET)
        agree: TenantPageActionBodyAgree | Unset
        if isinstance(_agree, Unset):
            agree = UNSET
        else:
            agree = TenantPageActionBodyAgree(_agree)

        document = d.pop("document", UNSET)

        _pay_date = d.pop("pay_date", UNSET)
        pay_date: datetime.date | Unset
        if isinstance(_pay_date, Unset):
            pay_date = UNSET
        else:
            pay_date = datetime.date.fromisoformat(_pay_date)

        gross = d.pop("gross", UNSET)

        net = d.pop("net", UNSET)

        _frequency = d.pop("frequency", UNSET)
        frequency: TenantPageActionBodyFrequency | Unset
        if isinstance(_frequency, Unset):
            frequency = UNSET
        else:
            frequency = TenantPageActionBodyFrequency(_frequency)

        _method = d.pop("method", UNSET)
        method: TenantPageActionBodyMethod | Unset
        if isinstance(_method, Unset):
            method = UNSET
        else:
            method = TenantPageActionBodyMethod(_method)

        first_name = d.pop("first_name", UNSET)

        last_name = d.pop("last_name", UNSET)

        phone = d.pop("phone", UNSET)

        _date_of_birth = d.pop("date_of_birth", UNSET)
        date_of_birth: datetime.date | Unset
        if isinstance(_date_of_birth, Unset):
            date_of_birth = UNSET
        else:
            date_of_birth = datetime.date.fromisoformat(_date_of_birth)

        street = d.pop("street", UNSET)

        city = d.pop("city", UNSET)

        region = d.pop("region", UNSET)

        postal_code = d.pop("postal_code", UNSET)

        _more = d.pop("more", UNSET)
        more: TenantPageActionBodyMore | Unset
        if isinstance(_more, Unset):
            more = UNSET
        else:
            more = TenantPageActionBodyMore(_more)

        _scenario = d.pop("scenario", UNSET)
        scenario: TenantPageActionBodyScenario | Unset
        if isinstance(_scenario, Unset):
            scenario = UNSET
        else:
            scenario = TenantPageActionBodyScenario(_scenario)

        tenant_page_action_body = cls(
            action=action,
            note=note,
            agree=agree,
            document=document,
            pay_date=pay_date,
            gross=gross,
            net=net,
            frequency=frequency,
            method=method,
            first_name=first_name,
            last_name=last_name,
            phone=phone,
            date_of_birth=date_of_birth,
            street=street,
            city=city,
            region=region,
            postal_code=postal_code,
            more=more,
            scenario=scenario,
        )

        tenant_page_action_body.additional_properties = d
        return tenant_page_action_body

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
