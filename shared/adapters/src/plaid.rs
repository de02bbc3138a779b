//! Plaid: the Consumer Report by Plaid Check (`check`, the `IncomeProvider` for bank income) on
//! the new User APIs, and the verification of Plaid's signed webhooks (`webhook_keys`).
//!
//! Bank Income (Plaid's `income_verification` product) is retired: Plaid steers new US
//! income-verification customers to Plaid Check, and its new User APIs do not serve Bank Income
//! (docs/verification-methods.md says why). Its report's shape lives on: Plaid Check's Income
//! Insights report has the same items, sources and deposits, which `income` maps.
//! `client` makes the calls, `wire` holds the shapes they share, `errors` decides what a Plaid
//! error means for the verification (its docs give the table).

pub mod check;
mod client;
pub mod config;
mod errors;
mod income;
pub mod webhook_keys;
mod wire;

pub use crate::plaid::client::PlaidClient;
pub use crate::plaid::config::{DEFAULT_TIMEOUT, PlaidConfig, PlaidConfigError};
pub use crate::plaid::income::income_from_response_json;
pub use crate::plaid::webhook_keys::PlaidWebhookVerifier;

/// How much bank history Plaid analyses for income (its maximum for bank income is 730 days).
const DAYS_REQUESTED: u32 = 365;
