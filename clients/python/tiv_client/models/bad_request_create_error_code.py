from enum import StrEnum


class BadRequestCreateErrorCode(StrEnum):
    INVALID_JSON = "invalid_json"
    VALIDATION_ERROR = "validation_error"

    def __str__(self) -> str:
        return str(self.value)
