from enum import StrEnum


class ConfidenceFactorFactor(StrEnum):
    DECLINING = "declining"
    DOCUMENTS = "documents"
    EXCLUDED = "excluded"
    FEW_PAYMENTS = "few_payments"
    HISTORY = "history"
    IRREGULAR = "irregular"
    METHOD = "method"
    PROVIDER = "provider"

    def __str__(self) -> str:
        return str(self.value)
