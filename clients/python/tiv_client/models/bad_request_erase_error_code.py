from enum import StrEnum


class BadRequestEraseErrorCode(StrEnum):
    VALIDATION_ERROR = "validation_error"
    VERIFICATION_NOT_ERASABLE = "verification_not_erasable"

    def __str__(self) -> str:
        return str(self.value)
