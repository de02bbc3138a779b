from enum import StrEnum


class BadRequestResendErrorCode(StrEnum):
    VALIDATION_ERROR = "validation_error"
    VERIFICATION_NOT_RESENDABLE = "verification_not_resendable"

    def __str__(self) -> str:
        return str(self.value)
