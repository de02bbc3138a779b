//! What the five `/api/v1` handlers share; each handler is its own module beside this one
//! (`handlers::create_verification`, ...), generic over the store and the clock.
//!
//! Every handler authenticates (key format and checksum; then one conditional update of the
//! account the key names that checks the key is listed there and not revoked, plan, subscription
//! and the API allowance, and counts the request; a key of the earlier format, which names no
//! account, is first found by its hash), runs its
//! operation, and answers with the envelope and the `X-RateLimit-*` headers. Nothing here returns
//! `Err`: failures become enveloped errors.

pub mod auth;
pub mod ownership;
pub mod respond;
pub mod validate;
pub mod views;

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use crate::config::Settings;
use crate::domain::metering::PresentedKey;
use crate::domain::{ApiKeyRecord, api_window};
use crate::ports::{Clock, Store};

pub use crate::handlers::cancel_verification::cancel_verification;
pub use crate::handlers::create_verification::{
    MAX_BODY_BYTES, MAX_REPLAY_LINK_TOKENS, create_verification,
};
pub use crate::handlers::get_report::get_report;
pub use crate::handlers::get_usage::get_usage;
pub use crate::handlers::get_verification::get_verification;
pub use crate::handlers::list_verifications::{
    DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, list_verifications,
};
pub use crate::handlers::list_webhook_deliveries::list_webhook_deliveries;
pub use crate::handlers::redeliver_webhook::redeliver_webhook;
pub use crate::handlers::resend_verification::resend_verification;
pub use auth::Caller;
pub use respond::error_response;
pub use validate::{is_valid_email, validate_create};

/// Everything the HTTP handlers need, built once per cold start.
pub struct ApiDeps<S, C> {
    pub store: S,
    pub clock: C,
    pub settings: Settings,
    /// key hash -> key record. The mapping never changes (revocation is checked on the account in
    /// the metering write), so a warm function skips the key lookup.
    key_cache: Mutex<HashMap<String, ApiKeyRecord>>,
    /// key hash -> the allowance window in which this instance's last metering of the key allowed
    /// it with allowance to spare. Any refusal or failure removes the key.
    allowed_keys: Mutex<HashMap<String, String>>,
    /// account id -> its plan when this instance last counted one of its requests: what a live
    /// create that carries its own metering pins its monthly allowance to (the write checks it).
    account_plans: Mutex<HashMap<String, String>>,
}

impl<S: Store, C: Clock> ApiDeps<S, C> {
    pub fn new(store: S, clock: C, settings: Settings) -> Self {
        ApiDeps {
            store,
            clock,
            settings,
            key_cache: Mutex::new(HashMap::new()),
            allowed_keys: Mutex::new(HashMap::new()),
            account_plans: Mutex::new(HashMap::new()),
        }
    }

    /// The account's plan as this instance last saw it count a request (the write that relies on
    /// it checks it is still so).
    pub(crate) fn known_plan(&self, account_id: &str) -> Option<String> {
        self.account_plans
            .lock()
            .expect("account plans")
            .get(account_id)
            .cloned()
    }

    /// Whether this instance's last metering of `key` allowed it, in the window of `now`, with
    /// allowance to spare: a hint that the request will be allowed (the metering write still
    /// decides), which lets a bounded read start beside it.
    pub(crate) fn recently_allowed(&self, key: &PresentedKey, now: DateTime<Utc>) -> bool {
        self.allowed_keys
            .lock()
            .expect("allowed keys")
            .get(&key.key_hash)
            .is_some_and(|window| *window == api_window(now))
    }
}
