from enum import StrEnum


class TenantPageActionBodyAgree(StrEnum):
    YES = "yes"

    def __str__(self) -> str:
        return str(self.value)
