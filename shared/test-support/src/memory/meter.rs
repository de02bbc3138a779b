//! The in-memory store's metering: the daily allowance by the domain's rule, and the API writes
//! that carry their own metering, each under the one lock (as the adapter's single transaction),
//! a live create within the monthly allowance of the account's plan. A refused operation is told
//! by what it found, and the request alone is counted, as the adapter does.

use chrono::{DateTime, Utc};

use super::counted::{cancel_open_locked, create_locked};
use super::households::create_household_locked;
use super::{MemoryStore, Tables};
use domain::household::HouseholdShape;
use domain::metering::{
    MeterDecision, MeterOutcome, MeterRefusal, PresentedKey, classify_meter, count_one, spend_burst,
};
use domain::plans::Plans;
use domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
use domain::{Account, Mode, Status, Verification, resend};
use ports::{
    CountedRefusal, CreateOutcome, CreateRefusal, HouseholdCancelRefusal, MeterStore, Metered,
    MeteredCancel, MeteredCreate, MeteredHousehold, MeteredHouseholdCancel, MeteredRedelivery,
    MeteredResend, RedeliveryRefusal, StoreError, VerificationRefusal,
};

impl MeterStore for MemoryStore {
    async fn meter_api_request(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        let mut t = self.lock();
        Ok(match allowed(&t, key, now, plans) {
            Ok(account) => MeterOutcome::Allowed(count_locked(&mut t, &account, now)),
            Err(refusal) => MeterOutcome::Refused(*refusal),
        })
    }

    async fn meter_and_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        let MeteredCreate {
            key,
            now,
            plans,
            verification,
            idempotency,
        } = *create;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        let limit = monthly_limit(&account, plans, verification.mode);
        let created = create_locked(&mut t, verification, idempotency, limit)?;
        Ok(settle(&mut t, &account, now, created_or(created)))
    }

    async fn meter_and_create_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        let MeteredHousehold {
            key,
            now,
            plans,
            household,
            members,
            idempotency,
        } = *create;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        let limit = monthly_limit(&account, plans, household.mode);
        let created = create_household_locked(&mut t, household, members, idempotency, limit)?;
        Ok(settle(&mut t, &account, now, created_or(created)))
    }

    async fn meter_and_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> Result<Metered<(), VerificationRefusal>, StoreError> {
        let MeteredCancel {
            key,
            now,
            plans,
            verification_id,
        } = *cancel;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        let done = if cancel_open_locked(&mut t, verification_id, &key.account_id, key.mode, now) {
            Ok(())
        } else {
            // As the adapter reads it off the verification its condition saw.
            let stored = t.verifications.get(&verification_id).cloned();
            Err(match stored.filter(|v| owned(v, key)) {
                Some(v) => VerificationRefusal::Closed(Box::new(v)),
                None => VerificationRefusal::NotFound,
            })
        };
        Ok(settle(&mut t, &account, now, done))
    }

    async fn meter_and_cancel_household(
        &self,
        cancel: &MeteredHouseholdCancel<'_>,
    ) -> Result<Metered<(), HouseholdCancelRefusal>, StoreError> {
        let MeteredHouseholdCancel {
            key,
            now,
            plans,
            household_id,
            members,
        } = *cancel;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        // As the adapter's conditions, each told by what it saw: each named member of the
        // household, still open and unexpired; the key's own household, of the members its id's
        // shape says, undecided and not cancelled yet.
        let (mut closed, mut open) = (Vec::new(), Vec::new());
        for id in members {
            let member = (t.verifications.get(id))
                .filter(|v| owned(v, key) && v.household_id == Some(household_id));
            match member {
                Some(v) if v.effective_status(now).is_open() => open.push(*id),
                Some(v) => closed.push(v.clone()),
                None => {}
            }
        }
        let shaped = HouseholdShape::member_count(household_id);
        let own = (t.households.get(&household_id))
            .filter(|h| h.account_id == key.account_id && h.mode == key.mode)
            .cloned();
        let refused = match own {
            Some(h) if h.is_closed() => Some(HouseholdCancelRefusal::Closed(Box::new(h), closed)),
            Some(h) if h.members.len() == shaped => (open.len() < members.len())
                .then_some(HouseholdCancelRefusal::MembersClosed { closed, open }),
            _ => Some(HouseholdCancelRefusal::NotFound),
        };
        if let Some(why) = refused {
            if !why.counts_the_request() {
                // Settled by the caller trying again: nothing written, nothing counted.
                return Ok(Metered::Refused(account, why));
            }
            return Ok(settle(&mut t, &account, now, Err(why)));
        }
        for id in members {
            cancel_open_locked(&mut t, *id, &key.account_id, key.mode, now);
        }
        if let Some(household) = t.households.get_mut(&household_id) {
            household.cancelled_at = Some(now);
        }
        Ok(settle(&mut t, &account, now, Ok(())))
    }

    async fn meter_and_resend(
        &self,
        resend: &MeteredResend<'_>,
    ) -> Result<Metered<Verification, VerificationRefusal>, StoreError> {
        let MeteredResend {
            key,
            now,
            plans,
            verification_id,
            max_per_day,
        } = *resend;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        let stored = t.verifications.get(&verification_id).cloned();
        // As the adapter's condition: the key's own verification, open, before its expiry, with
        // resends left today.
        let done = match stored.filter(|v| owned(v, key)) {
            None => Err(VerificationRefusal::NotFound),
            Some(v) if !matches!(v.status, Status::Pending | Status::InProgress) => {
                Err(VerificationRefusal::Closed(Box::new(v)))
            }
            Some(v) if now >= v.expires_at => Err(VerificationRefusal::Closed(Box::new(v))),
            Some(v) if resend::resends_today(&v, now) >= max_per_day => {
                Err(VerificationRefusal::ResendLimitReached)
            }
            Some(v) => {
                let next = resend::record(&v, now);
                t.verifications.insert(verification_id, next.clone());
                Ok(next)
            }
        };
        Ok(settle(&mut t, &account, now, done))
    }

    async fn meter_and_redeliver(
        &self,
        redelivery: &MeteredRedelivery<'_>,
    ) -> Result<Metered<StoredWebhookEvent, RedeliveryRefusal>, StoreError> {
        let MeteredRedelivery {
            key,
            now,
            plans,
            event_id,
            subject,
        } = *redelivery;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        // The subject: the key's own (account and mode), and whether it has a `webhook_url`.
        let subject_hook = match subject {
            WebhookSubject::Verification(id) => (t.verifications.get(&id))
                .filter(|v| owned(v, key))
                .map(|v| v.webhook_url.is_some()),
            WebhookSubject::Household(id) => (t.households.get(&id))
                .filter(|h| h.account_id == key.account_id && h.mode == key.mode)
                .map(|h| h.webhook_url.is_some()),
        };
        // The history's lock is taken under the table's, as nowhere the other way round.
        let counted = subject_hook.and_then(|_| {
            self.count_redelivery_if(event_id, |e| {
                e.message.account_id == key.account_id && e.subject == subject
            })
        });
        // As the adapter tells it: no event of the key's by that id; one of the key's own
        // subjects without a `webhook_url` has none.
        let done = match (counted, subject_hook) {
            (Some(event), _) => Ok(event),
            (None, Some(false)) => Err(RedeliveryRefusal::NoWebhookUrl),
            (None, _) => Err(RedeliveryRefusal::NotFound),
        };
        Ok(settle(&mut t, &account, now, done))
    }
}

