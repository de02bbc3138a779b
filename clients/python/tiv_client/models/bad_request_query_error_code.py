from enum import StrEnum


class BadRequestQueryErrorCode(StrEnum):
    VALIDATION_ERROR = "validation_error"

    def __str__(self) -> str:
        return str(self.value)
