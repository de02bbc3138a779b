from enum import StrEnum


class TenantPageActionBodyScenario(StrEnum):
    DECLINING = "declining"
    ENDED = "ended"
    FAIL = "fail"
    GIG = "gig"
    GOOD = "good"
    IRREGULAR = "irregular"
    LOWINCOME = "lowincome"
    ONEOFF = "oneoff"
    OUTAGE = "outage"
    TRANSFERS = "transfers"
    VOUCHER = "voucher"

    def __str__(self) -> str:
        return str(self.value)
