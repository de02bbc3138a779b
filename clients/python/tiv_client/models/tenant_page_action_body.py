from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tenant_page_action_body_action import TenantPageActionBodyAction
from ..models.tenant_page_action_body_agree import TenantPageActionBodyAgree
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
        scenario (TenantPageActionBodyScenario | Unset): Sandbox scenario (test verifications; action=connect).
    """

    action: TenantPageActionBodyAction
    note: str | Unset = UNSET
    agree: TenantPageActionBodyAgree | Unset = UNSET
    scenario: TenantPageActionBodyScenario | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        note = self.note

        agree: str | Unset = UNSET
        if not isinstance(self.agree, Unset):
            agree = self.agree.value

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
