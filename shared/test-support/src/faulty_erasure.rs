//! Retention and erasure on `FaultyStore` (kept apart from `faulty.rs`): `ErasureStore` under
//! injected faults.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::faulty::{FaultPlan, FaultyStore, StoreOp};
use domain::retention::RetentionDays;
use ports::{ErasureOutcome, ErasureRefusal, ErasureStore, Metered, MeteredErasure, StoreError};

impl<S: ErasureStore, F: FaultPlan> ErasureStore for FaultyStore<S, F> {
    async fn retention_days(&self, account_id: &str) -> Result<Option<RetentionDays>, StoreError> {
        self.faults.check(StoreOp::RetentionDays)?;
        self.inner.retention_days(account_id).await
    }
    async fn set_retention_days(
        &self,
        account_id: &str,
        days: RetentionDays,
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::SetRetentionDays)?;
        self.inner.set_retention_days(account_id, days).await
    }
    async fn arm_erasure(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ArmErasure)?;
        self.inner.arm_erasure(id, at).await
    }
    async fn closed_unerased(
        &self,
        account_id: &str,
    ) -> Result<Vec<(Uuid, DateTime<Utc>)>, StoreError> {
        self.faults.check(StoreOp::ClosedUnerased)?;
        self.inner.closed_unerased(account_id).await
    }
    async fn erase_verification(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<ErasureOutcome, StoreError> {
        self.faults.check(StoreOp::EraseVerification)?;
        self.inner.erase_verification(id, now).await
    }
    async fn forget_provider_user(&self, id: Uuid, provider_user: &str) -> Result<(), StoreError> {
        self.faults.check(StoreOp::ForgetProviderUser)?;
        self.inner.forget_provider_user(id, provider_user).await
    }
    async fn meter_and_erase(
        &self,
        erasure: &MeteredErasure<'_>,
    ) -> Result<Metered<(), ErasureRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndErase)?;
        self.inner.meter_and_erase(erasure).await
    }
}
