//! `InviteStore` in memory, with the adapter's conditions: the resend write is refused unless the
//! verification is open, unexpired and at the round the caller read.

use chrono::{DateTime, Utc};

use super::MemoryStore;
use crate::domain::{Status, Verification, resend};
use crate::ports::{InviteStore, ResendOutcome, StoreError};

fn open_at(v: &Verification, now: DateTime<Utc>) -> bool {
    matches!(v.status, Status::Pending | Status::InProgress) && v.expires_at > now
}

impl InviteStore for MemoryStore {
    async fn record_resend(
        &self,
        current: &Verification,
        now: DateTime<Utc>,
        max_per_day: u32,
    ) -> Result<ResendOutcome, StoreError> {
        if resend::resends_today(current, now) >= max_per_day {
            return Ok(ResendOutcome::LimitReached);
        }
        let mut t = self.lock();
        let Some(stored) = t.verifications.get_mut(&current.verification_id) else {
            return Ok(ResendOutcome::Conflict(None));
        };
        if !open_at(stored, now) || stored.invite_round != current.invite_round {
            return Ok(ResendOutcome::Conflict(Some(stored.clone())));
        }
        let next = resend::record(stored, now);
        stored.invite_round = next.invite_round;
        stored.resend_day = next.resend_day;
        stored.resends_on_day = next.resends_on_day;
        stored.last_resent_at = next.last_resent_at;
        Ok(ResendOutcome::Applied(stored.clone()))
    }
}
