from enum import StrEnum


class IncomeSourceAmountsBasis(StrEnum):
    GROSS = "gross"
    NET = "net"

    def __str__(self) -> str:
        return str(self.value)
