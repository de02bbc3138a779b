//! The in-memory store's metering: the daily allowance by the domain's rule, and the create and
//! the cancel that carry their own metering, each under the one lock (as the adapter's single
//! write), a live create within the monthly allowance of the account's plan.

use chrono::{DateTime, Utc};

use super::counted::{cancel_open_locked, create_locked};
use super::households::create_household_locked;
use super::{MemoryStore, Tables};
use crate::config::Plans;
use crate::domain::metering::{
    MeterDecision, MeterOutcome, PresentedKey, classify_meter, count_one,
};
use crate::domain::webhook_log::WebhookSubject;
use crate::domain::{Account, Mode, Status, Verification, resend};
use crate::ports::{
    CreateOutcome, MeterStore, MeteredCancel, MeteredCreate, MeteredHousehold,
    MeteredHouseholdCancel, MeteredRedelivery, MeteredResend, StoreError,
};

impl MeterStore for MemoryStore {
    async fn meter_api_request(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        let mut t = self.lock();
        let account = t.accounts.get(&key.account_id).cloned();
        let plan = account.as_ref().and_then(|a| plans.get(&a.plan));
        let decision = classify_meter(account, plan, key, now);
        let Some(account) = t.accounts.get_mut(&key.account_id) else {
            return Ok(MeterOutcome::UnknownAccount);
        };
        match decision {
            MeterDecision::Refuse(outcome) => return Ok(outcome),
            MeterDecision::Count | MeterDecision::StartWindow => count_one(account, now),
        }
        Ok(MeterOutcome::Allowed(account.clone()))
    }

