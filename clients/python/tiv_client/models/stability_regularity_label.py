from enum import StrEnum


class StabilityRegularityLabel(StrEnum):
    INSUFFICIENT_HISTORY = "insufficient_history"
    IRREGULAR = "irregular"
    REGULAR = "regular"
    VARIABLE = "variable"

    def __str__(self) -> str:
        return str(self.value)
