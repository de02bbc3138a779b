//! The whole store in memory, for handler tests that run in milliseconds. It keeps the
//! DynamoDB adapter's semantics where handlers depend on them: every conditional write checks
//! the same precondition under one lock (status the caller read, allowance, idempotency claim,
//! message lease), counters move in the same step as the items, and a refused condition that the
//! adapter reports as an error is an error here too. Not modelled: TTL deletion, the stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use domain::tenant_link::rotated;
use domain::{
    Account, ApiKeyRecord, Mode, MonthStats, OwnerStats, Status, SubscriptionStatus, Transition,
    Verification, format_ts, usage_month,
};
mod counted; // the writes that move the owner's counters
mod documents; // the documents' entries and the reuse check's fingerprints
mod erasure;
mod meter;
mod review;

use counted::{bump, cancel_open_locked, create_locked};

use ports::{
    AccountStore, ApiKeyStore, CreateOutcome, IdempotencyClaim, IdempotencyRecord,
    IdempotencyStore, LinkTokenOutcome, ListPage, ListQuery, Requester, StoreError,
    TransitionOutcome, VerificationStore, WebhookSecretStore, WebhookSecrets,
};

mod households;

/// How long an Idempotency-Key is remembered (as the adapter's record TTL).
const IDEMPOTENCY_LIFETIME: Duration = Duration::hours(24);

mod claims; // the message claims (every message to the tenant)
type Owner = (String, Mode);

#[derive(Default)]
struct Tables {
    accounts: HashMap<String, Account>,
    /// The accounts' default verification methods (an attribute of the account item).
    default_methods: HashMap<String, Vec<domain::income::VerificationMethod>>,
    api_keys: HashMap<String, ApiKeyRecord>,
    verifications: HashMap<Uuid, Verification>,
    /// Each fingerprint's submissions: (mode, fingerprint) -> verification -> (marks, until).
    fingerprints: documents::FingerprintSubmissions,
    stats: HashMap<Owner, OwnerStats>,
    months: HashMap<(Owner, String), MonthStats>,
    idempotency: HashMap<String, IdempotencyRecord>,
    secrets: HashMap<String, WebhookSecrets>,
    /// By verification and message key (`Message::key`).
    claims: HashMap<(Uuid, String), claims::ClaimState>,
    households: HashMap<Uuid, domain::household::Household>,
    /// Retention periods set by the operator, by account (`ErasureStore`).
    retention: HashMap<String, u32>,
    /// Erasure markers: the time each one's TTL names, by verification.
    erasure_markers: HashMap<Uuid, DateTime<Utc>>,
}

mod webhook_history;

/// A store in memory; `Default` is an empty table. Clones share the table (a test keeps one to
/// look at or stage what the handler under test sees).
#[derive(Clone, Default)]
pub struct MemoryStore {
    tables: Arc<Mutex<Tables>>,
    /// Webhook events and delivery attempts (`webhook_history`).
    webhook_history: Arc<Mutex<webhook_history::History>>,
}

/// A condition the adapter reports as a failed call (not as an outcome).
fn refused(what: &str) -> StoreError {
    StoreError::Unavailable(format!("conditional check failed: {what}"))
}

