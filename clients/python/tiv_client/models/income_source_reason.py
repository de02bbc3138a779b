from enum import StrEnum


class IncomeSourceReason(StrEnum):
    RECENT_LEVEL = "recent_level"
    STATED_PAY = "stated_pay"

    def __str__(self) -> str:
        return str(self.value)
