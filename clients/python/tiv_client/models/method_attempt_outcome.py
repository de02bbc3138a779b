from enum import StrEnum


class MethodAttemptOutcome(StrEnum):
    ABANDONED = "abandoned"
    FAILED = "failed"
    NO_INCOME = "no_income"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
