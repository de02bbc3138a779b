from enum import StrEnum


class DocumentCheckResult(StrEnum):
    FAIL = "fail"
    NOT_APPLICABLE = "not_applicable"
    PARTIAL = "partial"
    PASS = "pass"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
