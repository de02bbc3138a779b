from enum import StrEnum


class WebhookDeliveryAttemptOutcome(StrEnum):
    DELIVERED = "delivered"
    FAILED = "failed"
    GONE = "gone"
    REFUSED = "refused"

    def __str__(self) -> str:
        return str(self.value)
