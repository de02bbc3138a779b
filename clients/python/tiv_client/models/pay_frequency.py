from enum import StrEnum


class PayFrequency(StrEnum):
    BIWEEKLY = "BIWEEKLY"
    DAILY = "DAILY"
    MONTHLY = "MONTHLY"
    SEMI_MONTHLY = "SEMI_MONTHLY"
    UNKNOWN = "UNKNOWN"
    WEEKLY = "WEEKLY"

    def __str__(self) -> str:
        return str(self.value)
