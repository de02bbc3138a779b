//! Argyle payroll adapter of the `IncomeProvider` port: gross and net pay straight from the
//! tenant's payroll system (`verification_method: "payroll"`).
//!
//! The flow, on Argyle's API v2 (docs.argyle.com/api-reference, HTTP Basic with the API key id
//! and secret):
//!
//! 1. `create_user` (at the tenant's consent): `POST /v2/users` with only `external_id` (the
//!    verification id plus a random suffix, never personal data). The stored handle is the Argyle
//!    user id alone: the user token in that answer is short-lived and is not kept.
//! 2. `begin` (every connect page): `POST /v2/user-tokens` for that user, a fresh token for Link
//!    on every page.
//! 3. `fetch_income`: `GET /v2/accounts` (is a payroll account connected, synced, and when was
//!    it last read), then `/v2/employments`, `/v2/identities` and `/v2/paystubs` of the user.
//!    Each employment becomes one source with its pay stubs' dates, gross and net pay (`income`
//!    gives the mapping). A gig platform's account is read by its `/v2/gigs` instead.
//!
//! 4. Argyle's webhooks (`webhooks`): a signed `paystubs.fully_synced` or `gigs.fully_synced`
//!    wakes the waiting connection, whose piece of work then calls `fetch_income`.
//!
//! `client` makes the calls, `wire` holds their JSON shapes, `income` maps Argyle's records to
//! the domain's income data, `errors` decides what an Argyle error means for the verification.

mod client;
pub mod config;
mod errors;
mod income;
mod webhooks;
mod wire;

pub use crate::argyle::client::ArgyleIncomeProvider;
pub use crate::argyle::config::{ArgyleConfig, ArgyleConfigError};
pub use crate::argyle::webhooks::{ArgyleWebhookVerifier, SIGNATURE_HEADER};
