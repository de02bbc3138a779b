from enum import StrEnum


class TenantPageActionBodyAction(StrEnum):
    CONNECT = "connect"
    CONSENT = "consent"
    NOTE = "note"
    START = "start"

    def __str__(self) -> str:
        return str(self.value)
