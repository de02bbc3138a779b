"""Contains all the data models used in inputs/outputs"""

from .affordability import Affordability
from .awaiting_review import AwaitingReview
from .bad_request_cancel_error import BadRequestCancelError
from .bad_request_cancel_error_code import BadRequestCancelErrorCode
from .bad_request_create_error import BadRequestCreateError
from .bad_request_create_error_code import BadRequestCreateErrorCode
from .bad_request_erase_error import BadRequestEraseError
from .bad_request_erase_error_code import BadRequestEraseErrorCode
from .bad_request_query_error import BadRequestQueryError
from .bad_request_query_error_code import BadRequestQueryErrorCode
from .bad_request_resend_error import BadRequestResendError
from .bad_request_resend_error_code import BadRequestResendErrorCode
from .cancel_household_response import CancelHouseholdResponse
from .cancel_household_response_data import CancelHouseholdResponseData
from .cancel_household_response_data_members_item import (
    CancelHouseholdResponseDataMembersItem,
)
from .cancel_household_response_data_members_item_status import (
    CancelHouseholdResponseDataMembersItemStatus,
)
from .cancel_verification_response import CancelVerificationResponse
from .cancel_verification_response_data import CancelVerificationResponseData
from .confidence_factor import ConfidenceFactor
from .confidence_factor_factor import ConfidenceFactorFactor
from .consent import Consent
from .create_household_request import CreateHouseholdRequest
from .create_household_request_members_item import CreateHouseholdRequestMembersItem
from .create_household_response import CreateHouseholdResponse
from .create_household_response_data import CreateHouseholdResponseData
from .create_household_response_data_members_item import (
    CreateHouseholdResponseDataMembersItem,
)
from .create_verification_request import CreateVerificationRequest
from .create_verification_response import CreateVerificationResponse
from .create_verification_response_data import CreateVerificationResponseData
from .deliveries_subject import DeliveriesSubject
from .delivery_error import DeliveryError
from .document_check import DocumentCheck
from .document_check_result import DocumentCheckResult
from .document_review import DocumentReview
from .document_review_decision import DocumentReviewDecision
from .erase_verification_data_response import EraseVerificationDataResponse
from .erase_verification_data_response_data import EraseVerificationDataResponseData
from .error import Error
from .error_code import ErrorCode
from .excluded_source import ExcludedSource
from .excluded_source_reason import ExcludedSourceReason
from .field_error import FieldError
from .field_error_code import FieldErrorCode
from .forbidden_create_error import ForbiddenCreateError
from .forbidden_create_error_code import ForbiddenCreateErrorCode
from .forbidden_error import ForbiddenError
from .forbidden_error_code import ForbiddenErrorCode
from .get_household_response import GetHouseholdResponse
from .get_verification_response import GetVerificationResponse
from .household import Household
from .household_closed_error import HouseholdClosedError
from .household_closed_error_code import HouseholdClosedErrorCode
from .household_decision import HouseholdDecision
from .household_members_item import HouseholdMembersItem
from .household_status import HouseholdStatus
from .idempotency_key_in_use_error import IdempotencyKeyInUseError
from .idempotency_key_in_use_error_code import IdempotencyKeyInUseErrorCode
from .idempotency_key_reused_error import IdempotencyKeyReusedError
from .idempotency_key_reused_error_code import IdempotencyKeyReusedErrorCode
from .income_category import IncomeCategory
from .income_report import IncomeReport
from .income_report_amounts_basis import IncomeReportAmountsBasis
from .income_source import IncomeSource
from .income_source_amounts_basis import IncomeSourceAmountsBasis
from .income_source_reason import IncomeSourceReason
from .internal_server_error import InternalServerError
from .internal_server_error_code import InternalServerErrorCode
from .list_documents_response import ListDocumentsResponse
from .list_documents_response_data import ListDocumentsResponseData
from .list_verifications_response import ListVerificationsResponse
from .list_webhook_deliveries_response import ListWebhookDeliveriesResponse
from .member_outcome import MemberOutcome
from .member_role import MemberRole
from .method_attempt import MethodAttempt
from .method_attempt_outcome import MethodAttemptOutcome
from .method_not_allowed_error import MethodNotAllowedError
from .method_not_allowed_error_code import MethodNotAllowedErrorCode
from .no_webhook_url_error import NoWebhookUrlError
from .no_webhook_url_error_code import NoWebhookUrlErrorCode
from .not_found_error import NotFoundError
from .not_found_error_code import NotFoundErrorCode
from .pagination import Pagination
from .pay_frequency import PayFrequency
from .payload_too_large_error import PayloadTooLargeError
from .payload_too_large_error_code import PayloadTooLargeErrorCode
from .property_ import Property
from .rate_limited_error import RateLimitedError
from .rate_limited_error_code import RateLimitedErrorCode
from .redeliver_webhook_response import RedeliverWebhookResponse
from .redelivered_household_event import RedeliveredHouseholdEvent
from .redelivered_verification_event import RedeliveredVerificationEvent
from .report_document import ReportDocument
from .report_document_kind import ReportDocumentKind
from .report_document_verdict import ReportDocumentVerdict
from .report_not_ready_error import ReportNotReadyError
from .report_not_ready_error_code import ReportNotReadyErrorCode
from .resend_limited_error import ResendLimitedError
from .resend_limited_error_code import ResendLimitedErrorCode
from .resend_verification_response import ResendVerificationResponse
from .resend_verification_response_resends import ResendVerificationResponseResends
from .review_documents_request import ReviewDocumentsRequest
from .review_documents_request_decision import ReviewDocumentsRequestDecision
from .review_documents_response import ReviewDocumentsResponse
from .review_documents_response_data import ReviewDocumentsResponseData
from .review_refused_error import ReviewRefusedError
from .review_refused_error_code import ReviewRefusedErrorCode
from .sighting import Sighting
from .stability import Stability
from .stability_regularity import StabilityRegularity
from .stability_regularity_label import StabilityRegularityLabel
from .stability_trend import StabilityTrend
from .stability_trend_label import StabilityTrendLabel
from .tenant import Tenant
from .tenant_page_action_body import TenantPageActionBody
from .tenant_page_action_body_action import TenantPageActionBodyAction
from .tenant_page_action_body_agree import TenantPageActionBodyAgree
from .tenant_page_action_body_frequency import TenantPageActionBodyFrequency
from .tenant_page_action_body_method import TenantPageActionBodyMethod
from .tenant_page_action_body_more import TenantPageActionBodyMore
from .tenant_page_action_body_scenario import TenantPageActionBodyScenario
from .tenant_sample_document_sample import TenantSampleDocumentSample
from .unauthorized_error import UnauthorizedError
from .unauthorized_error_code import UnauthorizedErrorCode
from .unsupported_media_type_error import UnsupportedMediaTypeError
from .unsupported_media_type_error_code import UnsupportedMediaTypeErrorCode
from .uploaded_document import UploadedDocument
from .uploaded_document_kind import UploadedDocumentKind
from .uploaded_document_state import UploadedDocumentState
from .uploaded_document_verdict import UploadedDocumentVerdict
from .usage import Usage
from .usage_api import UsageApi
from .usage_response import UsageResponse
from .usage_sms import UsageSms
from .usage_subscription import UsageSubscription
from .usage_subscription_status import UsageSubscriptionStatus
from .usage_verifications import UsageVerifications
from .verification import Verification
from .verification_list_item import VerificationListItem
from .verification_method import VerificationMethod
from .verification_method_name import VerificationMethodName
from .verification_status import VerificationStatus
from .webhook_cancelled import WebhookCancelled
from .webhook_cancelled_data import WebhookCancelledData
from .webhook_cancelled_data_status import WebhookCancelledDataStatus
from .webhook_completed import WebhookCompleted
from .webhook_completed_data import WebhookCompletedData
from .webhook_completed_data_status import WebhookCompletedDataStatus
from .webhook_delivery_attempt import WebhookDeliveryAttempt
from .webhook_delivery_attempt_outcome import WebhookDeliveryAttemptOutcome
from .webhook_erased import WebhookErased
from .webhook_erased_data import WebhookErasedData
from .webhook_expired import WebhookExpired
from .webhook_expired_data import WebhookExpiredData
from .webhook_expired_data_status import WebhookExpiredDataStatus
from .webhook_failed import WebhookFailed
from .webhook_failed_data import WebhookFailedData
from .webhook_failed_data_status import WebhookFailedDataStatus
from .webhook_household_completed import WebhookHouseholdCompleted
from .webhook_household_completed_data import WebhookHouseholdCompletedData
from .webhook_in_progress import WebhookInProgress
from .webhook_in_progress_data import WebhookInProgressData
from .webhook_in_progress_data_status import WebhookInProgressDataStatus
from .webhook_reminder_sent import WebhookReminderSent
from .webhook_reminder_sent_data import WebhookReminderSentData
from .webhook_reminder_sent_data_status import WebhookReminderSentDataStatus
from .webhook_resent import WebhookResent
from .webhook_resent_data import WebhookResentData
from .webhook_resent_data_status import WebhookResentDataStatus
from .webhook_reviewed import WebhookReviewed
from .webhook_reviewed_data import WebhookReviewedData
from .webhook_reviewed_data_status import WebhookReviewedDataStatus

