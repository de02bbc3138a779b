from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.verification_method_name import VerificationMethodName
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateVerificationRequest")


@_attrs_define
class CreateVerificationRequest:
    """
    Attributes:
        tenant_email (str): The tenant's e-mail address (one `@`, a dotted domain of letters, digits, `-` and `.`; no
            spaces, `<`, `>` or `,`). The link is sent here.
        tenant_name (None | str | Unset): The tenant's full name; no control characters (an all-blank name counts as
            absent).
        tenant_phone (None | str | Unset): Digits with optional spaces, `-`, `(`, `)`, `.`, and a leading `+`; 7 to 15
            digits
            (surrounding blanks are trimmed; an all-blank number counts as absent).
            When it is a valid number (read in the service's default region, US, unless it
            starts with `+` and a country code), the invite and the reminders also go by SMS
            (E.164, with "Reply STOP to opt out."). A number that passes this check but is no
            valid number is kept and not texted: the verification and its e-mail go ahead.
            A valid number of a country the service does not text (by default it texts the US
            and Canada only, told apart from the other +1 countries by area code) is refused
            with `validation_error`, code `country_not_allowed`, whose message lists the
            countries. Texts also stop when the plan's monthly SMS allowance is used up; the
            e-mail still goes. Test keys never send an SMS from a deployed stack.
        reminders (bool | None | Unset): Reminders to the tenant (e-mail, and SMS with a usable `tenant_phone`) 72 h and
            24 h
            before `expires_at` while the verification is `pending` or `in_progress`; default
            `true`. `false` turns them off. A boolean only (otherwise 400 `invalid_type`); part
            of the body an `Idempotency-Key` is bound to.
        methods (list[VerificationMethodName] | None | Unset): The methods the tenant may use to prove income, in order
            of preference; a repeat
            counts once. Absent: the account's default set (admin `set-default-methods`), taken
            when the tenant consents and less any method this stack lacks, else every method this
            stack has. A name that is no method is 400 `validation_error` with
            detail code `unknown_method`; a method this stack does not offer for the key's mode
            is detail code `unavailable_method`. Both messages name the methods.
        property_address (None | str | Unset): The property's address; no control characters (an all-blank address
            counts as absent).
        monthly_rent (float | None | Unset): Monthly rent, for the affordability figures of the report.
        rent_subsidy_monthly (float | None | Unset): The part of the monthly rent a voucher or programme pays (Housing
            Choice Voucher,
            state or local subsidy), 0 to `monthly_rent`; needs `monthly_rent` (otherwise 400
            `requires_monthly_rent`; above the rent 400 `out_of_range`). Kept in whole cents. The
            affordability figures apply to the tenant's portion, rent minus subsidy (as
            Washington's RCW 59.18.255 requires and HUD's 2024 screening guidance recommends).
        income_multiple (float | None | Unset): The landlord's income requirement as a multiple of the tenant's portion
            of the rent,
            1 to 5 (default 3; kept to two decimals, e.g. 2.5). Reported in `affordability`.
        webhook_url (None | str | Unset): Where status changes are POSTed (see `webhooks`). Absolute `https` URL with a
            public host
            name or address: no credentials, no private, loopback, link-local, `localhost`,
            `.local`, `.internal` or dot-less hosts, no IPv6 address embedding an IPv4 one
            (IPv4-compatible, NAT64, 6to4, Teredo); checked again after DNS resolution at delivery.
            The local stack (`make dev`) also accepts its own demo receiver
            (`http://127.0.0.1:3001/...`) and nothing else on the machine.
    """

    tenant_email: str
    tenant_name: None | str | Unset = UNSET
    tenant_phone: None | str | Unset = UNSET
    reminders: bool | None | Unset = UNSET
    methods: list[VerificationMethodName] | None | Unset = UNSET
    property_address: None | str | Unset = UNSET
    monthly_rent: float | None | Unset = UNSET
    rent_subsidy_monthly: float | None | Unset = UNSET
    income_multiple: float | None | Unset = UNSET
    webhook_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tenant_email = self.tenant_email

        tenant_name: None | str | Unset
        if isinstance(self.tenant_name, Unset):
            tenant_name = UNSET
        else:
            tenant_name = self.tenant_name

        tenant_phone: None | str | Unset
        if isinstance(self.tenant_phone, Unset):
            tenant_phone = UNSET
        else:
            tenant_phone = self.tenant_phone

        reminders: bool | None | Unset
        if isinstance(self.reminders, Unset):
            reminders = UNSET
        else:
            reminders = self.reminders

        methods: list[str] | None | Unset
        if isinstance(self.methods, Unset):
            methods = UNSET
        elif isinstance(self.methods, list):
            methods = []
            for methods_type_0_item_data in self.methods:
                methods_type_0_item = methods_type_0_item_data.value
                methods.append(methods_type_0_item)

        else:
            methods = self.methods

        property_address: None | str | Unset
        if isinstance(self.property_address, Unset):
            property_address = UNSET
        else:
            property_address = self.property_address

        monthly_rent: float | None | Unset
        if isinstance(self.monthly_rent, Unset):
            monthly_rent = UNSET
        else:
            monthly_rent = self.monthly_rent

        rent_subsidy_monthly: float | None | Unset
        if isinstance(self.rent_subsidy_monthly, Unset):
            rent_subsidy_monthly = UNSET
        else:
            rent_subsidy_monthly = self.rent_subsidy_monthly

        income_multiple: float | None | Unset
        if isinstance(self.income_multiple, Unset):
            income_multiple = UNSET
        else:
            income_multiple = self.income_multiple

        webhook_url: None | str | Unset
        if isinstance(self.webhook_url, Unset):
            webhook_url = UNSET
        else:
            webhook_url = self.webhook_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tenant_email": tenant_email,
            }
        )
        if tenant_name is not UNSET:
            field_dict["tenant_name"] = tenant_name
        if tenant_phone is not UNSET:
            field_dict["tenant_phone"] = tenant_phone
        if reminders is not UNSET:
            field_dict["reminders"] = reminders
        if methods is not UNSET:
            field_dict["methods"] = methods
        if property_address is not UNSET:
            field_dict["property_address"] = property_address
        if monthly_rent is not UNSET:
            field_dict["monthly_rent"] = monthly_rent
        if rent_subsidy_monthly is not UNSET:
            field_dict["rent_subsidy_monthly"] = rent_subsidy_monthly
        if income_multiple is not UNSET:
            field_dict["income_multiple"] = income_multiple
        if webhook_url is not UNSET:
            field_dict["webhook_url"] = webhook_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tenant_email = d.pop("tenant_email")

        def _parse_tenant_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant_name = _parse_tenant_name(d.pop("tenant_name", UNSET))

        def _parse_tenant_phone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant_phone = _parse_tenant_phone(d.pop("tenant_phone", UNSET))

        def _parse_reminders(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        reminders = _parse_reminders(d.pop("reminders", UNSET))

        def _parse_methods(data: object) -> list[VerificationMethodName] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                methods_type_0 = []
                _methods_type_0 = data
                for methods_type_0_item_data in _methods_type_0:
                    methods_type_0_item = VerificationMethodName(
                        methods_type_0_item_data
                    )

                    methods_type_0.append(methods_type_0_item)

                return methods_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[VerificationMethodName] | None | Unset, data)

        methods = _parse_methods(d.pop("methods", UNSET))

        def _parse_property_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        property_address = _parse_property_address(d.pop("property_address", UNSET))

        def _parse_monthly_rent(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        monthly_rent = _parse_monthly_rent(d.pop("monthly_rent", UNSET))

        def _parse_rent_subsidy_monthly(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        rent_subsidy_monthly = _parse_rent_subsidy_monthly(
            d.pop("rent_subsidy_monthly", UNSET)
        )

        def _parse_income_multiple(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        income_multiple = _parse_income_multiple(d.pop("income_multiple", UNSET))

        def _parse_webhook_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url", UNSET))

        create_verification_request = cls(
            tenant_email=tenant_email,
            tenant_name=tenant_name,
            tenant_phone=tenant_phone,
            reminders=reminders,
            methods=methods,
            property_address=property_address,
            monthly_rent=monthly_rent,
            rent_subsidy_monthly=rent_subsidy_monthly,
            income_multiple=income_multiple,
            webhook_url=webhook_url,
        )

        create_verification_request.additional_properties = d
        return create_verification_request

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
