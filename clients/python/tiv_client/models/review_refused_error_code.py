from enum import StrEnum


class ReviewRefusedErrorCode(StrEnum):
    ALREADY_REVIEWED = "already_reviewed"
    NO_DOCUMENTS = "no_documents"
    REPORT_NOT_READY = "report_not_ready"

    def __str__(self) -> str:
        return str(self.value)
