//! The daily API allowance, metered on the account item, and the writes that carry it with them,
//! with their typed outcomes.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{IdempotencyClaim, IdempotencyRecord, StoreError};
use domain::household::Household;
use domain::metering::{MeterOutcome, MeterRefusal, PresentedKey};
use domain::plans::Plans;
use domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
use domain::{Account, Verification};

/// What a write that carries its own metering did (`MeterStore`'s `meter_and_*`).
#[derive(Debug, Clone, PartialEq)]
pub enum Metered<T, R> {
    /// Counted and done in ONE transaction: the account after the count, and the operation's
    /// answer.
    Done(Account, T),
    /// The operation was refused, `R` says why (read off the items its conditions saw). The
    /// request alone was then counted, as `MeterStore::meter_api_request` counts one, unless the
    /// refusal says otherwise (`CountedRefusal`): the account after that count. Nothing else was
    /// written.
    Refused(Account, R),
    /// The account refused the request: nothing was written or counted.
    AccountRefused(MeterRefusal),
}

impl<R> Metered<(), R> {
    /// The account after a done write's count; else the refusal, as an outcome of any answer
    /// (boxed: it is large).
    pub fn into_done<T>(self) -> Result<Account, Box<Metered<T, R>>> {
        match self {
            Metered::Done(account, ()) => Ok(account),
            Metered::Refused(account, why) => Err(Box::new(Metered::Refused(account, why))),
            Metered::AccountRefused(why) => Err(Box::new(Metered::AccountRefused(why))),
        }
    }
}

/// Why a metered create (a verification or a household) was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum CreateRefusal {
    /// The monthly allowance of the account's plan is used up (live keys only).
    LimitReached,
    /// The Idempotency-Key was used before (within its lifetime).
    IdempotencyConflict(IdempotencyRecord),
}

/// Why a metered cancel or resend of a verification was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum VerificationRefusal {
    /// No such verification of the key's account and mode.
    NotFound,
    /// The key's own verification, no longer open (or past its expiry): as it is.
    Closed(Box<Verification>),
    /// A resend past the day's resends (`MeteredResend::max_per_day`).
    ResendLimitReached,
}

/// Why a metered household cancel was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum HouseholdCancelRefusal {
    /// No such household of the key's account and mode (or one its id's shape does not
    /// describe: `HouseholdShape`).
    NotFound,
    /// The key's own household, decided or cancelled already: as it is, with each named member
    /// that refused too, as its condition saw it.
    Closed(Box<Household>, Vec<Verification>),
    /// The household could be cancelled, but some named members are no longer open (final, or
    /// past their expiry). Nothing was written. The request is counted only when no named member
    /// is left open (`open` empty: nothing to cancel); otherwise the caller names `open` alone
    /// and tries again.
    MembersClosed {
        /// Each named member that refused, as its condition saw it (one of no verification of
        /// the household is left out).
        closed: Vec<Verification>,
        /// The named members whose conditions held.
        open: Vec<Uuid>,
    },
}

/// Whether a refusal counts its request (`Metered::Refused`): every refusal does, except one the
/// caller settles by trying again.
pub trait CountedRefusal {
    fn counts_the_request(&self) -> bool {
        true
    }
}

impl CountedRefusal for CreateRefusal {}
impl CountedRefusal for VerificationRefusal {}
impl CountedRefusal for RedeliveryRefusal {}
impl CountedRefusal for HouseholdCancelRefusal {
    fn counts_the_request(&self) -> bool {
        match self {
            HouseholdCancelRefusal::MembersClosed { open, .. } => open.is_empty(),
            _ => true,
        }
    }
}

/// Why a metered redelivery request was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum RedeliveryRefusal {
    /// No such event of the key's account and mode.
    NotFound,
    /// The event id names one of the key's own verifications or households, which has no
    /// `webhook_url` (so no event was ever sent for it).
    NoWebhookUrl,
}

/// The daily API allowance, metered on the account item, and the API writes that carry it: each
/// counts the request and does its operation in ONE transaction (one DynamoDB round trip). When
/// any condition refuses, nothing is written; the store says why from what the conditions saw,
/// and a request its account allowed is then counted alone (a second round trip at most).
pub trait MeterStore: Send + Sync {
    /// Authentication (the key's hash listed on the account it names with its mode, the key not
    /// revoked), plan, subscription and the API allowance: one conditional update of the key's
    /// account.
    fn meter_api_request(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> impl Future<Output = Result<MeterOutcome, StoreError>> + Send;
    /// An API create: counts the request as `meter_api_request` does AND creates `verification`
    /// as `VerificationStore::create_verification` does, a live one within the monthly allowance
    /// of the account's plan (whichever it is), atomically.
    fn meter_and_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> impl Future<Output = Result<Metered<(), CreateRefusal>, StoreError>> + Send;
    /// An API household create: counts the request AND creates the household with its members as
    /// `HouseholdStore::create_household` does, a live one within the monthly allowance of the
    /// account's plan for all members at once.
    fn meter_and_create_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> impl Future<Output = Result<Metered<(), CreateRefusal>, StoreError>> + Send;
    /// An API cancel: counts the request AND cancels the verification (`Transition::Cancel`,
    /// counters moved with it), only if it is of the key's account and mode, still open (pending
    /// or in progress: both in the one `open` counter, so the write need not know which) and not
    /// past its expiry at `now`.
    fn meter_and_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> impl Future<Output = Result<Metered<(), VerificationRefusal>, StoreError>> + Send;
    /// An API household cancel: counts the request AND marks the household cancelled
    /// (`Household::cancelled_at` = `now`) AND cancels each of `cancel.members` as
    /// `meter_and_cancel` cancels one (counters moved with them), only if the household is of the
    /// key's account and mode, has the members its id's shape says, is undecided and not
    /// cancelled yet, and each of those members is still open, not past its expiry and of the
    /// household. A refusal carries every refused item as its condition saw it, so no read is
    /// needed to answer it.
    fn meter_and_cancel_household(
        &self,
        cancel: &MeteredHouseholdCancel<'_>,
    ) -> impl Future<Output = Result<Metered<(), HouseholdCancelRefusal>, StoreError>> + Send;
    /// An API resend: counts the request AND records the resend (the day's count, refused past
    /// `max_per_day`, and the invite round), only if the verification is of the key's account and
    /// mode, open and not past its expiry at `now`. Done with the verification after the resend
    /// (its day count is this resend's place, exact unless other resends of it raced this one:
    /// see `resend::as_placed`).
    fn meter_and_resend(
        &self,
        resend: &MeteredResend<'_>,
    ) -> impl Future<Output = Result<Metered<Verification, VerificationRefusal>, StoreError>> + Send;
    /// An API redelivery request: counts the request AND counts the redelivery on the stored
    /// event as `WebhookHistoryStore::request_redelivery` does, only if the event is of the key's
    /// account and of `subject`, itself (the verification or the household) of the key's account
    /// and mode. Done with the event as stored.
    fn meter_and_redeliver(
        &self,
        redelivery: &MeteredRedelivery<'_>,
    ) -> impl Future<Output = Result<Metered<StoredWebhookEvent, RedeliveryRefusal>, StoreError>> + Send;
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
    /// The members to cancel in the same write: those the id's shape names
    /// (`HouseholdShape::members`), less any an earlier attempt found closed; none for an id
    /// without a shape (the write's refusal then says not found).
    pub members: &'a [Uuid],
}
