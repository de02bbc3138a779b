//! `NoticeStore` of `FaultyStore` (kept apart from `faulty.rs`, as the notices are the reach
//! functions' own role): the reminder and SMS paths under injected faults.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::faulty::{FaultPlan, FaultyStore, StoreOp};
use crate::domain::reach::Notice;
use crate::ports::{NoticeClaim, NoticeStore, StoreError};

impl<S: NoticeStore, F: FaultPlan> NoticeStore for FaultyStore<S, F> {
    async fn claim_notice(
        &self,
        id: Uuid,
        household_id: Option<Uuid>,
        notice: &Notice,
        token_hash: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<NoticeClaim, StoreError> {
        self.faults.check(StoreOp::ClaimNotice)?;
        self.inner
            .claim_notice(id, household_id, notice, token_hash, now, lease_until)
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
