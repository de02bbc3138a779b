//! The in-memory store's metering: the daily allowance by the domain's rule, and the create and
//! the cancel that carry their own metering, each under the one lock (as the adapter's single
//! write).

use chrono::{DateTime, Utc};

use super::MemoryStore;
use super::counted::{cancel_open_locked, create_locked};
use crate::config::Plans;
use crate::domain::metering::{MeterDecision, MeterOutcome, PresentedKey, classify_meter};
use crate::domain::{Account, Status, Verification, api_window, resend};
use crate::ports::{
    CreateOutcome, MeterStore, MeteredCancel, MeteredCreate, MeteredRedelivery, MeteredResend,
    StoreError,
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
            MeterDecision::Count => account.api_requests += 1,
            MeterDecision::StartWindow => {
                account.api_window = Some(api_window(now));
                account.api_requests = 1;
            }
        }
        Ok(MeterOutcome::Allowed(account.clone()))
    }

    async fn meter_and_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredCreate {
            key,
            plan,
            now,
            plans,
            verification,
            idempotency,
            monthly_limit,
        } = *create;
        let mut t = self.lock();
        let Some(account) = t.accounts.get(&key.account_id).cloned() else {
            return Ok(None);
        };
        if plan.is_some_and(|p| p != account.plan) {
            return Ok(None);
        }
        let decision = classify_meter(Some(account.clone()), plans.get(&account.plan), key, now);
        if decision != MeterDecision::Count
            || create_locked(&mut t, verification, idempotency, monthly_limit)?
                != CreateOutcome::Created
        {
            return Ok(None);
        }
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        account.api_requests += 1;
        Ok(Some(account.clone()))
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
        let Some(account) = t.accounts.get(&key.account_id).cloned() else {
            return Ok(None);
        };
        let decision = classify_meter(Some(account.clone()), plans.get(&account.plan), key, now);
        if decision != MeterDecision::Count
            || !cancel_open_locked(&mut t, verification_id, &key.account_id, key.mode, now)
        {
            return Ok(None);
        }
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        account.api_requests += 1;
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
        let Some(account) = t.accounts.get(&key.account_id).cloned() else {
            return Ok(None);
        };
        let decision = classify_meter(Some(account.clone()), plans.get(&account.plan), key, now);
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
        if decision != MeterDecision::Count || !resendable {
            return Ok(None);
        }
        let next = resend::record(&stored, now);
        t.verifications.insert(verification_id, next.clone());
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        account.api_requests += 1;
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
            verification_id,
        } = *redelivery;
        let mut t = self.lock();
        let Some(account) = t.accounts.get(&key.account_id).cloned() else {
            return Ok(None);
        };
        let decision = classify_meter(Some(account.clone()), plans.get(&account.plan), key, now);
        let owned_verification = t
            .verifications
            .get(&verification_id)
            .is_some_and(|v| v.account_id == key.account_id && v.mode == key.mode);
        if decision != MeterDecision::Count || !owned_verification {
            return Ok(None);
        }
        // The history's lock is taken under the table's, as nowhere the other way round.
        if !self.count_redelivery_if(event_id, |e| {
            e.message.account_id == key.account_id && e.verification_id == verification_id
        }) {
            return Ok(None);
        }
        let account = t.accounts.get_mut(&key.account_id).expect("read above");
        account.api_requests += 1;
        Ok(Some(account.clone()))
    }
}