/// The key's account when the domain's rule counts one more request of it, its key's burst
/// spent in this copy (`count_locked` keeps it), else why not (boxed: it is large).
pub(super) fn allowed(
    t: &Tables,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &Plans,
) -> Result<Account, Box<MeterRefusal>> {
    let account = t.accounts.get(&key.account_id).cloned();
    let plan = account.as_ref().and_then(|a| plans.get(&a.plan));
    match (classify_meter(account.clone(), plan, key, now), account) {
        (MeterDecision::Count | MeterDecision::StartWindow, Some(mut account)) => {
            if let Some(plan) = plan {
                spend_burst(&mut account, key, now, plan);
            }
            Ok(account)
        }
        (MeterDecision::Refuse(refusal), _) => Err(Box::new(refusal)),
        (_, None) => Err(Box::new(MeterRefusal::UnknownAccount)),
    }
}

/// The monthly allowance of the account's plan for creates in `mode` (live only).
fn monthly_limit(account: &Account, plans: &Plans, mode: Mode) -> Option<u32> {
    match mode {
        Mode::Live => plans.get(&account.plan).map(|p| p.verifications_per_month),
        Mode::Test => None,
    }
}

/// Whether the verification is the key's own (account and mode).
pub(super) fn owned(v: &Verification, key: &PresentedKey) -> bool {
    v.account_id == key.account_id && v.mode == key.mode
}

fn created_or(created: CreateOutcome) -> Result<(), CreateRefusal> {
    match created {
        CreateOutcome::Created => Ok(()),
        CreateOutcome::LimitReached => Err(CreateRefusal::LimitReached),
        CreateOutcome::IdempotencyConflict(record) => {
            Err(CreateRefusal::IdempotencyConflict(record))
        }
    }
}

/// Counts the (allowed) request, done or refused alike, and tells which.
pub(super) fn settle<T, R>(
    t: &mut Tables,
    account: &Account,
    now: DateTime<Utc>,
    done: Result<T, R>,
) -> Metered<T, R> {
    let after = count_locked(t, account, now);
    match done {
        Ok(done) => Metered::Done(after, done),
        Err(why) => Metered::Refused(after, why),
    }
}

/// Counts one request on the (allowed) account and returns it after the count.
fn count_locked(t: &mut Tables, counted: &Account, now: DateTime<Utc>) -> Account {
    let account = t
        .accounts
        .get_mut(&counted.account_id)
        .expect("read under the same lock");
    account.key_bursts = counted.key_bursts.clone();
    count_one(account, now);
    account.clone()
}
