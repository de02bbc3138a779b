from enum import StrEnum


class BadRequestCancelErrorCode(StrEnum):
    VALIDATION_ERROR = "validation_error"
    VERIFICATION_NOT_CANCELLABLE = "verification_not_cancellable"

    def __str__(self) -> str:
        return str(self.value)
