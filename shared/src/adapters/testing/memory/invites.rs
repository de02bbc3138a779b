//! `InviteStore` in memory, with the adapter's conditions: the resend write is refused unless the
//! verification is open, unexpired and at the round the caller read.

use std::collections::HashMap;
use std::sync::MutexGuard;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{EmailState, MemoryStore, refused};
use crate::adapters::dynamo::EMAIL_LEASE;
use crate::domain::reach::invite_email_key;
use crate::domain::{Status, Verification, resend};
use crate::ports::{EmailClaim, EmailStart, InviteStore, ResendOutcome, StoreError};

fn open_at(v: &Verification, now: DateTime<Utc>) -> bool {
    matches!(v.status, Status::Pending | Status::InProgress) && v.expires_at > now
}

impl MemoryStore {
    fn invite_claims(&self) -> MutexGuard<'_, HashMap<(Uuid, u32), EmailState>> {
        self.invite_claims
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
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

    async fn claim_invite_and_bind(
        &self,
        id: Uuid,
        round: u32,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<EmailStart, StoreError> {
        let mut t = self.lock();
        let open = t.verifications.get(&id).is_some_and(|v| open_at(v, now));
        if !open {
            return Ok(EmailStart::NotPending);
        }
        let mut claims = self.invite_claims();
        match claims.get(&(id, round)) {
            Some(EmailState::Sending { lease_until })
                if lease_until.timestamp() >= now.timestamp() =>
            {
                return Ok(EmailStart::Refused(EmailClaim::Held));
            }
            Some(EmailState::Sent) => return Ok(EmailStart::Refused(EmailClaim::Sent)),
            Some(EmailState::Rejected(reason)) => {
                return Ok(EmailStart::Refused(EmailClaim::Rejected(reason.clone())));
            }
            _ => {}
        }
        claims.insert(
            (id, round),
            EmailState::Sending {
                lease_until: now + EMAIL_LEASE,
            },
        );
        if let Some(v) = t.verifications.get_mut(&id) {
            v.message_links
                .insert(invite_email_key(round), token_hash.to_string());
        }
        Ok(EmailStart::Claimed)
    }

    async fn mark_invite_sent(
        &self,
        id: Uuid,
        round: u32,
        _now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.invite_claims().insert((id, round), EmailState::Sent);
        Ok(())
    }

    async fn mark_invite_rejected(
        &self,
        id: Uuid,
        round: u32,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.invite_claims()
            .insert((id, round), EmailState::Rejected(reason.to_string()));
        Ok(())
    }

    async fn release_invite(&self, id: Uuid, round: u32) -> Result<(), StoreError> {
        let mut claims = self.invite_claims();
        match claims.get(&(id, round)) {
            Some(EmailState::Sending { .. }) => {
                claims.remove(&(id, round));
                Ok(())
            }
            _ => Err(refused("no invite claim being sent")),
        }
    }
}
