from enum import StrEnum


class ReportDocumentVerdict(StrEnum):
    CLEAN = "clean"
    EDITED = "edited"
    INCONSISTENT = "inconsistent"
    UNDETERMINED = "undetermined"

    def __str__(self) -> str:
        return str(self.value)
