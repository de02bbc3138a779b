from enum import StrEnum


class UploadedDocumentState(StrEnum):
    ANALYSED = "analysed"
    ANALYSING = "analysing"
    REFUSED = "refused"

    def __str__(self) -> str:
        return str(self.value)
