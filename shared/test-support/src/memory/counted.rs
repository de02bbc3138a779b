//! The in-memory store's writes that move the owner's counters with a verification (a create, a
//! read-free cancel), each one step on the locked tables, as the adapter's one transaction.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{IDEMPOTENCY_LIFETIME, Tables, owner, refused};
use domain::{Mode, OwnerStats, Status, Transition, Verification, usage_month};
use ports::{CreateOutcome, IdempotencyClaim, IdempotencyRecord, StoreError};

/// Moves the counter of `status` (the adapter's `OwnerStats::counter_of`: both open statuses
/// share `open`).
pub(super) fn bump(stats: &mut OwnerStats, status: Status, by: i64) {
    let counter = match status {
        Status::Pending | Status::InProgress => &mut stats.open,
        Status::Completed => &mut stats.completed,
        Status::Expired => &mut stats.expired,
        Status::Failed => &mut stats.failed,
    };
    *counter = counter.saturating_add_signed(by);
}

/// A create as one atomic step on the locked tables (the adapter's transaction).
pub(super) fn create_locked(
    t: &mut Tables,
    v: &Verification,
    idempotency: Option<&IdempotencyClaim>,
    monthly_limit: Option<u32>,
) -> Result<CreateOutcome, StoreError> {
    let month_key = (owner(&v.account_id, v.mode), usage_month(v.created_at));
    // The adapter's transaction reports the idempotency claim before the allowance.
    if let Some(claim) = idempotency
        && let Some(record) = t.idempotency.get(&claim.key_hash)
        && (record.created_at + IDEMPOTENCY_LIFETIME).timestamp() >= v.created_at.timestamp()
    {
        return Ok(CreateOutcome::IdempotencyConflict(record.clone()));
    }
    let created = t.months.get(&month_key).map_or(0, |m| m.created);
    if monthly_limit.is_some_and(|limit| created >= u64::from(limit)) {
        return Ok(CreateOutcome::LimitReached);
    }
    if t.verifications.contains_key(&v.verification_id) {
        return Err(refused("verification exists"));
    }
    t.verifications.insert(v.verification_id, v.clone());
    let stats = t.stats.entry(owner(&v.account_id, v.mode)).or_default();
    stats.total += 1;
    bump(stats, v.status, 1);
    t.months.entry(month_key).or_default().created += 1;
    if let Some(claim) = idempotency {
        let record = IdempotencyRecord {
            body_hash: claim.body_hash.clone(),
            verification_id: v.verification_id,
            created_at: v.created_at,
            household_id: None,
        };
        t.idempotency.insert(claim.key_hash.clone(), record);
    }
    Ok(CreateOutcome::Created)
}

/// The adapter's read-free cancel as one step on the locked tables: `owner`'s verification `id`,
/// still open and before its expiry, cancelled with the counters moved; false (nothing changed)
/// otherwise.
pub(super) fn cancel_open_locked(
    t: &mut Tables,
    id: Uuid,
    account_id: &str,
    mode: Mode,
    now: DateTime<Utc>,
) -> bool {
    let Some(stored) = t.verifications.get(&id) else {
        return false;
    };
    let cancellable = stored.status.is_open()
        && stored.account_id == account_id
        && stored.mode == mode
        && now < stored.expires_at;
    if !cancellable {
        return false;
    }
    let next = Transition::Cancel.apply(stored, now);
    let stats = t.stats.entry(owner(account_id, mode)).or_default();
    bump(stats, stored.status, -1);
    bump(stats, next.status, 1);
    t.verifications.insert(id, next);
    true
}
