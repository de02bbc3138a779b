//! A store wrapper that fails chosen operations: around `MemoryStore` for handler tests, around
//! `DynamoStore` for the fault tests on moto. Each call asks the fault plan first, then delegates.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use domain::household::{Household, HouseholdDecision};
use domain::metering::{MeterOutcome, PresentedKey};
use domain::plans::Plans;
use domain::webhook_log::{DeliveryAttempt, DeliveryPage, StoredWebhookEvent, WebhookSubject};
use domain::{
    Account, ApiKeyRecord, Mode, MonthStats, OwnerStats, SubscriptionStatus, Transition,
    Verification,
};
use ports::{
    AccountStore, ApiKeyStore, CreateOutcome, CreateRefusal, HouseholdCancelRefusal,
    HouseholdStore, IdempotencyClaim, IdempotencyRecord, IdempotencyStore, LinkTokenOutcome,
    ListPage, ListQuery, MeterStore, Metered, MeteredCancel, MeteredCreate, MeteredHousehold,
    MeteredHouseholdCancel, MeteredRedelivery, MeteredResend, RedeliveryRefusal, Requester,
    StoreError, TransitionOutcome, VerificationRefusal, VerificationStore, WebhookHistoryStore,
    WebhookSecretStore, WebhookSecrets,
};

/// Every store operation, named like its method; `ClaimMessage` and `AddLinkToken` are the two
/// halves `claim_message` joins (the claim item, the link's binding), so a fault can be injected
/// in either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreOp {
    PutAccount,
    GetAccount,
    UpdateAccount,
    PutApiKey,
    ListApiKeys,
    RevokeApiKey,
    MeterApiRequest,
    MeterAndCreate,
    MeterAndCancel,
    MeterAndResend,
    MeterAndRedeliver,
    MeterAndCreateHousehold,
    MeterAndCancelHousehold,
    CreateVerification,
    GetVerification,
    AddLinkToken,
    AddRecentLinkToken,
    GetIdempotency,
    Transition,
    CancelOpen,
    AddTenantNote,
    ListVerifications,
    OwnerStats,
    GetWebhookSecrets,
    PutWebhookSecrets,
    PutWebhookEvent,
    GetWebhookEvent,
    RequestRedelivery,
    RecordDeliveryAttempt,
    ListDeliveryAttempts,
    DeliveryPageIfShort,
    CreateHousehold,
    GetHousehold,
    GetHouseholdWithMembers,
    RecordHouseholdDecision,
    ClaimMessage,
    MarkMessageSent,
    MarkMessageRejected,
    ReleaseMessage,
    RetentionDays,
    SetRetentionDays,
    ArmErasure,
    ClosedUnerased,
    EraseVerification,
    MeterAndErase,
    ForgetProviderUser,
}

/// Decides whether a call fails (and counts it).
pub trait FaultPlan: Send + Sync {
    fn check(&self, op: StoreOp) -> Result<(), StoreError>;
}

/// Fails each armed operation a number of times (`u32::MAX`: until disarmed).
#[derive(Clone, Default)]
pub struct ArmedFaults(Arc<Mutex<HashMap<StoreOp, u32>>>);

impl ArmedFaults {
    pub fn arm(&self, op: StoreOp, times: u32) {
        self.0.lock().unwrap().insert(op, times);
    }
    pub fn down(&self, op: StoreOp) {
        self.arm(op, u32::MAX);
    }
    pub fn restore(&self, op: StoreOp) {
        self.0.lock().unwrap().remove(&op);
    }
}

impl FaultPlan for ArmedFaults {
    fn check(&self, op: StoreOp) -> Result<(), StoreError> {
        let mut armed = self.0.lock().unwrap();
        match armed.get_mut(&op) {
            Some(0) | None => Ok(()),
            Some(n) => {
                if *n != u32::MAX {
                    *n -= 1;
                }
                Err(StoreError::Unavailable(format!("injected fault at {op:?}")))
            }
        }
    }
}

/// `inner`, failing the operations `faults` says.
#[derive(Clone)]
pub struct FaultyStore<S, F> {
    pub inner: S,
    pub faults: F,
}

