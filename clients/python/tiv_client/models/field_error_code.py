from enum import StrEnum


class FieldErrorCode(StrEnum):
    APPLICANT_REQUIRED = "applicant_required"
    COUNTRY_NOT_ALLOWED = "country_not_allowed"
    DUPLICATE = "duplicate"
    INVALID = "invalid"
    INVALID_TYPE = "invalid_type"
    OUT_OF_RANGE = "out_of_range"
    REQUIRED = "required"
    REQUIRES_MONTHLY_RENT = "requires_monthly_rent"
    TOO_LONG = "too_long"
    UNAVAILABLE_METHOD = "unavailable_method"
    UNKNOWN_METHOD = "unknown_method"

    def __str__(self) -> str:
        return str(self.value)
