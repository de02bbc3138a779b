//! The store port, split by role: each handler's needs can be read off its bounds, and a test double
//! (`test_support::MemoryStore`) or a fault-injecting wrapper implements each role once.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::list::{ListPage, ListQuery};
use domain::household::{Household, HouseholdDecision};
use domain::webhook_log::{DeliveryAttempt, DeliveryPage, StoredWebhookEvent, WebhookSubject};
use domain::{
    Account, ApiKeyRecord, Mode, MonthStats, OwnerStats, SubscriptionStatus, Transition,
    Verification,
};

mod claims;
mod erasure;
mod meter;
pub use claims::*;
pub use erasure::*;
pub use meter::*;

/// A failure of the store. The text is for logs only (it never reaches a response body).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store call failed: {0}")]
    Unavailable(String),
    #[error("stored item could not be read: {0}")]
    Corrupt(String),
    /// Concurrent writes on the same item outlasted the retries; nothing was written.
    #[error("store contended: concurrent writes outlasted the retries")]
    Busy,
}

/// A store failure as the API answers it: contention is `Busy` (the client retries), anything
/// else an internal error whose text stays in the log.
impl From<StoreError> for domain::error::ApiError {
    fn from(e: StoreError) -> Self {
        if let StoreError::Busy = e {
            // Contention, not a fault: the client retries (Retry-After) and nothing was written.
            tracing::warn!(error = %e, "store contended");
            return domain::error::ApiError::Busy;
        }
        // The span carries the request id; the store's text stays in the log.
        tracing::error!(error = %e, "store call failed");
        domain::error::ApiError::Internal
    }
}

/// The Idempotency-Key of a create, claimed in the same transaction as the verification.
#[derive(Debug, Clone, PartialEq)]
pub struct IdempotencyClaim {
    /// SHA-256 of the owner, mode and header value.
    pub key_hash: String,
    /// SHA-256 of the canonical JSON body.
    pub body_hash: String,
}

/// A stored idempotency record.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IdempotencyRecord {
    pub body_hash: String,
    pub verification_id: Uuid,
    #[serde(with = "domain::ts")]
    pub created_at: DateTime<Utc>,
    /// Set when the key created a household (`verification_id` is then its first member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub household_id: Option<Uuid>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CreateOutcome {
    Created,
    /// The monthly verification allowance is used up; nothing was written.
    LimitReached,
    /// The Idempotency-Key was used before (within its lifetime); nothing was written.
    IdempotencyConflict(IdempotencyRecord),
}

#[derive(Debug, Clone, PartialEq)]
pub enum TransitionOutcome {
    /// Written; the verification as it is now.
    Applied(Verification),
    /// Someone else changed the status first; the verification as it is now (None if gone).
    Conflict(Option<Verification>),
}

/// Result of binding one more rotating (replay) link token.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkTokenOutcome {
    Added,
    /// The verification does not exist, or its personal data was erased (it binds no link).
    NotFound,
    /// Concurrent writers kept changing the tokens; nothing was written by this call.
    Contended,
}

/// Webhook signing secrets of an account; during a rotation both sign.
#[derive(Clone, PartialEq, serde::Serialize, serde::Deserialize, Default)]
pub struct WebhookSecrets {
    #[serde(default)]
    pub current: Option<String>,
    #[serde(default)]
    pub previous: Option<String>,
    #[serde(default, with = "domain::ts::option")]
    pub previous_valid_until: Option<DateTime<Utc>>,
}

impl WebhookSecrets {
    /// Secrets that sign a delivery at `now`.
    pub fn signing(&self, now: DateTime<Utc>) -> Vec<&str> {
        let mut out: Vec<&str> = self.current.iter().map(String::as_str).collect();
        if let (Some(prev), Some(until)) = (&self.previous, self.previous_valid_until)
            && now < until
        {
            out.push(prev);
        }
        out
    }
}

/// Who asks the tenant: the landlord's display name and plan (`AccountStore::get_requester`).
#[derive(Debug, Clone, PartialEq)]
pub struct Requester {
    pub name: String,
    pub plan: String,
}

