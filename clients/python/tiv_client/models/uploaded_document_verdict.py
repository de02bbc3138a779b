from enum import StrEnum


class UploadedDocumentVerdict(StrEnum):
    CLEAN = "clean"
    EDITED = "edited"
    UNDETERMINED = "undetermined"

    def __str__(self) -> str:
        return str(self.value)