    async fn meter_and_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredCreate {
            key,
            now,
            plans,
            verification,
            idempotency,
        } = *create;
        let mut t = self.lock();
        let Some((account, monthly_limit)) = countable(&t, key, now, plans, verification.mode)?
        else {
            return Ok(None);
        };
        if create_locked(&mut t, verification, idempotency, monthly_limit)?
            != CreateOutcome::Created
        {
            return Ok(None);
        }
        Ok(Some(count_locked(&mut t, &account, now)))
    }

    async fn meter_and_create_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredHousehold {
            key,
            now,
            plans,
            household,
            members,
            idempotency,
        } = *create;
        let mut t = self.lock();
        let Some((account, monthly_limit)) = countable(&t, key, now, plans, household.mode)? else {
            return Ok(None);
        };
        if create_household_locked(&mut t, household, members, idempotency, monthly_limit)?
            != CreateOutcome::Created
        {
            return Ok(None);
        }
        Ok(Some(count_locked(&mut t, &account, now)))
    }

    async fn meter_and_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredCancel {
            key,
            now,
            plans,
            verification_id,
        } = *cancel;
        let mut t = self.lock();
        let counted = counted_account(&t, key, now, plans)?;
        if counted.is_none()
            || !cancel_open_locked(&mut t, verification_id, &key.account_id, key.mode, now)
        {
            return Ok(None);
        }
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        count_one(account, now);
        Ok(Some(account.clone()))
    }

    async fn meter_and_cancel_household(
        &self,
        cancel: &MeteredHouseholdCancel<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredHouseholdCancel {
            key,
            now,
            plans,
            household_id,
            members,
        } = *cancel;
        let mut t = self.lock();
        let counted = counted_account(&t, key, now, plans)?;
        // As the adapter's conditions: the key's own household, undecided, not cancelled yet, and
        // each named member of it, still open and unexpired.
        let household = t.households.get(&household_id).filter(|h| {
            h.account_id == key.account_id
                && h.mode == key.mode
                && h.decision.is_none()
                && h.cancelled_at.is_none()
        });
        let members_open = members.iter().all(|id| {
            t.verifications.get(id).is_some_and(|v| {
                v.household_id == Some(household_id)
                    && v.status.is_open()
                    && v.account_id == key.account_id
                    && v.mode == key.mode
                    && now < v.expires_at
            })
        });
        if counted.is_none() || household.is_none() || !members_open || members.is_empty() {
            return Ok(None);
        }
        for id in members {
            cancel_open_locked(&mut t, *id, &key.account_id, key.mode, now);
        }
        if let Some(household) = t.households.get_mut(&household_id) {
            household.cancelled_at = Some(now);
        }
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        count_one(account, now);
        Ok(Some(account.clone()))
    }

    async fn meter_and_resend(
        &self,
        resend: &MeteredResend<'_>,
    ) -> Result<Option<(Account, Verification)>, StoreError> {
        let MeteredResend {
            key,
            now,
            plans,
            verification_id,
            max_per_day,
        } = *resend;
        let mut t = self.lock();
        let counted = counted_account(&t, key, now, plans)?;
        let Some(stored) = t.verifications.get(&verification_id).cloned() else {
            return Ok(None);
        };
        // As the adapter's condition: the key's own verification, open, before its expiry, with
        // resends left today.
        let resendable = stored.account_id == key.account_id
            && stored.mode == key.mode
            && matches!(stored.status, Status::Pending | Status::InProgress)
            && now < stored.expires_at
            && resend::resends_today(&stored, now) < max_per_day;
        if counted.is_none() || !resendable {
            return Ok(None);
        }
        let next = resend::record(&stored, now);
        t.verifications.insert(verification_id, next.clone());
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        count_one(account, now);
        Ok(Some((account.clone(), next)))
    }

    async fn meter_and_redeliver(
        &self,
        redelivery: &MeteredRedelivery<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredRedelivery {
            key,
            now,
            plans,
            event_id,
            subject,
        } = *redelivery;
        let mut t = self.lock();
        let counted = counted_account(&t, key, now, plans)?;
        let owned_subject = match subject {
            WebhookSubject::Verification(id) => (t.verifications.get(&id))
                .is_some_and(|v| v.account_id == key.account_id && v.mode == key.mode),
            WebhookSubject::Household(id) => (t.households.get(&id))
                .is_some_and(|h| h.account_id == key.account_id && h.mode == key.mode),
        };
        if counted.is_none() || !owned_subject {
            return Ok(None);
        }
        // The history's lock is taken under the table's, as nowhere the other way round.
        if !self.count_redelivery_if(event_id, |e| {
            e.message.account_id == key.account_id && e.subject == subject
        }) {
            return Ok(None);
        }
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        count_one(account, now);
        Ok(Some(account.clone()))
    }
}

/// The key's account when the domain's rule counts one more request of it (the first of a new
/// window too, as the adapter's count on the day's own attribute does). A refusal by the account
/// is told as the adapter tells it (`StoreError::MeterRefused`).
fn counted_account(
    t: &Tables,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &Plans,
) -> Result<Option<Account>, StoreError> {
    let account = t.accounts.get(&key.account_id).cloned();
    let plan = account.as_ref().and_then(|a| plans.get(&a.plan));
    match classify_meter(account.clone(), plan, key, now) {
        MeterDecision::Count | MeterDecision::StartWindow => Ok(account),
        MeterDecision::Refuse(outcome) => Err(StoreError::MeterRefused(Box::new(outcome))),
    }
}

/// `counted_account`, with the monthly allowance of its plan for creates in `mode` (live only).
fn countable(
    t: &Tables,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &Plans,
    mode: Mode,
) -> Result<Option<(Account, Option<u32>)>, StoreError> {
    let Some(account) = counted_account(t, key, now, plans)? else {
        return Ok(None);
    };
    let monthly_limit = match mode {
        Mode::Live => plans.get(&account.plan).map(|p| p.verifications_per_month),
        Mode::Test => None,
    };
    Ok(Some((account, monthly_limit)))
}

/// Counts one request on the (allowed) account and returns it after the count.
fn count_locked(t: &mut Tables, account: &Account, now: DateTime<Utc>) -> Account {
    let account = t
        .accounts
        .get_mut(&account.account_id)
        .expect("read under the same lock");
    count_one(account, now);
    account.clone()
}
