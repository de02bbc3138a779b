from enum import StrEnum


class HouseholdClosedErrorCode(StrEnum):
    HOUSEHOLD_CLOSED = "household_closed"

    def __str__(self) -> str:
        return str(self.value)
