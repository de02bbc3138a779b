from enum import StrEnum


class ReportNotReadyErrorCode(StrEnum):
    REPORT_NOT_READY = "report_not_ready"

    def __str__(self) -> str:
        return str(self.value)
