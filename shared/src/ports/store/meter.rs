//! The daily API allowance, metered on the account item, and the writes that carry it with them.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{IdempotencyClaim, StoreError};
use crate::config::Plans;
use crate::domain::household::Household;
use crate::domain::metering::{MeterOutcome, PresentedKey};
use crate::domain::webhook_log::WebhookSubject;
use crate::domain::{Account, Verification};

/// The daily API allowance, metered on the account item.
pub trait MeterStore: Send + Sync {
    /// Authentication (a key naming its account: its hash listed there; any key: not revoked),
    /// plan, subscription and the API allowance: one conditional update of the key's account.
    fn meter_api_request(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> impl Future<Output = Result<MeterOutcome, StoreError>> + Send;
    /// An API create in one write: counts the request as `meter_api_request` does (in the current
    /// window only) AND creates `verification` as `VerificationStore::create_verification` does,
    /// a live one within the monthly allowance of the account's plan (whichever it is),
    /// atomically. Some(the account after the count) when both happened; when the account refused
    /// it (unknown or revoked key, plan, subscription, the daily allowance)
    /// `Err(StoreError::MeterRefused(why))`; None when anything else refused. Either way nothing
    /// was written or counted (after None the caller meters and creates the usual way, which tells
    /// why). The other `meter_and_*` writes refuse the same way.
    fn meter_and_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> impl Future<Output = Result<Option<Account>, StoreError>> + Send;
    /// An API household create in one write: counts the request as `meter_and_create` does AND
    /// creates the household with its members as `HouseholdStore::create_household` does, a live
    /// one within the monthly allowance of the account's plan for all members at once. Some(the
    /// account after the count) when both happened; None when anything refused, and then nothing
    /// was written or counted.
    fn meter_and_create_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> impl Future<Output = Result<Option<Account>, StoreError>> + Send;
    /// An API cancel in one write: counts the request as `meter_and_create` does AND cancels the
    /// verification (`Transition::Cancel`, counters moved with it), only if it is of the key's
    /// account and mode, still open (pending or in progress: both in the one `open` counter, so
    /// the write need not know which) and not past its expiry at `now`. Some(the account after the
    /// count) when both happened; None when anything refused, and then nothing was written or
    /// counted (the caller goes the usual way: it reads the verification, which tells why).
    fn meter_and_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> impl Future<Output = Result<Option<Account>, StoreError>> + Send;
    /// An API household cancel in one write: counts the request as `meter_and_create` does AND
    /// marks the household cancelled (`Household::cancelled_at` = `now`) AND cancels each of
    /// `cancel.members` as `meter_and_cancel` cancels one (counters moved with them), only if the
    /// household is of the key's account and mode, undecided and not cancelled yet, and each of
    /// those members is still open, not past its expiry and of the household. The caller names
    /// every member it read open (a member read closed stays closed), so no member is open after
    /// the write, on any read. Some(the account after the count) when all happened; None when
    /// anything refused, and then nothing was written or counted.
    fn meter_and_cancel_household(
        &self,
        cancel: &MeteredHouseholdCancel<'_>,
    ) -> impl Future<Output = Result<Option<Account>, StoreError>> + Send;
    /// An API resend in one write: counts the request as `meter_and_create` does AND records the
    /// resend as `InviteStore::record_resend` does (the day's count, refused past
    /// `max_per_day`, and the invite round), only if the verification is of the key's account and
    /// mode, open and not past its expiry at `now`. Some((the account after the count, the
    /// verification after the resend)) when both happened (its day count is this resend's place,
    /// exact unless other resends of it raced this one: see `resend::as_placed`); None when
    /// anything refused, and then nothing was written or counted (the caller goes the usual way,
    /// which tells why).
    fn meter_and_resend(
        &self,
        resend: &MeteredResend<'_>,
    ) -> impl Future<Output = Result<Option<(Account, Verification)>, StoreError>> + Send;
    /// An API redelivery request in one write: counts the request as `meter_and_create` does AND
    /// counts the redelivery on the stored event as `WebhookHistoryStore::request_redelivery`
    /// does, only if the event is of the key's account and of `subject`, itself (the verification
    /// or the household) of the key's account and mode. Some(the account after the count) when both happened; None when
    /// anything refused, and then nothing was written or counted.
    fn meter_and_redeliver(
        &self,
        redelivery: &MeteredRedelivery<'_>,
    ) -> impl Future<Output = Result<Option<Account>, StoreError>> + Send;
}

/// An API resend that carries its own metering (`MeterStore::meter_and_resend`).
pub struct MeteredResend<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub verification_id: Uuid,
    pub max_per_day: u32,
}

/// An API redelivery request that carries its own metering (`MeterStore::meter_and_redeliver`).
pub struct MeteredRedelivery<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub event_id: &'a str,
    /// The subject the event id names (`WebhookSubject::of_event_id`): its account and mode are
    /// checked.
    pub subject: WebhookSubject,
}

/// An API create that carries its own metering (`MeterStore::meter_and_create`).
pub struct MeteredCreate<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub verification: &'a Verification,
    pub idempotency: Option<&'a IdempotencyClaim>,
}

/// An API household create that carries its own metering
/// (`MeterStore::meter_and_create_household`).
pub struct MeteredHousehold<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub household: &'a Household,
    pub members: &'a [Verification],
    pub idempotency: Option<&'a IdempotencyClaim>,
}

/// An API cancel that carries its own metering (`MeterStore::meter_and_cancel`).
pub struct MeteredCancel<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub verification_id: Uuid,
}

/// An API household cancel that carries its own metering
/// (`MeterStore::meter_and_cancel_household`).
pub struct MeteredHouseholdCancel<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub household_id: Uuid,
    /// The members the caller read open (at least one): each is cancelled in the same write.
    pub members: &'a [Uuid],
}
