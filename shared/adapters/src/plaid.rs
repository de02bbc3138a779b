//! Plaid Bank Income adapter of the `IncomeProvider` port.
//!
//! The flow, as Plaid's Income product defines it:
//!
//! 1. `create_user` (at the tenant's consent): `/user/create`, one Plaid user per attempt
//!    (`client_user_id` is the verification id plus a random suffix, never personal data). The
//!    handle `"{client_user_id} {user_token}"` is stored with the consent in one write.
//! 2. `begin` (every connect page): `/link/token/create` for that user and the
//!    `income_verification` product, restricted to bank income over the last 365 days. A fresh
//!    link token per page: tokens expire after four hours, so a stored one would strand a tenant
//!    who comes back (after `PRODUCT_NOT_READY`, or the next day).
//! 3. `fetch_income`: `/credit/bank_income/get` with that user token; every bank income source of
//!    the most recent report (all its Items) becomes one `ProviderIncomeSource` with its dated
//!    deposits, as of the report's generation time (`income` gives the mapping).
//! 4. `close_user` (once the verification closed): `/user/remove` with that user token, which
//!    removes the user and every Item made for it, so the bank connection ends.
//!
//! `check` is the Plaid Check (Consumer Report) adapter on the same client. `client` makes the calls, `wire` holds their JSON shapes, `income` maps Plaid's report to the
//! domain's income data, `errors` decides what a Plaid error means for
//! the verification (its docs give the table).

pub mod check;
mod client;
pub mod config;
mod errors;
mod income;
mod wire;

pub use crate::plaid::client::PlaidIncomeProvider;
pub use crate::plaid::config::{DEFAULT_TIMEOUT, PlaidConfig, PlaidConfigError};
pub use crate::plaid::income::income_from_response_json;

/// How much bank history Plaid analyses for income (its maximum for bank income is 730 days).
const DAYS_REQUESTED: u32 = 365;
