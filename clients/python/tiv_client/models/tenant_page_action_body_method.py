from enum import StrEnum


class TenantPageActionBodyMethod(StrEnum):
    BANK = "bank"
    DOCUMENT = "document"
    PAYROLL = "payroll"

    def __str__(self) -> str:
        return str(self.value)
