from enum import StrEnum


class TenantPageActionBodyFrequency(StrEnum):
    BIWEEKLY = "biweekly"
    MONTHLY = "monthly"
    SEMI_MONTHLY = "semi_monthly"
    WEEKLY = "weekly"

    def __str__(self) -> str:
        return str(self.value)