impl<S: AccountStore, F: FaultPlan> AccountStore for FaultyStore<S, F> {
    async fn put_account(&self, account: &Account) -> Result<(), StoreError> {
        self.faults.check(StoreOp::PutAccount)?;
        self.inner.put_account(account).await
    }
    async fn get_account(&self, account_id: &str) -> Result<Option<Account>, StoreError> {
        self.faults.check(StoreOp::GetAccount)?;
        self.inner.get_account(account_id).await
    }
    async fn get_account_name(&self, account_id: &str) -> Result<Option<String>, StoreError> {
        self.faults.check(StoreOp::GetAccount)?;
        self.inner.get_account_name(account_id).await
    }
    async fn get_requester(&self, account_id: &str) -> Result<Option<Requester>, StoreError> {
        self.faults.check(StoreOp::GetAccount)?;
        self.inner.get_requester(account_id).await
    }
    async fn update_account(
        &self,
        account_id: &str,
        plan: Option<&str>,
        subscription: Option<(SubscriptionStatus, DateTime<Utc>)>,
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::UpdateAccount)?;
        self.inner
            .update_account(account_id, plan, subscription)
            .await
    }
    async fn set_default_methods(
        &self,
        account_id: &str,
        methods: &[domain::income::VerificationMethod],
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::UpdateAccount)?;
        self.inner.set_default_methods(account_id, methods).await
    }
    async fn get_default_methods(
        &self,
        account_id: &str,
    ) -> Result<Vec<domain::income::VerificationMethod>, StoreError> {
        self.faults.check(StoreOp::GetAccount)?;
        self.inner.get_default_methods(account_id).await
    }
}

impl<S: ApiKeyStore, F: FaultPlan> ApiKeyStore for FaultyStore<S, F> {
    async fn put_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        self.faults.check(StoreOp::PutApiKey)?;
        self.inner.put_api_key(key).await
    }
    async fn list_api_keys(&self, account_id: &str) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.faults.check(StoreOp::ListApiKeys)?;
        self.inner.list_api_keys(account_id).await
    }
    async fn revoke_api_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::RevokeApiKey)?;
        self.inner.revoke_api_key(account_id, key_id, now).await
    }
}

impl<S: MeterStore, F: FaultPlan> MeterStore for FaultyStore<S, F> {
    async fn meter_api_request(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        self.faults.check(StoreOp::MeterApiRequest)?;
        self.inner.meter_api_request(key, now, plans).await
    }
    async fn meter_and_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndCreate)?;
        self.inner.meter_and_create(create).await
    }
    async fn meter_and_create_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndCreateHousehold)?;
        self.inner.meter_and_create_household(create).await
    }
    async fn meter_and_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> Result<Metered<(), VerificationRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndCancel)?;
        self.inner.meter_and_cancel(cancel).await
    }
    async fn meter_and_cancel_household(
        &self,
        cancel: &MeteredHouseholdCancel<'_>,
    ) -> Result<Metered<(), HouseholdCancelRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndCancelHousehold)?;
        self.inner.meter_and_cancel_household(cancel).await
    }
    async fn meter_and_resend(
        &self,
        resend: &MeteredResend<'_>,
    ) -> Result<Metered<Verification, VerificationRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndResend)?;
        self.inner.meter_and_resend(resend).await
    }
    async fn meter_and_redeliver(
        &self,
        redelivery: &MeteredRedelivery<'_>,
    ) -> Result<Metered<StoredWebhookEvent, RedeliveryRefusal>, StoreError> {
        self.faults.check(StoreOp::MeterAndRedeliver)?;
        self.inner.meter_and_redeliver(redelivery).await
    }
}

impl<S: VerificationStore, F: FaultPlan> VerificationStore for FaultyStore<S, F> {
    async fn create_verification(
        &self,
        verification: &Verification,
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        self.faults.check(StoreOp::CreateVerification)?;
        self.inner
            .create_verification(verification, idempotency, monthly_limit)
            .await
    }
    async fn get_verification(&self, id: Uuid) -> Result<Option<Verification>, StoreError> {
        self.faults.check(StoreOp::GetVerification)?;
        self.inner.get_verification(id).await
    }
    async fn add_recent_link_token(
        &self,
        current: &Verification,
        token_hash: &str,
        keep: usize,
    ) -> Result<LinkTokenOutcome, StoreError> {
        self.faults.check(StoreOp::AddRecentLinkToken)?;
        self.inner
            .add_recent_link_token(current, token_hash, keep)
            .await
    }
    async fn transition(
        &self,
        current: &Verification,
        transition: &Transition,
        now: DateTime<Utc>,
    ) -> Result<TransitionOutcome, StoreError> {
        self.faults.check(StoreOp::Transition)?;
        self.inner.transition(current, transition, now).await
    }
    async fn cancel_open(
        &self,
        id: Uuid,
        account_id: &str,
        mode: Mode,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::CancelOpen)?;
        self.inner.cancel_open(id, account_id, mode, now).await
    }
    async fn add_tenant_note(
        &self,
        id: Uuid,
        note: &str,
    ) -> Result<Option<Verification>, StoreError> {
        self.faults.check(StoreOp::AddTenantNote)?;
        self.inner.add_tenant_note(id, note).await
    }
    async fn list_verifications(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
        self.faults.check(StoreOp::ListVerifications)?;
        self.inner.list_verifications(query).await
    }
    async fn list_verifications_capped(
        &self,
        query: &ListQuery,
        cap: u32,
    ) -> Result<Option<ListPage>, StoreError> {
        self.faults.check(StoreOp::ListVerifications)?;
        self.inner.list_verifications_capped(query, cap).await
    }
    async fn owner_stats(
        &self,
        account_id: &str,
        mode: Mode,
        month: &str,
    ) -> Result<(OwnerStats, MonthStats), StoreError> {
        self.faults.check(StoreOp::OwnerStats)?;
        self.inner.owner_stats(account_id, mode, month).await
    }
}

