from enum import StrEnum


class UploadedDocumentVerdict(StrEnum):
    CLEAN = "clean"
    EDITED = "edited"
    INCONSISTENT = "inconsistent"
    UNDETERMINED = "undetermined"

    def __str__(self) -> str:
        return str(self.value)
