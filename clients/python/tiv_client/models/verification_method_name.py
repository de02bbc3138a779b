from enum import StrEnum


class VerificationMethodName(StrEnum):
    BANK = "bank"
    DOCUMENT = "document"
    PAYROLL = "payroll"

    def __str__(self) -> str:
        return str(self.value)
