from enum import StrEnum


class WebhookCompletedDataStatus(StrEnum):
    COMPLETED = "completed"

    def __str__(self) -> str:
        return str(self.value)
