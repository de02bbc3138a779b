from enum import StrEnum


class UnauthorizedErrorCode(StrEnum):
    API_KEY_REVOKED = "api_key_revoked"
    INVALID_API_KEY = "invalid_api_key"
    INVALID_AUTHORIZATION = "invalid_authorization"
    MISSING_API_KEY = "missing_api_key"

    def __str__(self) -> str:
        return str(self.value)
