from enum import StrEnum


class ExcludedSourceReason(StrEnum):
    DUPLICATE = "duplicate"
    ENDED = "ended"
    NOT_INCOME = "not_income"
    NO_PAYMENTS = "no_payments"
    ONE_OFF = "one_off"

    def __str__(self) -> str:
        return str(self.value)
