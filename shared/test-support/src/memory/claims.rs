//! The message claims in memory, with the adapter's conditions (`adapters/dynamo/message_claims.rs`):
//! one claim per verification and message, taken together with the binding of its link.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{MemoryStore, Tables, refused};
use domain::reach::{MESSAGE_LEASE, Message};
use domain::sms::SMS_ALLOWANCE_USED;
use ports::{ClaimStart, MessageClaim, MessageClaimStore, SmsAllowance, StoreError};

/// A stored claim, as the adapter's claim item holds it.
#[derive(Clone)]
pub(super) enum ClaimState {
    Sending { lease_until: DateTime<Utc> },
    Sent,
    Rejected(String),
}

impl MemoryStore {
    /// The claim of `message` of `id` as stored: `Claimed` while a lease is held (live or not),
    /// None when there is none. For tests.
    pub fn message_claim(&self, id: Uuid, message: &Message) -> Option<MessageClaim> {
        Some(match self.lock().claims.get(&(id, message.key()))? {
            ClaimState::Sending { .. } => MessageClaim::Claimed,
            ClaimState::Sent => MessageClaim::Sent,
            ClaimState::Rejected(reason) => MessageClaim::Rejected(reason.clone()),
        })
    }
}

/// Why a claim is refused at `now`, if it is. The adapter compares whole seconds (the lease is
/// stored as epoch seconds).
fn refusal(t: &Tables, key: &(Uuid, String), now: DateTime<Utc>) -> Option<MessageClaim> {
    match t.claims.get(key)? {
        ClaimState::Sending { lease_until } if lease_until.timestamp() < now.timestamp() => None,
        ClaimState::Sending { .. } => Some(MessageClaim::Held),
        ClaimState::Sent => Some(MessageClaim::Sent),
        ClaimState::Rejected(reason) => Some(MessageClaim::Rejected(reason.clone())),
    }
}

impl MemoryStore {
    /// Whether `message` of `id` may still go out at `now` (its verification open for it).
    fn claim_is_open(&self, id: Uuid, message: &Message, now: DateTime<Utc>) -> bool {
        (self.lock().verifications.get(&id))
            .is_some_and(|v| message.open_statuses().contains(&v.status) && v.expires_at > now)
    }
}

impl MessageClaimStore for MemoryStore {
    async fn claim_message(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<ClaimStart, StoreError> {
        let mut t = self.lock();
        let key = (id, message.key());
        let open = (t.verifications.get(&id))
            .is_some_and(|v| message.open_statuses().contains(&v.status) && v.expires_at > now);
        // As the adapter reads the transaction's reasons: sent first, then the verification's.
        match (refusal(&t, &key, now), open) {
            (Some(MessageClaim::Sent), _) => return Ok(ClaimStart::Refused(MessageClaim::Sent)),
            (_, false) => return Ok(ClaimStart::Closed),
            (Some(refused), true) => return Ok(ClaimStart::Refused(refused)),
            (None, true) => {}
        }
        let lease_until = now + MESSAGE_LEASE;
        t.claims.insert(key, ClaimState::Sending { lease_until });
        if let Some(v) = t.verifications.get_mut(&id) {
            v.message_links
                .insert(message.key(), token_hash.to_string());
        }
        Ok(ClaimStart::Claimed)
    }

    async fn claim_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
        allowance: &SmsAllowance,
    ) -> Result<ClaimStart, StoreError> {
        let key = (id, message.key());
        // As the adapter: a lapsed lease is taken over without a count (its holder's stands).
        let lapsed = matches!(
            self.lock().claims.get(&key),
            Some(ClaimState::Sending { lease_until }) if lease_until.timestamp() < now.timestamp()
        );
        if lapsed {
            return self.claim_message(id, message, token_hash, now).await;
        }
        let room = {
            let t = self.lock();
            let used = (t.accounts.get(&allowance.account_id)).map(|a| {
                if a.sms_month == allowance.month {
                    a.sms_sent
                } else {
                    0
                }
            });
            used.is_some_and(|used| used < allowance.limit)
        };
        if !room && refusal(&self.lock(), &key, now).is_none() {
            let open = self.claim_is_open(id, message, now);
            if !open {
                return Ok(ClaimStart::Closed);
            }
            self.refuse_message(id, message, SMS_ALLOWANCE_USED, now)
                .await?;
            return Ok(ClaimStart::Refused(MessageClaim::Rejected(
                SMS_ALLOWANCE_USED.into(),
            )));
        }
        let start = self.claim_message(id, message, token_hash, now).await?;
        if start == ClaimStart::Claimed
            && let Some(a) = self.lock().accounts.get_mut(&allowance.account_id)
        {
            if a.sms_month != allowance.month {
                (a.sms_month, a.sms_sent) = (allowance.month, 0);
            }
            a.sms_sent += 1;
        }
        Ok(start)
    }

    async fn release_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        allowance: &SmsAllowance,
    ) -> Result<(), StoreError> {
        self.release_message(id, message).await?;
        let mut t = self.lock();
        if let Some(a) = t.accounts.get_mut(&allowance.account_id)
            && a.sms_month == allowance.month
        {
            a.sms_sent = a.sms_sent.saturating_sub(1);
        }
        Ok(())
    }

    async fn refuse_message(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut t = self.lock();
        let key = (id, message.key());
        if refusal(&t, &key, now).is_none() {
            t.claims
                .insert(key, ClaimState::Rejected(reason.to_string()));
        }
        Ok(())
    }

    async fn mark_message_sent(
        &self,
        id: Uuid,
        message: &Message,
        _now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        (self.lock().claims).insert((id, message.key()), ClaimState::Sent);
        Ok(())
    }

    async fn mark_message_rejected(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
    ) -> Result<(), StoreError> {
        let rejected = ClaimState::Rejected(reason.to_string());
        self.lock().claims.insert((id, message.key()), rejected);
        Ok(())
    }

    async fn release_message(&self, id: Uuid, message: &Message) -> Result<(), StoreError> {
        let mut t = self.lock();
        let key = (id, message.key());
        match t.claims.get(&key) {
            Some(ClaimState::Sending { .. }) => {
                t.claims.remove(&key);
                Ok(())
            }
            _ => Err(refused("no claim being sent")),
        }
    }
}