__all__ = (
    "Affordability",
    "AwaitingReview",
    "BadRequestCancelError",
    "BadRequestCancelErrorCode",
    "BadRequestCreateError",
    "BadRequestCreateErrorCode",
    "BadRequestEraseError",
    "BadRequestEraseErrorCode",
    "BadRequestQueryError",
    "BadRequestQueryErrorCode",
    "BadRequestResendError",
    "BadRequestResendErrorCode",
    "CancelHouseholdResponse",
    "CancelHouseholdResponseData",
    "CancelHouseholdResponseDataMembersItem",
    "CancelHouseholdResponseDataMembersItemStatus",
    "CancelVerificationResponse",
    "CancelVerificationResponseData",
    "ConfidenceFactor",
    "ConfidenceFactorFactor",
    "Consent",
    "CreateHouseholdRequest",
    "CreateHouseholdRequestMembersItem",
    "CreateHouseholdResponse",
    "CreateHouseholdResponseData",
    "CreateHouseholdResponseDataMembersItem",
    "CreateVerificationRequest",
    "CreateVerificationResponse",
    "CreateVerificationResponseData",
    "DeliveriesSubject",
    "DeliveryError",
    "DocumentCheck",
    "DocumentCheckResult",
    "DocumentReview",
    "DocumentReviewDecision",
    "EraseVerificationDataResponse",
    "EraseVerificationDataResponseData",
    "Error",
    "ErrorCode",
    "ExcludedSource",
    "ExcludedSourceReason",
    "FieldError",
    "FieldErrorCode",
    "ForbiddenCreateError",
    "ForbiddenCreateErrorCode",
    "ForbiddenError",
    "ForbiddenErrorCode",
    "GetHouseholdResponse",
    "GetVerificationResponse",
    "Household",
    "HouseholdClosedError",
    "HouseholdClosedErrorCode",
    "HouseholdDecision",
    "HouseholdMembersItem",
    "HouseholdStatus",
    "IdempotencyKeyInUseError",
    "IdempotencyKeyInUseErrorCode",
    "IdempotencyKeyReusedError",
    "IdempotencyKeyReusedErrorCode",
    "IncomeCategory",
    "IncomeReport",
    "IncomeReportAmountsBasis",
    "IncomeSource",
    "IncomeSourceAmountsBasis",
    "IncomeSourceReason",
    "InternalServerError",
    "InternalServerErrorCode",
    "ListDocumentsResponse",
    "ListDocumentsResponseData",
    "ListVerificationsResponse",
    "ListWebhookDeliveriesResponse",
    "MemberOutcome",
    "MemberRole",
    "MethodAttempt",
    "MethodAttemptOutcome",
    "MethodNotAllowedError",
    "MethodNotAllowedErrorCode",
    "NoWebhookUrlError",
    "NoWebhookUrlErrorCode",
    "NotFoundError",
    "NotFoundErrorCode",
    "Pagination",
    "PayFrequency",
    "PayloadTooLargeError",
    "PayloadTooLargeErrorCode",
    "Property",
    "RateLimitedError",
    "RateLimitedErrorCode",
    "RedeliverWebhookResponse",
    "RedeliveredHouseholdEvent",
    "RedeliveredVerificationEvent",
    "ReportDocument",
    "ReportDocumentKind",
    "ReportDocumentVerdict",
    "ReportNotReadyError",
    "ReportNotReadyErrorCode",
    "ResendLimitedError",
    "ResendLimitedErrorCode",
    "ResendVerificationResponse",
    "ResendVerificationResponseResends",
    "ReviewDocumentsRequest",
    "ReviewDocumentsRequestDecision",
    "ReviewDocumentsResponse",
    "ReviewDocumentsResponseData",
    "ReviewRefusedError",
    "ReviewRefusedErrorCode",
    "Sighting",
    "Stability",
    "StabilityRegularity",
    "StabilityRegularityLabel",
    "StabilityTrend",
    "StabilityTrendLabel",
    "Tenant",
    "TenantPageActionBody",
    "TenantPageActionBodyAction",
    "TenantPageActionBodyAgree",
    "TenantPageActionBodyFrequency",
    "TenantPageActionBodyMethod",
    "TenantPageActionBodyMore",
    "TenantPageActionBodyScenario",
    "TenantSampleDocumentSample",
    "UnauthorizedError",
    "UnauthorizedErrorCode",
    "UnsupportedMediaTypeError",
    "UnsupportedMediaTypeErrorCode",
    "UploadedDocument",
    "UploadedDocumentKind",
    "UploadedDocumentState",
    "UploadedDocumentVerdict",
    "Usage",
    "UsageApi",
    "UsageResponse",
    "UsageSms",
    "UsageSubscription",
    "UsageSubscriptionStatus",
    "UsageVerifications",
    "Verification",
    "VerificationListItem",
    "VerificationMethod",
    "VerificationMethodName",
    "VerificationStatus",
    "WebhookCancelled",
    "WebhookCancelledData",
    "WebhookCancelledDataStatus",
    "WebhookCompleted",
    "WebhookCompletedData",
    "WebhookCompletedDataStatus",
    "WebhookDeliveryAttempt",
    "WebhookDeliveryAttemptOutcome",
    "WebhookErased",
    "WebhookErasedData",
    "WebhookExpired",
    "WebhookExpiredData",
    "WebhookExpiredDataStatus",
    "WebhookFailed",
    "WebhookFailedData",
    "WebhookFailedDataStatus",
    "WebhookHouseholdCompleted",
    "WebhookHouseholdCompletedData",
    "WebhookInProgress",
    "WebhookInProgressData",
    "WebhookInProgressDataStatus",
    "WebhookReminderSent",
    "WebhookReminderSentData",
    "WebhookReminderSentDataStatus",
    "WebhookResent",
    "WebhookResentData",
    "WebhookResentDataStatus",
    "WebhookReviewed",
    "WebhookReviewedData",
    "WebhookReviewedDataStatus",
)
