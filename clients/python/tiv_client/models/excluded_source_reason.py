from enum import StrEnum


class ExcludedSourceReason(StrEnum):
    DUPLICATE = "duplicate"
    ENDED = "ended"
    INSUFFICIENT_HISTORY = "insufficient_history"
    NOT_INCOME = "not_income"
    NO_PAYMENTS = "no_payments"
    ONE_OFF = "one_off"
    PERSON_TO_PERSON = "person_to_person"
    VARIABLE_PAY_NOT_RECURRING = "variable_pay_not_recurring"

    def __str__(self) -> str:
        return str(self.value)