/// Accounts: created by the admin tool, read by every authenticated request and every
/// tenant page (the requester's name).
pub trait AccountStore: Send + Sync {
    fn put_account(&self, account: &Account)
    -> impl Future<Output = Result<(), StoreError>> + Send;
    fn get_account(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Option<Account>, StoreError>> + Send;
    /// The account's display name and nothing else of it: what the tenant page and the messages
    /// to a tenant show. Their roles may read no other attribute of the account (template.yaml).
    fn get_account_name(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Option<String>, StoreError>> + Send;
    /// The account's display name and plan, and nothing else of it: what a sender of messages to
    /// a tenant needs (the name for the text, the plan for its SMS allowance).
    fn get_requester(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Option<Requester>, StoreError>> + Send;
    /// Changes plan and/or subscription; false when the account does not exist.
    fn update_account(
        &self,
        account_id: &str,
        plan: Option<&str>,
        subscription: Option<(SubscriptionStatus, DateTime<Utc>)>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Sets the account's default verification methods (empty: every method of the stack), an
    /// attribute of the account item outside `Account`; false when the account does not exist.
    fn set_default_methods(
        &self,
        account_id: &str,
        methods: &[domain::income::VerificationMethod],
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// The account's default verification methods (empty when none are set).
    fn get_default_methods(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Vec<domain::income::VerificationMethod>, StoreError>> + Send;
}

/// API keys, stored under the hash of their secret (the secret itself is never stored) and listed
/// per account; a request's key is authenticated on its account (`MeterStore`), never looked up.
pub trait ApiKeyStore: Send + Sync {
    /// Stores the key and, in the same write, lists its hash and mode on its account
    /// (`Account::api_keys`); refused when the account does not exist or the key does.
    fn put_api_key(
        &self,
        key: &ApiKeyRecord,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    fn list_api_keys(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Vec<ApiKeyRecord>, StoreError>> + Send;
    /// Revokes in one transaction on the key and the account; false when no such key.
    fn revoke_api_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// Verifications with their counters: every write is conditional on the status the caller read,
/// so concurrent changes (a cancel racing a completion) cannot both win.
pub trait VerificationStore: Send + Sync {
    /// Writes the verification, its expiry marker, the counters and the idempotency record in one
    /// transaction. `monthly_limit` is enforced atomically when given.
    fn create_verification(
        &self,
        verification: &Verification,
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> impl Future<Output = Result<CreateOutcome, StoreError>> + Send;
    fn get_verification(
        &self,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<Verification>, StoreError>> + Send;
    /// Binds a replay's link token (by hash) in one conditional write that keeps at most `keep`
    /// such rotating tokens (`Verification::recent_token_hashes`), dropping the oldest. The token
    /// bound by `create_verification` is never dropped (messages' links are apart, in
    /// `Verification::message_links`). `current` is
    /// the caller's latest read; a concurrent change makes the write retry on the fresh item.
    fn add_recent_link_token(
        &self,
        current: &Verification,
        token_hash: &str,
        keep: usize,
    ) -> impl Future<Output = Result<LinkTokenOutcome, StoreError>> + Send;
    /// One conditional write: applies `transition` only if the stored status is still
    /// `current.status`, and moves the counters with it.
    fn transition(
        &self,
        current: &Verification,
        transition: &Transition,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<TransitionOutcome, StoreError>> + Send;
    /// One conditional write without a read: `Transition::Cancel` on `id`, only while it is of
    /// `account_id` and `mode`, still open (pending or in progress: the counters need not know
    /// which) and not past its expiry at `now`, with the counters. true when applied; false when
    /// anything refused, and then nothing was written.
    fn cancel_open(
        &self,
        id: Uuid,
        account_id: &str,
        mode: Mode,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Stores the tenant's note on a completed verification, once: Some(updated) when written,
    /// None when the verification is not completed or already has a note (one conditional write,
    /// so of two concurrent notes exactly one is kept).
    fn add_tenant_note(
        &self,
        id: Uuid,
        note: &str,
    ) -> impl Future<Output = Result<Option<Verification>, StoreError>> + Send;
    fn list_verifications(
        &self,
        query: &ListQuery,
    ) -> impl Future<Output = Result<ListPage, StoreError>> + Send;
    /// `list_verifications` for a request not yet allowed: None, having read no more, when a
    /// count its total needs would scan over `count_cap` items (`list::COUNT_CAP`).
    fn list_verifications_capped(
        &self,
        query: &ListQuery,
        count_cap: u32,
    ) -> impl Future<Output = Result<Option<ListPage>, StoreError>> + Send;
    fn owner_stats(
        &self,
        account_id: &str,
        mode: Mode,
        month: &str,
    ) -> impl Future<Output = Result<(OwnerStats, MonthStats), StoreError>> + Send;
}

/// Idempotency records (claimed by `VerificationStore::create_verification`, in its transaction).
pub trait IdempotencyStore: Send + Sync {
    fn get_idempotency(
        &self,
        key_hash: &str,
    ) -> impl Future<Output = Result<Option<IdempotencyRecord>, StoreError>> + Send;
}

/// Households: the household item and its members' verifications, written together.
pub trait HouseholdStore: Send + Sync {
    /// Writes the household, every member's verification (each as `create_verification` writes
    /// one: expiry marker, counters) and the idempotency record in ONE transaction; the monthly
    /// allowance, when given, is checked for all members at once (`created + members <= limit`),
    /// so the household is created whole or not at all.
    fn create_household(
        &self,
        household: &Household,
        members: &[Verification],
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> impl Future<Output = Result<CreateOutcome, StoreError>> + Send;
    fn get_household(
        &self,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<Household>, StoreError>> + Send;
    /// The household and its members' verifications (in the household's order) in one round
    /// trip: the household read beside one bounded read of its members. The members' statuses
    /// may lag their own reads by the index's propagation (well under a second); a member the
    /// index does not show yet is read by itself. None when no such household.
    fn get_household_with_members(
        &self,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<(Household, Vec<Verification>)>, StoreError>> + Send;
    /// Stores the decision once (conditional on the household having none and not being
    /// cancelled): true when this call wrote it, false otherwise (or the household is gone).
    fn record_household_decision(
        &self,
        id: Uuid,
        decision: &HouseholdDecision,
        decided_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// Webhook signing secrets of an account: kept apart from the table (no stream carries them),
/// read by deliver-webhook and written by the admin tool only.
pub trait WebhookSecretStore: Send + Sync {
    fn get_webhook_secrets(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<WebhookSecrets, StoreError>> + Send;
    fn put_webhook_secrets(
        &self,
        account_id: &str,
        secrets: &WebhookSecrets,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// The webhook history: every outgoing event (for redelivery) and every delivery attempt (the
/// log the API lists, by verification or by household), each kept 30 days by TTL.
pub trait WebhookHistoryStore: Send + Sync {
    /// Stores an event when it is first queued; an event stored before is kept as it is (a
    /// duplicate stream record or a retry changes nothing, and never resets `redeliveries`).
    /// Refused, in the same write, while its subject (verification or household) is erased,
    /// unless the event outlives an erasure (`StoredWebhookEvent::outlives_erasure`): a late
    /// record or a retry never brings back a body the erasure removed. True when the event is
    /// stored (now or before), false when refused.
    fn put_webhook_event(
        &self,
        event: &StoredWebhookEvent,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    fn get_webhook_event(
        &self,
        event_id: &str,
    ) -> impl Future<Output = Result<Option<StoredWebhookEvent>, StoreError>> + Send;
    /// Asks for the event to be queued again: one write that counts the request on the stored
    /// event; the table's stream (`publish-events`) then queues it. False when no such event.
    fn request_redelivery(
        &self,
        event_id: &str,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Appends one delivery attempt to its subject's log (a verification's or a household's).
    fn record_delivery_attempt(
        &self,
        account_id: &str,
        attempt: &DeliveryAttempt,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// A page of a subject's delivery attempts, newest first (reads at most
    /// `offset + limit` attempts, plus a count).
    fn list_delivery_attempts(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> impl Future<Output = Result<DeliveryPage, StoreError>> + Send;
    /// The page `list_delivery_attempts` answers, from ONE read of at most
    /// `SHORT_LOG_ATTEMPTS` attempts (a bounded read, fit to run before the request is known
    /// to be allowed): Some(page) when the log holds no more than that, None when it does (then
    /// the caller lists it with `list_delivery_attempts`).
    fn delivery_page_if_short(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> impl Future<Output = Result<Option<DeliveryPage>, StoreError>> + Send;
}

/// The whole table, as the service sees it: every role. Handlers bound by `S: Store` keep
/// compiling whatever role they use; anything that implements every role is a `Store`.
pub trait Store:
    AccountStore
    + ApiKeyStore
    + MeterStore
    + VerificationStore
    + HouseholdStore
    + IdempotencyStore
    + MessageClaimStore
    + WebhookHistoryStore
    + ErasureStore
{
}

impl<T> Store for T where
    T: AccountStore
        + ApiKeyStore
        + MeterStore
        + VerificationStore
        + HouseholdStore
        + IdempotencyStore
        + MessageClaimStore
        + WebhookHistoryStore
        + ErasureStore
{
}

/// Every role trait (and the umbrella), for code that calls store methods on a concrete store
/// (the local stack, the admin tool, tests): `use ports::store::prelude::*;`.
pub mod prelude {
    pub use super::{
        AccountStore, ApiKeyStore, ErasureStore, HouseholdStore, IdempotencyStore,
        MessageClaimStore, MeterStore, Store, VerificationStore, WebhookHistoryStore,
        WebhookSecretStore,
    };
}
