from enum import StrEnum


class TenantPageActionBodyMore(StrEnum):
    YES = "yes"

    def __str__(self) -> str:
        return str(self.value)
