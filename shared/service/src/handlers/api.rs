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

pub use auth::Caller;
pub use respond::error_response;
pub use validate::{is_valid_email, validate_create};

/// Largest accepted body of a create or a review. API Gateway allows far more; nothing
/// legitimate needs it.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// Replay links kept per verification: each Idempotency-Key replay answers with a fresh link and
/// the oldest replay link beyond this many stops working. The first response's link and the
/// e-mailed one are never dropped, so a verification has at most these + 2 live links.
pub const MAX_REPLAY_LINK_TOKENS: usize = 3;

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
