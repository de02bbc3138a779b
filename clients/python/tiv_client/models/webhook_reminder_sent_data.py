from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.member_role import MemberRole
from ..models.verification_method_name import VerificationMethodName
from ..models.webhook_reminder_sent_data_status import WebhookReminderSentDataStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consent import Consent
    from ..models.income_report import IncomeReport
    from ..models.property_ import Property
    from ..models.tenant import Tenant


T = TypeVar("T", bound="WebhookReminderSentData")


@_attrs_define
class WebhookReminderSentData:
    """
    Attributes:
        verification_id (UUID): A lower-case UUID: version 4 (random) for a verification of its own, version 8 for a
            household member, whose id is derived from the household's.
        status (WebhookReminderSentDataStatus): `expired` also covers cancelled verifications.
        tenant (Tenant): Its strings are empty once the verification's personal data is erased (`erased_at`).
        property_ (Property): Once the verification's personal data is erased, `address` is empty and `monthly_rent`
            null.
        created_at (datetime.datetime): RFC 3339 UTC with milliseconds and Z.
        completed_at (datetime.datetime | None):
        income_report (IncomeReport | Unset): Current monthly income, built by one set of income rules from each
            source's dated
            payments (docs/income-report.md). `income_sources` lists the counted sources: their
            `monthly_income` values add up to `total_monthly_income`. Sources seen and not counted
            (a one-off, an ended job, money that is not income) are in `excluded_sources`. Per pay
            period, a month is weekly x 52/12, biweekly x 26/12, semi-monthly x 2, daily x 365/12;
            each source is rounded to cents once and the total is their sum.
        income_multiple (float | Unset): Present when the create request gave one (otherwise the multiple is 3).
        consent (Consent | Unset): The tenant's consent to share their income summary, recorded on the page.
        household_id (UUID | Unset):
        role (MemberRole | Unset): Applicants' incomes are added up; a guarantor must meet the guarantor rule alone.
        methods (list[VerificationMethodName] | Unset): Additive. The methods the create named, in order; for a create
            that named none, the account's default set once the tenant consented (less any method this stack lacks); absent
            otherwise.
        erased_at (datetime.datetime | Unset): RFC 3339 UTC with milliseconds and Z.
    """

    verification_id: UUID
    status: WebhookReminderSentDataStatus
    tenant: Tenant
    property_: Property
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    income_report: IncomeReport | Unset = UNSET
    income_multiple: float | Unset = UNSET
    consent: Consent | Unset = UNSET
    household_id: UUID | Unset = UNSET
    role: MemberRole | Unset = UNSET
    methods: list[VerificationMethodName] | Unset = UNSET
    erased_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        verification_id = str(self.verification_id)

        status = self.status.value

        tenant = self.tenant.to_dict()

        property_ = self.property_.to_dict()

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        income_report: dict[str, Any] | Unset = UNSET
        if not isinstance(self.income_report, Unset):
            income_report = self.income_report.to_dict()

        income_multiple = self.income_multiple

        consent: dict[str, Any] | Unset = UNSET
        if not isinstance(self.consent, Unset):
            consent = self.consent.to_dict()

        household_id: str | Unset = UNSET
        if not isinstance(self.household_id, Unset):
            household_id = str(self.household_id)

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        methods: list[str] | Unset = UNSET
        if not isinstance(self.methods, Unset):
            methods = []
            for methods_item_data in self.methods:
                methods_item = methods_item_data.value
                methods.append(methods_item)

        erased_at: str | Unset = UNSET
        if not isinstance(self.erased_at, Unset):
            erased_at = self.erased_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "verification_id": verification_id,
                "status": status,
                "tenant": tenant,
                "property": property_,
                "created_at": created_at,
                "completed_at": completed_at,
            }
        )
        if income_report is not UNSET:
            field_dict["income_report"] = income_report
        if income_multiple is not UNSET:
            field_dict["income_multiple"] = income_multiple
        if consent is not UNSET:
            field_dict["consent"] = consent
        if household_id is not UNSET:
            field_dict["household_id"] = household_id
        if role is not UNSET:
            field_dict["role"] = role
        if methods is not UNSET:
            field_dict["methods"] = methods
        if erased_at is not UNSET:
            field_dict["erased_at"] = erased_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.consent import Consent
        from ..models.income_report import IncomeReport
        from ..models.property_ import Property
        from ..models.tenant import Tenant

        d = dict(src_dict)
        verification_id = UUID(d.pop("verification_id"))

        status = WebhookReminderSentDataStatus(d.pop("status"))

        tenant = Tenant.from_dict(d.pop("tenant"))

        property_ = Property.from_dict(d.pop("property"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_nullable_timestamp_type_0 = (
                    datetime.datetime.fromisoformat(data)
                )

                return componentsschemas_nullable_timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        _income_report = d.pop("income_report", UNSET)
        income_report: IncomeReport | Unset
        if isinstance(_income_report, Unset):
            income_report = UNSET
        else:
            income_report = IncomeReport.from_dict(_income_report)

        income_multiple = d.pop("income_multiple", UNSET)

        _consent = d.pop("consent", UNSET)
        consent: Consent | Unset
        if isinstance(_consent, Unset):
            consent = UNSET
        else:
            consent = Consent.from_dict(_consent)

        _household_id = d.pop("household_id", UNSET)
        household_id: UUID | Unset
        if isinstance(_household_id, Unset):
            household_id = UNSET
        else:
            household_id = UUID(_household_id)

        _role = d.pop("role", UNSET)
        role: MemberRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = MemberRole(_role)

        _methods = d.pop("methods", UNSET)
        methods: list[VerificationMethodName] | Unset = UNSET
        if _methods is not UNSET:
            methods = []
            for methods_item_data in _methods:
                methods_item = VerificationMethodName(methods_item_data)

                methods.append(methods_item)

        _erased_at = d.pop("erased_at", UNSET)
        erased_at: datetime.datetime | Unset
        if isinstance(_erased_at, Unset):
            erased_at = UNSET
        else:
            erased_at = datetime.datetime.fromisoformat(_erased_at)

        webhook_reminder_sent_data = cls(
            verification_id=verification_id,
            status=status,
            tenant=tenant,
            property_=property_,
            created_at=created_at,
            completed_at=completed_at,
            income_report=income_report,
            income_multiple=income_multiple,
            consent=consent,
            household_id=household_id,
            role=role,
            methods=methods,
            erased_at=erased_at,
        )

        webhook_reminder_sent_data.additional_properties = d
        return webhook_reminder_sent_data

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
