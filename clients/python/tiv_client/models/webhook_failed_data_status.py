from enum import StrEnum


class WebhookFailedDataStatus(StrEnum):
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