fn owner(account_id: &str, mode: Mode) -> Owner {
    (account_id.to_string(), mode)
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Tables> {
        self.tables
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stores a verification as it is (no counters, no checks): a test's fixture, or a concurrent
    /// writer staged from inside a fault plan (which cannot await).
    pub fn insert_verification(&self, v: &Verification) {
        self.lock()
            .verifications
            .insert(v.verification_id, v.clone());
    }

    /// Whether a webhook subject is erased: a verification with `erased_at` (a household is
    /// erased with its members' data in `households`).
    fn subject_erased(t: &Tables, subject: domain::webhook_log::WebhookSubject) -> bool {
        use domain::webhook_log::WebhookSubject;
        match subject {
            WebhookSubject::Verification(id) => t
                .verifications
                .get(&id)
                .is_some_and(|v| v.erased_at.is_some()),
            WebhookSubject::Household(id) => households::household_erased(t, id),
        }
    }

    /// The stored verification, read without awaiting.
    pub fn verification(&self, id: Uuid) -> Option<Verification> {
        self.lock().verifications.get(&id).cloned()
    }

    /// Every stored verification, read without awaiting.
    pub fn verifications(&self) -> Vec<Verification> {
        self.lock().verifications.values().cloned().collect()
    }
}

impl AccountStore for MemoryStore {
    async fn put_account(&self, account: &Account) -> Result<(), StoreError> {
        let mut t = self.lock();
        if t.accounts.contains_key(&account.account_id) {
            return Err(refused("account exists"));
        }
        t.accounts
            .insert(account.account_id.clone(), account.clone());
        Ok(())
    }

    async fn get_account(&self, account_id: &str) -> Result<Option<Account>, StoreError> {
        Ok(self.lock().accounts.get(account_id).cloned())
    }

    async fn get_account_name(&self, account_id: &str) -> Result<Option<String>, StoreError> {
        Ok(self.lock().accounts.get(account_id).map(|a| a.name.clone()))
    }

    async fn get_requester(&self, account_id: &str) -> Result<Option<Requester>, StoreError> {
        Ok(self.lock().accounts.get(account_id).map(|a| Requester {
            name: a.name.clone(),
            plan: a.plan.clone(),
        }))
    }

    async fn update_account(
        &self,
        account_id: &str,
        plan: Option<&str>,
        subscription: Option<(SubscriptionStatus, DateTime<Utc>)>,
    ) -> Result<bool, StoreError> {
        let mut t = self.lock();
        let Some(account) = t.accounts.get_mut(account_id) else {
            return Ok(false);
        };
        if let Some(plan) = plan {
            account.plan = plan.to_string();
        }
        if let Some((status, end)) = subscription {
            account.subscription_status = status;
            account.current_period_end = end;
        }
        Ok(true)
    }

    async fn set_default_methods(
        &self,
        account_id: &str,
        methods: &[domain::income::VerificationMethod],
    ) -> Result<bool, StoreError> {
        let mut t = self.lock();
        if !t.accounts.contains_key(account_id) {
            return Ok(false);
        }
        t.default_methods
            .insert(account_id.to_string(), methods.to_vec());
        Ok(true)
    }

    async fn get_default_methods(
        &self,
        account_id: &str,
    ) -> Result<Vec<domain::income::VerificationMethod>, StoreError> {
        Ok(self
            .lock()
            .default_methods
            .get(account_id)
            .cloned()
            .unwrap_or_default())
    }
}

impl ApiKeyStore for MemoryStore {
    async fn put_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        let mut t = self.lock();
        if t.api_keys.contains_key(&key.key_hash) {
            return Err(refused("API key exists"));
        }
        let Some(account) = t.accounts.get_mut(&key.account_id) else {
            return Err(refused("no such account"));
        };
        account.api_keys.insert(key.key_hash.clone(), key.mode);
        t.api_keys.insert(key.key_hash.clone(), key.clone());
        Ok(())
    }

    async fn list_api_keys(&self, account_id: &str) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let mut keys: Vec<ApiKeyRecord> = (self.lock().api_keys.values())
            .filter(|k| k.account_id == account_id)
            .cloned()
            .collect();
        keys.sort_by_key(|k| format_ts(k.created_at));
        Ok(keys)
    }

    async fn revoke_api_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut t = self.lock();
        let Some(key) =
            (t.api_keys.values_mut()).find(|k| k.account_id == account_id && k.key_id == key_id)
        else {
            return Ok(false);
        };
        key.revoked_at = Some(now);
        if let Some(account) = t.accounts.get_mut(account_id) {
            account.revoked_keys.push(key_id.to_string());
        }
        Ok(true)
    }
}

impl VerificationStore for MemoryStore {
    async fn create_verification(
        &self,
        v: &Verification,
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        create_locked(&mut self.lock(), v, idempotency, monthly_limit)
    }

    async fn get_verification(&self, id: Uuid) -> Result<Option<Verification>, StoreError> {
        Ok(self.lock().verifications.get(&id).cloned())
    }

