from enum import StrEnum


class MemberRole(StrEnum):
    APPLICANT = "applicant"
    GUARANTOR = "guarantor"

    def __str__(self) -> str:
        return str(self.value)