impl<S: HouseholdStore, F: FaultPlan> HouseholdStore for FaultyStore<S, F> {
    async fn create_household(
        &self,
        household: &Household,
        members: &[Verification],
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        self.faults.check(StoreOp::CreateHousehold)?;
        self.inner
            .create_household(household, members, idempotency, monthly_limit)
            .await
    }
    async fn get_household(&self, id: Uuid) -> Result<Option<Household>, StoreError> {
        self.faults.check(StoreOp::GetHousehold)?;
        self.inner.get_household(id).await
    }
    async fn get_household_with_members(
        &self,
        id: Uuid,
    ) -> Result<Option<(Household, Vec<Verification>)>, StoreError> {
        self.faults.check(StoreOp::GetHouseholdWithMembers)?;
        self.inner.get_household_with_members(id).await
    }
    async fn record_household_decision(
        &self,
        id: Uuid,
        decision: &HouseholdDecision,
        decided_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::RecordHouseholdDecision)?;
        self.inner
            .record_household_decision(id, decision, decided_at)
            .await
    }
}

impl<S: IdempotencyStore, F: FaultPlan> IdempotencyStore for FaultyStore<S, F> {
    async fn get_idempotency(
        &self,
        key_hash: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.faults.check(StoreOp::GetIdempotency)?;
        self.inner.get_idempotency(key_hash).await
    }
}

impl<S: WebhookSecretStore, F: FaultPlan> WebhookSecretStore for FaultyStore<S, F> {
    async fn get_webhook_secrets(&self, account_id: &str) -> Result<WebhookSecrets, StoreError> {
        self.faults.check(StoreOp::GetWebhookSecrets)?;
        self.inner.get_webhook_secrets(account_id).await
    }
    async fn put_webhook_secrets(
        &self,
        account_id: &str,
        secrets: &WebhookSecrets,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::PutWebhookSecrets)?;
        self.inner.put_webhook_secrets(account_id, secrets).await
    }
}

impl<S: WebhookHistoryStore, F: FaultPlan> WebhookHistoryStore for FaultyStore<S, F> {
    async fn put_webhook_event(&self, event: &StoredWebhookEvent) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::PutWebhookEvent)?;
        self.inner.put_webhook_event(event).await
    }
    async fn get_webhook_event(
        &self,
        event_id: &str,
    ) -> Result<Option<StoredWebhookEvent>, StoreError> {
        self.faults.check(StoreOp::GetWebhookEvent)?;
        self.inner.get_webhook_event(event_id).await
    }
    async fn request_redelivery(
        &self,
        event_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.faults.check(StoreOp::RequestRedelivery)?;
        self.inner.request_redelivery(event_id, now).await
    }
    async fn record_delivery_attempt(
        &self,
        account_id: &str,
        attempt: &DeliveryAttempt,
    ) -> Result<(), StoreError> {
        self.faults.check(StoreOp::RecordDeliveryAttempt)?;
        self.inner
            .record_delivery_attempt(account_id, attempt)
            .await
    }
    async fn list_delivery_attempts(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> Result<DeliveryPage, StoreError> {
        self.faults.check(StoreOp::ListDeliveryAttempts)?;
        self.inner
            .list_delivery_attempts(subject, offset, limit)
            .await
    }
    async fn delivery_page_if_short(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        self.faults.check(StoreOp::DeliveryPageIfShort)?;
        self.inner
            .delivery_page_if_short(subject, offset, limit)
            .await
    }
}
