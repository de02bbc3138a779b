//! The shared crate's one integration-test binary: the handlers on the in-memory store and the
//! Plaid and Argyle adapters on their documented responses served on loopback, one module per area. Shared
//! helpers live in `support`.

mod fake_provider;
mod support;

mod argyle;
mod deliver_webhook;
mod document_review;
mod documents;
mod documents_flow;
mod documents_trace;
mod erasure;
mod handlers_api;
mod handlers_resend;
mod households_api;
mod households_cancel;
mod plaid;
mod plaid_check;
mod portal_identity;
mod portal_limits;
mod portal_routing;
mod portal_scanner;
mod portal_second_method;
mod reminders;
mod report_pdf;
