//! The claims of the tenant's messages on `FaultyStore` (kept apart from `faulty.rs`): the
//! notices (`NoticeStore`: the reminder and SMS paths), the invite e-mail (`EmailClaimStore`) and
//! the resends (`InviteStore`), under injected faults.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::faulty::{FaultPlan, FaultyStore, StoreOp};
use crate::domain::Verification;
use crate::domain::reach::Notice;
use crate::ports::{
    EmailClaimStore, EmailStart, InviteStore, NoticeClaim, NoticeStore, ResendOutcome, StoreError,
};

impl<S: NoticeStore, F: FaultPlan> NoticeStore for FaultyStore<S, F> {
    async fn claim_notice(
        &self,
        id: Uuid,
        notice: &Notice,
        token_hash: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<NoticeClaim, StoreError> {
        self.faults.check(StoreOp::ClaimNotice)?;
        self.inner
            .claim_notice(id, notice, token_hash, now, lease_until)
            .await
    }
    async fn mark_notice_sent(&self, id: Uuid, notice: &Notice) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkNoticeSent)?;
        self.inner.mark_notice_sent(id, notice).await
    }
    async fn release_notice(&self, id: Uuid, notice: &Notice) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ReleaseNotice)?;
        self.inner.release_notice(id, notice).await
    }
}

impl<S: EmailClaimStore, F: FaultPlan> EmailClaimStore for FaultyStore<S, F> {
    /// Fails where either of the two writes it joins would (the claim, the link token).
    async fn claim_email_and_bind(
        &self,
        id: Uuid,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<EmailStart, StoreError> {
        self.faults.check(StoreOp::ClaimEmailSend)?;
        self.faults.check(StoreOp::AddLinkToken)?;
        self.inner.claim_email_and_bind(id, token_hash, now).await
    }
    async fn mark_email_rejected(&self, id: Uuid, reason: &str) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkEmailRejected)?;
        self.inner.mark_email_rejected(id, reason).await
    }
    async fn mark_email_sent(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkEmailSent)?;
        self.inner.mark_email_sent(id, now).await
    }
    async fn release_email_send(&self, id: Uuid) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ReleaseEmailSend)?;
        self.inner.release_email_send(id).await
    }
}

impl<S: InviteStore, F: FaultPlan> InviteStore for FaultyStore<S, F> {
    async fn record_resend(
        &self,
        current: &Verification,
        now: DateTime<Utc>,
        max_per_day: u32,
    ) -> Result<ResendOutcome, StoreError> {
        self.faults.check(StoreOp::RecordResend)?;
        self.inner.record_resend(current, now, max_per_day).await
    }
    async fn claim_invite_and_bind(
        &self,
        id: Uuid,
        round: u32,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<EmailStart, StoreError> {
        self.faults.check(StoreOp::ClaimInviteAndBind)?;
        self.inner
            .claim_invite_and_bind(id, round, token_hash, now)
            .await
    }
    async fn mark_invite_sent(
        &self,
        id: Uuid,
        round: u32,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkInviteSent)?;
        self.inner.mark_invite_sent(id, round, now).await
    }
    async fn mark_invite_rejected(
        &self,
        id: Uuid,
        round: u32,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::MarkInviteRejected)?;
        self.inner.mark_invite_rejected(id, round, reason).await
    }
    async fn release_invite(&self, id: Uuid, round: u32) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ReleaseInvite)?;
        self.inner.release_invite(id, round).await
    }
}
