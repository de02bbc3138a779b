//! One module per Lambda function, named like the function, generic over the ports; `api` holds
//! what every `/api/v1` handler shares, `html` the escaping the tenant page and e-mail share.

pub mod analyze_document;
pub mod api;
pub mod cancel_verification;
pub mod create_verification;
pub mod deliver_webhook;
pub mod erase_verification_data;
pub mod expire_verifications;
pub mod get_report;
pub mod get_usage;
pub mod get_verification;
pub mod household_completed;
pub mod households;
pub mod html;
pub mod list_documents;
pub mod list_verifications;
pub mod list_webhook_deliveries;
pub mod notices;
pub mod outbox;
pub mod outbox_work;
pub mod provider_connection;
pub mod provider_data;
pub mod provider_webhooks;
pub mod publish_events;
pub mod queue_message;
pub mod reach_events;
pub mod redeliver_webhook;
pub mod resend_invite;
pub mod resend_verification;
pub mod retention;
pub mod retry_events;
pub mod review_documents;
pub mod send_reminders;
pub mod tenant_email;
pub mod tenant_portal;
pub mod webhook_archive;