    async fn add_recent_link_token(
        &self,
        current: &Verification,
        token_hash: &str,
        keep: usize,
    ) -> Result<LinkTokenOutcome, StoreError> {
        let mut t = self.lock();
        let Some(v) = t.verifications.get_mut(&current.verification_id) else {
            return Ok(LinkTokenOutcome::NotFound);
        };
        if v.erased_at.is_some() {
            return Ok(LinkTokenOutcome::NotFound);
        }
        // The adapter retries on the fresh lists; under the lock they are always fresh.
        let (tokens, recent) = rotated(&v.token_hashes, &v.recent_token_hashes, token_hash, keep);
        v.token_hashes = tokens;
        v.recent_token_hashes = recent;
        Ok(LinkTokenOutcome::Added)
    }

    async fn transition(
        &self,
        current: &Verification,
        transition: &Transition,
        now: DateTime<Utc>,
    ) -> Result<TransitionOutcome, StoreError> {
        let from = current.status;
        if !transition.allowed_from().contains(&from) {
            return Ok(TransitionOutcome::Conflict(Some(current.clone())));
        }
        let mut t = self.lock();
        let Some(stored) = t.verifications.get(&current.verification_id).cloned() else {
            return Ok(TransitionOutcome::Conflict(None));
        };
        let guard_holds = match transition {
            // A consent never replaces a provider user, and one without is recorded once.
            Transition::Consent {
                provider_user: Some(_),
                ..
            } => stored.provider_user.is_none(),
            Transition::Consent { .. } => stored.consented_at.is_none(),
            // An attempt is recorded on the attempts as read: a concurrent one makes it conflict.
            Transition::Attempt { .. } | Transition::Hold { .. } => {
                stored.method_attempts.len() == current.method_attempts.len()
            }
            // A wait never replaces one of the same try; a signal is written once, on it.
            Transition::Await { .. } => {
                stored.method_attempts.len() == current.method_attempts.len()
                    && stored
                        .awaiting
                        .as_ref()
                        .is_none_or(|w| w.attempts as usize != current.method_attempts.len())
            }
            Transition::Signal { .. } => {
                stored.method_attempts.len() == current.method_attempts.len()
                    && stored.awaiting.as_ref().is_some_and(|w| {
                        w.attempts as usize == current.method_attempts.len() && w.signal.is_none()
                    })
            }
            // A completion covers the documents and the tries as read (the adapter's guards).
            Transition::Complete { .. } => {
                stored.documents_rev == current.documents_rev
                    && stored.method_attempts.len() == current.method_attempts.len()
            }
            _ => true,
        } && (*transition == Transition::Expire || stored.erased_at.is_none());
        if stored.status != from || !guard_holds {
            return Ok(TransitionOutcome::Conflict(Some(stored)));
        }
        let next = transition.apply(current, now);
        let to = next.status;
        // Only the fields the transition sets are written: the stored item keeps its own others
        // (a token appended since the caller read it).
        t.verifications
            .insert(stored.verification_id, transition.apply(&stored, now));
        let account = owner(&current.account_id, current.mode);
        if OwnerStats::counter_of(from) != OwnerStats::counter_of(to) {
            let stats = t.stats.entry(account.clone()).or_default();
            bump(stats, from, -1);
            bump(stats, to, 1);
        }
        if to == Status::Completed {
            let month = (account.clone(), usage_month(now));
            t.months.entry(month).or_default().completed += 1;
        }
        if transition.refunds_allowance() {
            let month = (account, usage_month(current.created_at));
            let counted = t.months.entry(month).or_default();
            counted.created = counted.created.saturating_sub(1);
        }
        Ok(TransitionOutcome::Applied(next))
    }

    async fn cancel_open(
        &self,
        id: Uuid,
        account_id: &str,
        mode: Mode,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(cancel_open_locked(
            &mut self.lock(),
            id,
            account_id,
            mode,
            now,
        ))
    }

