from enum import StrEnum


class IdempotencyKeyInUseErrorCode(StrEnum):
    IDEMPOTENCY_KEY_IN_USE = "idempotency_key_in_use"

    def __str__(self) -> str:
        return str(self.value)
