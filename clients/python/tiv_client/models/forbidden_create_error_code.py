from enum import StrEnum


class ForbiddenCreateErrorCode(StrEnum):
    LIVE_MODE_UNAVAILABLE = "live_mode_unavailable"
    PLAN_WITHOUT_API_ACCESS = "plan_without_api_access"
    SUBSCRIPTION_INACTIVE = "subscription_inactive"
    VERIFICATION_LIMIT_REACHED = "verification_limit_reached"

    def __str__(self) -> str:
        return str(self.value)
