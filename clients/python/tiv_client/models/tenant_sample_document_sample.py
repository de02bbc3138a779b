from enum import StrEnum


class TenantSampleDocumentSample(StrEnum):
    ANNOTATION = "annotation"
    APPENDED_EDIT = "appended-edit"
    ARITHMETIC = "arithmetic"
    EARLIER = "earlier"
    EDITING_TOOL = "editing-tool"
    GENUINE = "genuine"
    OTHER_FONT = "other-font"
    OTHER_NAME = "other-name"
    SCAN = "scan"
    YEAR_TO_DATE = "year-to-date"

    def __str__(self) -> str:
        return str(self.value)
