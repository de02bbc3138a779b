//! The devstack crate's one integration-test binary: the service end to end against moto on
//! loopback, one module per area. `common` holds the harness (moto, the test env and its typed
//! client, receivers).

mod common;

mod api;
mod browser;
mod document_review;
mod documents;
mod dynamo_store;
mod edge;
mod email_round_trips;
mod erasure;
mod events;
mod households;
mod iam;
mod list_and_replay;
mod list_memory;
mod live_allowance;
mod openapi;
mod outbox;
mod outbox_faults;
mod portal;
mod reach_store;
mod reminders;
mod report_voucher;
mod resend;
mod round_trips;
mod sms_bounds;
mod template;
mod webhook_history;
mod webhook_secrets;
mod webhook_targets;
