//! Retention and erasure: each account's retention period, the erasure marker whose TTL deletion
//! erases a closed verification when its period ends, and the erasure itself
//! (`domain::retention`).

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{CountedRefusal, Metered, StoreError};
use domain::Verification;
use domain::metering::PresentedKey;
use domain::plans::Plans;
use domain::retention::RetentionDays;

/// What `ErasureStore::erase_verification` found and did.
#[derive(Debug, Clone, PartialEq)]
pub enum ErasureOutcome {
    /// This call erased it, and then the items that held its personal data: as it is now.
    Erased(Verification),
    /// Erased before (by the sweep or a request); this call erased what still held its personal
    /// data (a crash may have stopped the first call after the verification's write).
    AlreadyErased(Verification),
    /// Still open (and not past its expiry): nothing was written.
    Open(Verification),
    /// No such verification.
    NotFound,
}

/// Why a metered erasure (`ErasureStore::meter_and_erase`) was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ErasureRefusal {
    /// No such verification of the key's account and mode.
    NotFound,
    /// The key's own verification, still open (and not past its expiry): as it is.
    Open(Box<Verification>),
    /// The key's own verification, erased before.
    AlreadyErased,
}

impl CountedRefusal for ErasureRefusal {}

/// An API erasure that carries its own metering (`ErasureStore::meter_and_erase`).
pub struct MeteredErasure<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub verification_id: Uuid,
}

/// Retention periods, erasure markers and the erasure: the one port every erasure goes through.
pub trait ErasureStore: Send + Sync {
    /// The account's retention period (the default when never set); None when no such account.
    fn retention_days(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Option<RetentionDays>, StoreError>> + Send;
    /// Sets the account's retention period; false when no such account.
    fn set_retention_days(
        &self,
        account_id: &str,
        days: RetentionDays,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Puts the verification's erasure marker with its TTL at `at`, unless one names an earlier
    /// time already: a marker only moves earlier, by one conditional write, so of concurrent arms
    /// the earliest stays. The TTL service's deletion of it asks `expire-verifications` to erase
    /// the verification, or to arm it again when it is not due (`handlers::retention`).
    fn arm_erasure(
        &self,
        id: Uuid,
        at: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The account's closed verifications not yet erased, both modes, each with when it closed.
    fn closed_unerased(
        &self,
        account_id: &str,
    ) -> impl Future<Output = Result<Vec<(Uuid, DateTime<Utc>)>, StoreError>> + Send;
    /// THE erasure: one conditional write removes the personal data of a closed verification, or
    /// of an open one past its expiry (`retention::erase`), so of concurrent erasures exactly one
    /// writes `erased_at`; after it, no transition but the expiry and no note writes to it. Then every
    /// other item that held its personal data is erased: its stored webhook events (their bodies),
    /// its erasure marker, and a member's household's address, rent and decision with its stored
    /// `household.completed` (the decision is made of each member's income). Safe to call again: an erased verification has those items erased
    /// again, so a call stopped half-way is finished by the next.
    fn erase_verification(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<ErasureOutcome, StoreError>> + Send;
    /// Forgets the verification's provider user (and the provider's link token) once it was
    /// closed at the provider: one conditional write, only while the stored user is still
    /// `provider_user`. Done also when there was none to forget.
    fn forget_provider_user(
        &self,
        id: Uuid,
        provider_user: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// An API erasure: counts the request as `MeterStore::meter_api_request` does AND erases the
    /// verification itself as `erase_verification`'s first write does, only if it is of the key's
    /// account and mode, closed (or past its expiry) and not erased yet, in ONE transaction (the one
    /// metered-write road of `MeterStore`). The caller then calls `erase_verification` for the
    /// rest, also after `ErasureRefusal::AlreadyErased`.
    fn meter_and_erase(
        &self,
        erasure: &MeteredErasure<'_>,
    ) -> impl Future<Output = Result<Metered<(), ErasureRefusal>, StoreError>> + Send;
}
