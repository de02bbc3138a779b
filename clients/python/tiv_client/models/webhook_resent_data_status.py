from enum import StrEnum


class WebhookResentDataStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
