from enum import StrEnum


class IncomeReportAmountsBasis(StrEnum):
    GROSS = "gross"
    NET = "net"

    def __str__(self) -> str:
        return str(self.value)
