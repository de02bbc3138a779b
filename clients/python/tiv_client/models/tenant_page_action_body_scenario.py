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
    PAYROLL_ACTIVE = "payroll_active"
    PAYROLL_GIG = "payroll_gig"
    PAYROLL_TERMINATED = "payroll_terminated"
    SAMEJOB = "samejob"
    TRANSFERS = "transfers"
    VOUCHER = "voucher"

    def __str__(self) -> str:
        return str(self.value)
