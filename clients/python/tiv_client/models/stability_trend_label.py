from enum import StrEnum


class StabilityTrendLabel(StrEnum):
    DECLINING = "declining"
    INSUFFICIENT_HISTORY = "insufficient_history"
    RISING = "rising"
    STABLE = "stable"

    def __str__(self) -> str:
        return str(self.value)
