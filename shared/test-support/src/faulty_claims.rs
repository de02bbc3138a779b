//! The claims of the tenant's messages on `FaultyStore` (kept apart from `faulty.rs`): every
//! message's claim (`MessageClaimStore`), under injected faults.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::faulty::{FaultPlan, FaultyStore, StoreOp};
use domain::reach::Message;
use ports::{ClaimStart, MessageClaimStore, SmsAllowance, StoreError};

impl<S: MessageClaimStore, F: FaultPlan> MessageClaimStore for FaultyStore<S, F> {
    /// Fails where either of the two writes it joins would (the claim item, the link's binding).
    async fn claim_message(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<ClaimStart, StoreError> {
        self.faults.check(StoreOp::ClaimMessage)?;
        self.faults.check(StoreOp::AddLinkToken)?;
        self.inner.claim_message(id, message, token_hash, now).await
    }
    async fn claim_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        token_hash: &str,
        now: DateTime<Utc>,
        allowance: &SmsAllowance,
    ) -> Result<ClaimStart, StoreError> {
        self.faults.check(StoreOp::ClaimMessage)?;
        self.faults.check(StoreOp::AddLinkToken)?;
        (self.inner)
            .claim_counted_sms(id, message, token_hash, now, allowance)
            .await
    }
    async fn release_counted_sms(
        &self,
        id: Uuid,
        message: &Message,
        allowance: &SmsAllowance,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ReleaseMessage)?;
        self.inner.release_counted_sms(id, message, allowance).await
    }
    async fn refuse_message(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkMessageRejected)?;
        self.inner.refuse_message(id, message, reason, now).await
    }
    async fn mark_message_sent(
        &self,
        id: Uuid,
        message: &Message,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkMessageSent)?;
        self.inner.mark_message_sent(id, message, now).await
    }
    async fn mark_message_rejected(
        &self,
        id: Uuid,
        message: &Message,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkMessageRejected)?;
        self.inner.mark_message_rejected(id, message, reason).await
    }
    async fn release_message(&self, id: Uuid, message: &Message) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ReleaseMessage)?;
        self.inner.release_message(id, message).await
    }
}
