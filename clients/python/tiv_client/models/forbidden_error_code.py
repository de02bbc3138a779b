from enum import StrEnum


class ForbiddenErrorCode(StrEnum):
    PLAN_WITHOUT_API_ACCESS = "plan_without_api_access"
    SUBSCRIPTION_INACTIVE = "subscription_inactive"

    def __str__(self) -> str:
        return str(self.value)
