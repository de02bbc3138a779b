from enum import StrEnum


class WebhookReviewedDataStatus(StrEnum):
    COMPLETED = "completed"

    def __str__(self) -> str:
        return str(self.value)
