//! `ErasureStore` in memory: retention periods, erasure markers (no TTL: a test reads them) and
//! the erasure, each under the one lock as the adapter's conditional writes.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::meter::{allowed, owned, settle};
use super::{MemoryStore, Tables};
use domain::retention::{RetentionDays, closed_at, erase};
use ports::{ErasureOutcome, ErasureRefusal, ErasureStore, Metered, MeteredErasure, StoreError};

impl MemoryStore {
    /// The time the verification's erasure marker names, if it has one.
    pub fn erasure_marker(&self, id: Uuid) -> Option<DateTime<Utc>> {
        self.lock().erasure_markers.get(&id).copied()
    }

    /// Deletes the verification's erasure marker as the TTL service would (the stream's REMOVE
    /// record is the test's to deliver); the time it named.
    pub fn ttl_delete_erasure_marker(&self, id: Uuid) -> Option<DateTime<Utc>> {
        self.lock().erasure_markers.remove(&id)
    }
}

/// The adapter's conditional erasure of the verification itself: `Erased` when written, else the
/// verification as the condition saw it.
fn erase_locked(t: &mut Tables, id: Uuid, now: DateTime<Utc>) -> ErasureOutcome {
    match t.verifications.get(&id).cloned() {
        None => ErasureOutcome::NotFound,
        Some(v) if v.erased_at.is_some() => ErasureOutcome::AlreadyErased(v),
        Some(v) if v.effective_status(now).is_open() => ErasureOutcome::Open(v),
        Some(v) => {
            let erased = erase(&v, now);
            t.verifications.insert(id, erased.clone());
            ErasureOutcome::Erased(erased)
        }
    }
}

impl ErasureStore for MemoryStore {
    async fn retention_days(&self, account_id: &str) -> Result<Option<RetentionDays>, StoreError> {
        let t = self.lock();
        Ok(t.accounts
            .contains_key(account_id)
            .then(|| RetentionDays::stored(t.retention.get(account_id).copied())))
    }

    async fn set_retention_days(
        &self,
        account_id: &str,
        days: RetentionDays,
    ) -> Result<bool, StoreError> {
        let mut t = self.lock();
        if !t.accounts.contains_key(account_id) {
            return Ok(false);
        }
        t.retention.insert(account_id.to_string(), days.days());
        Ok(true)
    }

    async fn arm_erasure(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut t = self.lock();
        let marker = t.erasure_markers.entry(id).or_insert(at);
        *marker = (*marker).min(at);
        Ok(())
    }

    async fn closed_unerased(
        &self,
        account_id: &str,
    ) -> Result<Vec<(Uuid, DateTime<Utc>)>, StoreError> {
        Ok(self
            .lock()
            .verifications
            .values()
            .filter(|v| v.account_id == account_id && v.erased_at.is_none())
            .filter_map(|v| Some((v.verification_id, closed_at(v)?)))
            .collect())
    }

    async fn erase_verification(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<ErasureOutcome, StoreError> {
        let outcome = erase_locked(&mut self.lock(), id, now);
        if matches!(outcome, ErasureOutcome::NotFound | ErasureOutcome::Open(_)) {
            return Ok(outcome);
        }
        self.remove_events_of(id);
        let mut t = self.lock();
        t.erasure_markers.remove(&id);
        // Its documents' fingerprint submissions (`DynamoStore`'s `erase_fingerprints`).
        for submissions in t.fingerprints.values_mut() {
            submissions.remove(&id);
        }
        drop(t);
        // The household's shared personal data goes with a member's (`DynamoStore`'s
        // `erase_household`), and its stored `household.completed`.
        let household = match &outcome {
            ErasureOutcome::Erased(v) | ErasureOutcome::AlreadyErased(v) => v.household_id,
            _ => None,
        };
        if let Some(household) = household {
            let mut t = self.lock();
            if let Some(h) = t.households.get(&household).cloned() {
                t.households.insert(household, h.erased(now));
            }
            drop(t);
            self.remove_household_events(household);
        }
        Ok(outcome)
    }

    async fn forget_provider_user(&self, id: Uuid, provider_user: &str) -> Result<(), StoreError> {
        let mut t = self.lock();
        if let Some(v) = t.verifications.get_mut(&id)
            && v.provider_user.as_deref() == Some(provider_user)
        {
            v.provider_user = None;
            v.provider_link_token = None;
        }
        Ok(())
    }

    async fn meter_and_erase(
        &self,
        erasure: &MeteredErasure<'_>,
    ) -> Result<Metered<(), ErasureRefusal>, StoreError> {
        let MeteredErasure {
            key,
            now,
            plans,
            verification_id,
        } = *erasure;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        let theirs = t
            .verifications
            .get(&verification_id)
            .is_some_and(|v| owned(v, key));
        let done = match theirs {
            false => Err(ErasureRefusal::NotFound),
            true => match erase_locked(&mut t, verification_id, now) {
                ErasureOutcome::Erased(_) => Ok(()),
                ErasureOutcome::AlreadyErased(_) => Err(ErasureRefusal::AlreadyErased),
                ErasureOutcome::Open(v) => Err(ErasureRefusal::Open(Box::new(v))),
                ErasureOutcome::NotFound => Err(ErasureRefusal::NotFound),
            },
        };
        Ok(settle(&mut t, &account, now, done))
    }
}
