from enum import StrEnum


class WebhookCancelledDataStatus(StrEnum):
    EXPIRED = "expired"

    def __str__(self) -> str:
        return str(self.value)
