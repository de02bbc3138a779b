from enum import StrEnum


class WebhookExpiredDataStatus(StrEnum):
    EXPIRED = "expired"

    def __str__(self) -> str:
        return str(self.value)
