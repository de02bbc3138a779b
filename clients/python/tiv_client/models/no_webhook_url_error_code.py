from enum import StrEnum


class NoWebhookUrlErrorCode(StrEnum):
    NO_WEBHOOK_URL = "no_webhook_url"

    def __str__(self) -> str:
        return str(self.value)
