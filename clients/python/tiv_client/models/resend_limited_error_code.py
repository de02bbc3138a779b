from enum import StrEnum


class ResendLimitedErrorCode(StrEnum):
    RATE_LIMIT_EXCEEDED = "rate_limit_exceeded"
    RESEND_LIMIT_REACHED = "resend_limit_reached"

    def __str__(self) -> str:
        return str(self.value)
