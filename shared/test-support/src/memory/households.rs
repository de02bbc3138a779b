//! Households in memory, with the adapter's semantics: the household, its members, the counters
//! and the idempotency record in one step under the lock, the allowance checked for all members
//! at once, and the decision written once.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{IDEMPOTENCY_LIFETIME, MemoryStore, Tables, bump, owner, refused};
use domain::household::{Household, HouseholdDecision};
use domain::{Verification, usage_month};
use ports::{CreateOutcome, HouseholdStore, IdempotencyClaim, IdempotencyRecord, StoreError};

impl MemoryStore {
    /// The stored household, read without awaiting.
    pub fn household(&self, id: Uuid) -> Option<Household> {
        self.lock().households.get(&id).cloned()
    }
}

impl HouseholdStore for MemoryStore {
    async fn create_household(
        &self,
        household: &Household,
        members: &[Verification],
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        create_household_locked(
            &mut self.lock(),
            household,
            members,
            idempotency,
            monthly_limit,
        )
    }

    async fn get_household(&self, id: Uuid) -> Result<Option<Household>, StoreError> {
        Ok(self.household(id))
    }

    async fn get_household_with_members(
        &self,
        id: Uuid,
    ) -> Result<Option<(Household, Vec<Verification>)>, StoreError> {
        let t = self.lock();
        let Some(household) = t.households.get(&id).cloned() else {
            return Ok(None);
        };
        let members = household
            .members
            .iter()
            .map(|m| {
                t.verifications
                    .get(&m.verification_id)
                    .cloned()
                    .ok_or_else(|| {
                        StoreError::Corrupt(format!(
                            "household member {} missing",
                            m.verification_id
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((household, members)))
    }

    async fn record_household_decision(
        &self,
        id: Uuid,
        decision: &HouseholdDecision,
        decided_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut t = self.lock();
        match t.households.get_mut(&id) {
            Some(h)
                if h.decision.is_none() && h.cancelled_at.is_none() && h.erased_at.is_none() =>
            {
                h.decision = Some(decision.clone());
                h.decided_at = Some(decided_at);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// Whether the household's shared personal data was erased (with a member's).
pub(super) fn household_erased(t: &Tables, id: Uuid) -> bool {
    t.households.get(&id).is_some_and(|h| h.erased_at.is_some())
}

/// A household create as one atomic step on the locked tables (the adapter's transaction).
pub(super) fn create_household_locked(
    t: &mut Tables,
    household: &Household,
    members: &[Verification],
    idempotency: Option<&IdempotencyClaim>,
    monthly_limit: Option<u32>,
) -> Result<CreateOutcome, StoreError> {
    let Some(first) = members.first() else {
        return Err(refused("a household needs a member"));
    };
    if let Some(claim) = idempotency
        && let Some(record) = t.idempotency.get(&claim.key_hash)
        && (record.created_at + IDEMPOTENCY_LIFETIME).timestamp() >= first.created_at.timestamp()
    {
        return Ok(CreateOutcome::IdempotencyConflict(record.clone()));
    }
    let month_key = (
        owner(&first.account_id, first.mode),
        usage_month(first.created_at),
    );
    let created = t.months.get(&month_key).map_or(0, |m| m.created);
    let count = members.len() as u64;
    if monthly_limit.is_some_and(|limit| created + count > u64::from(limit)) {
        return Ok(CreateOutcome::LimitReached);
    }
    if t.households.contains_key(&household.household_id)
        || members
            .iter()
            .any(|v| t.verifications.contains_key(&v.verification_id))
    {
        return Err(refused("household or member exists"));
    }
    t.households
        .insert(household.household_id, household.clone());
    for v in members {
        t.verifications.insert(v.verification_id, v.clone());
        let stats = t.stats.entry(owner(&v.account_id, v.mode)).or_default();
        stats.total += 1;
        bump(stats, v.status, 1);
    }
    t.months.entry(month_key).or_default().created += count;
    if let Some(claim) = idempotency {
        let record = IdempotencyRecord {
            body_hash: claim.body_hash.clone(),
            verification_id: first.verification_id,
            created_at: first.created_at,
            household_id: Some(household.household_id),
        };
        t.idempotency.insert(claim.key_hash.clone(), record);
    }
    Ok(CreateOutcome::Created)
}
