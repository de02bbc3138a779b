//! The core of the service: its types and rules (income, the report, keys, webhooks), the
//! analysis of uploaded documents, the enveloped error and JSON reading. No AWS, no HTTP, no
//! async runtime: plain data and pure functions, tested without any SDK.

pub mod account;
pub mod affordability;
pub mod awaiting;
pub mod household;
pub mod income;
pub mod journey;
pub mod metering;
pub mod methods;
pub mod public_view;
pub mod reach;
pub mod report;
pub mod resend;
pub mod retention;
pub mod secrets;
pub mod sms;
pub mod stability;
pub mod tenant_identity;
pub mod tenant_link;
pub mod transition;
pub mod webhook;
pub mod webhook_log;

pub mod documents;
pub mod error;
pub mod json;
pub mod plans;
pub mod redact;
pub mod report_pdf;
pub mod status;
pub mod ts;
pub mod verification;

pub use account::{
    Account, ApiKeyRecord, KeyBurst, MonthStats, OwnerStats, Plan, SubscriptionStatus, api_window,
    api_window_reset, next_month_start, usage_month,
};
pub use transition::{Transition, webhook_event_type};
pub use ts::format_ts;
pub use verification::{
    Mode, NewVerificationInput, Status, TENANT_NOTE_MAX_CHARS, VERIFICATION_LIFETIME, Verification,
};
