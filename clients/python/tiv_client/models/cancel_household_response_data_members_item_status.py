from enum import StrEnum


class CancelHouseholdResponseDataMembersItemStatus(StrEnum):
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    EXPIRED = "expired"
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
