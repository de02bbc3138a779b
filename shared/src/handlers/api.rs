//! What every `/api/v1` handler shares (verifications, their reports and usage, the webhook log
//! and redelivery, households); each handler is its own module beside this one
//! (`handlers::create_verification`, ..., `handlers::households`), generic over the store and the
//! clock.
//!
//! Every handler authenticates (key format and checksum; then one conditional update of the
//! account the key names that checks the key is listed there and not revoked, plan, subscription
//! and the API allowance, and counts the request: alone for a read, in the one transaction of a
//! write), runs its operation, and answers with the envelope and the `X-RateLimit-*` headers.
//! Each handler is bound only on the store roles it calls. Nothing here returns `Err`: failures
//! become enveloped errors.

pub mod auth;
pub mod ownership;
pub mod respond;
pub mod validate;
pub mod views;

use crate::config::Settings;

pub use crate::handlers::cancel_verification::cancel_verification;
pub use crate::handlers::create_verification::{
    MAX_BODY_BYTES, MAX_REPLAY_LINK_TOKENS, create_verification,
};
pub use crate::handlers::erase_verification_data::erase_verification_data;
pub use crate::handlers::get_report::get_report;
pub use crate::handlers::get_usage::get_usage;
pub use crate::handlers::get_verification::get_verification;
pub use crate::handlers::list_documents::list_documents;
pub use crate::handlers::list_verifications::{
    DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, list_verifications,
};
pub use crate::handlers::list_webhook_deliveries::list_webhook_deliveries;
pub use crate::handlers::redeliver_webhook::redeliver_webhook;
pub use crate::handlers::resend_verification::resend_verification;
pub use crate::handlers::review_documents::review_documents;
pub use auth::Caller;
pub use respond::error_response;
pub use validate::{is_valid_email, validate_create};

/// Everything the HTTP handlers need, built once per cold start.
pub struct ApiDeps<S, C> {
    pub store: S,
    pub clock: C,
    pub settings: Settings,
}

impl<S, C> ApiDeps<S, C> {
    pub fn new(store: S, clock: C, settings: Settings) -> Self {
        ApiDeps {
            store,
            clock,
            settings,
        }
    }
}
