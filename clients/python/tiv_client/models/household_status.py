from enum import StrEnum


class HouseholdStatus(StrEnum):
    CANCELLED = "cancelled"
    CLOSED = "closed"
    DECIDED = "decided"
    OPEN = "open"

    def __str__(self) -> str:
        return str(self.value)
