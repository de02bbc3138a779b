from enum import StrEnum


class UploadedDocumentKind(StrEnum):
    BANK_STATEMENT = "bank_statement"
    BENEFIT_LETTER = "benefit_letter"
    PAY_STUB = "pay_stub"
    PHOTO = "photo"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
