from enum import StrEnum


class TenantPageActionBodyAction(StrEnum):
    CONNECT = "connect"
    CONSENT = "consent"
    FINISH = "finish"
    FINISH_DOCUMENTS = "finish_documents"
    NOTE = "note"
    START = "start"
    STATE_PAY = "state_pay"
    SWITCH_METHOD = "switch_method"

    def __str__(self) -> str:
        return str(self.value)