    async fn add_tenant_note(
        &self,
        id: Uuid,
        note: &str,
    ) -> Result<Option<Verification>, StoreError> {
        let mut t = self.lock();
        match t.verifications.get_mut(&id) {
            Some(v)
                if v.status == Status::Completed
                    && v.tenant_note.is_none()
                    && v.erased_at.is_none() =>
            {
                v.tenant_note = Some(note.to_string());
                Ok(Some(v.clone()))
            }
            _ => Ok(None),
        }
    }

    async fn list_verifications(&self, q: &ListQuery) -> Result<ListPage, StoreError> {
        let shown = |v: &Verification| {
            if v.status.is_open() && v.created_at <= q.expired_if_created_by {
                Status::Expired
            } else {
                v.status
            }
        };
        let mut matching: Vec<Verification> = (self.lock().verifications.values())
            .filter(|v| v.account_id == q.account_id && v.mode == q.mode)
            .filter(|v| q.status.is_none_or(|status| shown(v) == status))
            .cloned()
            .collect();
        // Newest first, as the adapter's index sort key (`<created>#<id>`) reads backwards.
        matching.sort_by_key(|v| (format_ts(v.created_at), v.verification_id.to_string()));
        matching.reverse();
        let total = matching.len() as u64;
        let wanted = (q.offset as usize) + (q.limit as usize);
        let items: Vec<Verification> = (matching.into_iter())
            .skip(q.offset as usize)
            .take(q.limit as usize)
            .collect();
        Ok(ListPage {
            items_read: total.min(wanted as u64),
            items,
            total,
        })
    }

    async fn list_verifications_capped(
        &self,
        q: &ListQuery,
        cap: u32,
    ) -> Result<Option<ListPage>, StoreError> {
        // As the adapter: the page's queries and the counts behind `total` (open verifications
        // past expiry not swept yet; in progress ones for `pending` and `in_progress`), each
        // stopped at `cap` items (one that reaches it is taken as over).
        let stale = |v: &Verification| v.created_at <= q.expired_if_created_by;
        let counted = |stored: Status, of: &dyn Fn(&Verification) -> bool| {
            (self.lock().verifications.values())
                .filter(|v| v.account_id == q.account_id && v.mode == q.mode)
                .filter(|v| v.status == stored && of(v))
                .count()
        };
        let counts = match q.status {
            Some(Status::Pending) => vec![
                counted(Status::Pending, &stale),
                counted(Status::InProgress, &|_| true),
            ],
            Some(Status::InProgress) => vec![counted(Status::InProgress, &|v| !stale(v))],
            Some(Status::Expired) => vec![
                counted(Status::Pending, &stale),
                counted(Status::InProgress, &stale),
            ],
            _ => vec![],
        };
        let wanted = q.offset as usize + q.limit as usize;
        if wanted > cap as usize || counts.iter().any(|n| *n >= cap as usize) {
            return Ok(None);
        }
        self.list_verifications(q).await.map(Some)
    }

    async fn owner_stats(
        &self,
        account_id: &str,
        mode: Mode,
        month: &str,
    ) -> Result<(OwnerStats, MonthStats), StoreError> {
        let t = self.lock();
        let owner = owner(account_id, mode);
        let stats = t.stats.get(&owner).cloned().unwrap_or_default();
        let month = t.months.get(&(owner, month.to_string()));
        Ok((stats, month.cloned().unwrap_or_default()))
    }
}

impl IdempotencyStore for MemoryStore {
    async fn get_idempotency(
        &self,
        key_hash: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        Ok(self.lock().idempotency.get(key_hash).cloned())
    }
}

impl WebhookSecretStore for MemoryStore {
    async fn get_webhook_secrets(&self, account_id: &str) -> Result<WebhookSecrets, StoreError> {
        Ok(self
            .lock()
            .secrets
            .get(account_id)
            .cloned()
            .unwrap_or_default())
    }

    async fn put_webhook_secrets(
        &self,
        account_id: &str,
        secrets: &WebhookSecrets,
    ) -> Result<(), StoreError> {
        (self.lock().secrets).insert(account_id.to_string(), secrets.clone());
        Ok(())
    }
}
