//! What reaches the tenant or the provider between a household's cancel (DELETE /households: the
//! household item only) and the stream's cancel of its open members, against the in-memory
//! store: nothing. The invite e-mail's claim (first and resent rounds), the invite SMS's and the
//! reminders' claims and the tenant page all check the household, so a member still pending in
//! its own item is treated as cancelled: no e-mail, no SMS, a resend (one write, as any) sends
//! nothing, and the tenant page shows the cancelled page without calling the provider (GET and
//! POST). Each case beside a member of an open household, which goes through. The DynamoDB
//! conditions on the real wire: `infra/devstack/tests/it/households_reach.rs`.

use crate::support::settings;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, TimeZone, Utc};
use shared::adapters::sandbox::SandboxProvider;
use shared::adapters::testing::{ManualClock, MemoryStore, active_account};
use shared::config::TestModeDelivery;
use shared::domain::household::{Household, HouseholdMember, MemberRole};
use shared::domain::income::ProviderIncome;
use shared::domain::reach::DEFAULT_REMINDER_OFFSETS;
use shared::domain::secrets::{GeneratedKey, account_key_from_random, generate_link_token};
use shared::domain::{
    ApiKeyRecord, Mode, NewVerificationInput, Status, VERIFICATION_LIFETIME, Verification,
};
use shared::handlers::api::ApiDeps;
use shared::handlers::publish_events::{OutboxDeps, send_tenant_email_of};
use shared::handlers::reach_events::{ReminderPayload, invite_sms, reminder_schedules};
use shared::handlers::resend_verification::resend_verification;
use shared::handlers::send_reminders::{ReachDeps, send_reminders};
use shared::handlers::tenant_portal::{PortalDeps, tenant_portal};
use shared::http::ApiRequest;
use shared::ports::store::prelude::*;
use shared::ports::{
    ConnectStep, Email, IncomeProvider, MailError, Mailer, OneTimeSchedule, ProviderError, Queue,
    Scheduler, Sms, StoreError, TextError, Texter,
};
use uuid::Uuid;

const ACCOUNT: &str = "acct_reach_household";

fn created() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap()
}

/// Every message, schedule and queued body, recorded.
#[derive(Clone, Default)]
struct Outbox {
    emails: Arc<Mutex<Vec<Email>>>,
    sms: Arc<Mutex<Vec<Sms>>>,
}

impl Outbox {
    fn emails_to(&self, to: &str) -> usize {
        (self.emails.lock().unwrap().iter())
            .filter(|e| e.to == to)
            .count()
    }
    fn sms_to(&self, to: &str) -> usize {
        (self.sms.lock().unwrap().iter())
            .filter(|s| s.to == to)
            .count()
    }
}

impl Mailer for Outbox {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        self.emails.lock().unwrap().push(email.clone());
        Ok(())
    }
}

impl Texter for Outbox {
    async fn send(&self, sms: &Sms) -> Result<(), TextError> {
        self.sms.lock().unwrap().push(sms.clone());
        Ok(())
    }
}

impl Scheduler for Outbox {
    async fn create_once(&self, _: &OneTimeSchedule) -> Result<(), StoreError> {
        Ok(())
    }
}

impl Queue for Outbox {
    async fn send(&self, _: &str) -> Result<(), StoreError> {
        Ok(())
    }
    async fn retry_later(&self, _: &str, _: u32) -> Result<(), StoreError> {
        Ok(())
    }
}

/// A provider double standing in for Plaid: records every call, answers like a provider with
/// users and a widget.
#[derive(Clone, Default)]
struct RecordingProvider {
    calls: Arc<Mutex<Vec<String>>>,
}

impl RecordingProvider {
    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl IncomeProvider for RecordingProvider {
    async fn create_user(&self, _: &Verification) -> Result<Option<String>, ProviderError> {
        self.calls.lock().unwrap().push("create_user".into());
        Ok(Some("provider-user-1".into()))
    }
    async fn begin(&self, _: &Verification, _: Option<&str>) -> Result<ConnectStep, ProviderError> {
        self.calls.lock().unwrap().push("begin".into());
        Ok(ConnectStep::Widget {
            link_token: "link-token-1".into(),
        })
    }
    async fn fetch_income(
        &self,
        _: &Verification,
        _: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        self.calls.lock().unwrap().push("fetch_income".into());
        Err(ProviderError::Unavailable("not in this test".into()))
    }
}

fn member_input(tag: &str) -> NewVerificationInput {
    NewVerificationInput {
        tenant_email: format!("{tag}@example.com"),
        tenant_phone: Some("(201) 555-0123".into()),
        sms_phone: Some(format!("+1201555{:04}", tag.len())),
        property_address: Some("12 Elm St".into()),
        monthly_rent: Some(1000.0),
        ..Default::default()
    }
}

/// A live household of one applicant, stored; its member as stored (with `token` bound).
async fn household(store: &MemoryStore, tag: &str, token_hash: &str) -> (Household, Verification) {
    let household_id = Uuid::new_v4();
    let mut v = Verification::new_pending(
        ACCOUNT,
        Mode::Live,
        member_input(tag),
        created(),
        VERIFICATION_LIFETIME,
    );
    v.household_id = Some(household_id);
    v.household_role = Some(MemberRole::Applicant);
    v.token_hashes.push(token_hash.to_string());
    let household = Household {
        household_id,
        account_id: ACCOUNT.into(),
        mode: Mode::Live,
        created_at: created(),
        property_address: Some("12 Elm St".into()),
        monthly_rent: 1000.0,
        rent_subsidy_monthly: None,
        income_multiple: None,
        guarantor_multiple: None,
        webhook_url: None,
        members: vec![HouseholdMember {
            verification_id: v.verification_id,
            role: MemberRole::Applicant,
        }],
        decision: None,
        decided_at: None,
        cancelled_at: None,
    };
    let outcome = store
        .create_household(&household, std::slice::from_ref(&v), None, None)
        .await
        .unwrap();
    assert!(matches!(outcome, shared::ports::CreateOutcome::Created));
    (household, v)
}

/// The store with the account, an open household's member and a cancelled household's member
/// (its own item still pending: the stream has not cancelled it yet).
struct Rig {
    store: MemoryStore,
    clock: ManualClock,
    open: Verification,
    cancelled: Verification,
    token: String,
}

async fn rig() -> Rig {
    let store = MemoryStore::new();
    let mut account = active_account(ACCOUNT, "pro", created());
    account.name = "Acme Rentals".into();
    store.put_account(&account).await.unwrap();
    let (token, token_hash) = generate_link_token();
    let (_, open) = household(&store, "open", &token_hash).await;
    let (cancelled_household, cancelled) = household(&store, "cancelled", &token_hash).await;
    let at = created() + Duration::minutes(5);
    assert!(
        store
            .cancel_household(&cancelled_household, at)
            .await
            .unwrap()
    );
    let stored = store.get_verification(cancelled.verification_id).await;
    assert_eq!(stored.unwrap().unwrap().status, Status::Pending);
    Rig {
        store,
        clock: ManualClock::at(at + Duration::seconds(1)),
        open,
        cancelled,
        token,
    }
}

impl Rig {
    async fn stored(&self, id: Uuid) -> Verification {
        self.store.get_verification(id).await.unwrap().unwrap()
    }

    fn outbox_deps(
        &self,
        outbox: &Outbox,
    ) -> OutboxDeps<MemoryStore, Outbox, Outbox, Outbox, Outbox, ManualClock> {
        OutboxDeps {
            store: self.store.clone(),
            mailer: outbox.clone(),
            texter: outbox.clone(),
            scheduler: outbox.clone(),
            queue: outbox.clone(),
            retry_queue: outbox.clone(),
            clock: self.clock.clone(),
            public_base_url: "https://verify.example.com".into(),
            test_mode_delivery: TestModeDelivery::Suppress,
            reminder_offsets: DEFAULT_REMINDER_OFFSETS.to_vec(),
            retry_backoff: vec![60],
        }
    }

    fn reach_deps(
        &self,
        outbox: &Outbox,
    ) -> ReachDeps<MemoryStore, Outbox, Outbox, Outbox, ManualClock> {
        ReachDeps {
            store: self.store.clone(),
            mailer: outbox.clone(),
            texter: outbox.clone(),
            queue: outbox.clone(),
            clock: self.clock.clone(),
            public_base_url: "https://verify.example.com".into(),
            test_mode_delivery: TestModeDelivery::Suppress,
            reminder_offsets: DEFAULT_REMINDER_OFFSETS.to_vec(),
        }
    }
}

#[tokio::test]
async fn the_invite_email_of_a_cancelled_households_member_is_not_sent_nor_retried() {
    let rig = rig().await;
    let outbox = Outbox::default();
    let deps = rig.outbox_deps(&outbox);
    // The stream's INSERT images: both members pending.
    send_tenant_email_of(&deps, &rig.open).await.unwrap();
    assert_eq!(outbox.emails_to(&rig.open.tenant_email), 1);
    let before = rig.stored(rig.cancelled.verification_id).await;
    // Ok: nothing to send, so nothing is retried; the claim wrote nothing (no link bound).
    send_tenant_email_of(&deps, &rig.cancelled).await.unwrap();
    assert_eq!(outbox.emails_to(&rig.cancelled.tenant_email), 0);
    assert!(rig.stored(rig.cancelled.verification_id).await == before);
    // A redelivered record: still nothing.
    send_tenant_email_of(&deps, &rig.cancelled).await.unwrap();
    assert_eq!(outbox.emails.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn no_invite_sms_and_no_reminder_reach_a_cancelled_households_member() {
    let rig = rig().await;
    let outbox = Outbox::default();
    let deps = rig.reach_deps(&outbox);
    let outbox_deps = rig.outbox_deps(&outbox);
    let (open, cancelled) = (&rig.open, &rig.cancelled);
    // The invite SMS and the schedules (the stream's INSERT).
    for v in [open, cancelled] {
        invite_sms(&outbox_deps, v).await.unwrap();
        reminder_schedules(&outbox_deps, v).await.unwrap();
    }
    assert_eq!(outbox.sms_to(open.sms_phone.as_deref().unwrap()), 1);
    assert_eq!(outbox.sms_to(cancelled.sms_phone.as_deref().unwrap()), 0);
    // The 72 h reminder (e-mail and SMS): Ok, nothing sent, nothing written.
    rig.clock.advance(Duration::hours(96));
    let before = rig.stored(cancelled.verification_id).await;
    for v in [open, cancelled] {
        let payload = ReminderPayload {
            verification_id: v.verification_id,
            reminder: "72h".into(),
        };
        send_reminders(&deps, payload).await.unwrap();
    }
    assert_eq!(outbox.emails_to(&open.tenant_email), 1);
    assert_eq!(outbox.sms_to(open.sms_phone.as_deref().unwrap()), 2);
    assert_eq!(outbox.emails_to(&cancelled.tenant_email), 0);
    assert_eq!(outbox.sms_to(cancelled.sms_phone.as_deref().unwrap()), 0);
    let after = rig.stored(cancelled.verification_id).await;
    assert!(after == before, "a refused claim writes nothing");
}

async fn live_key(store: &MemoryStore) -> GeneratedKey {
    let key =
        account_key_from_random(ACCOUNT, Mode::Live, "HouseholdReachLiveKeyNumber001").unwrap();
    store
        .put_api_key(&ApiKeyRecord {
            key_id: key.key_id.clone(),
            key_hash: key.hash.clone(),
            account_id: ACCOUNT.into(),
            mode: Mode::Live,
            display_prefix: key.display_prefix.clone(),
            created_at: created(),
            revoked_at: None,
        })
        .await
        .unwrap();
    key
}

fn resend_request(key: &GeneratedKey, id: Uuid) -> ApiRequest {
    ApiRequest::new(
        http::Method::POST,
        &format!("/api/v1/verify/resend?verification_id={id}"),
    )
    .with_header("authorization", &format!("Bearer {}", key.secret))
}

#[tokio::test]
async fn a_resend_of_a_cancelled_households_member_reaches_nobody() {
    let rig = rig().await;
    let key = live_key(&rig.store).await;
    let deps = ApiDeps::new(rig.store.clone(), rig.clock.clone(), settings());
    // Before the stream has cancelled the member's own item: one write, as any resend (the request
    // names only the verification), and its round's e-mail claim refuses on the household.
    let resent =
        resend_verification(&deps, resend_request(&key, rig.cancelled.verification_id)).await;
    assert_eq!(resent.status, 202, "{}", resent.body);
    let v = rig.stored(rig.cancelled.verification_id).await;
    assert_eq!(v.invite_round, 1);
    let claim = rig.store.claim_invite_and_bind(
        v.verification_id,
        v.household_id,
        1,
        "resent-round",
        shared::ports::Clock::now(&rig.clock),
    );
    assert_eq!(
        claim.await.unwrap(),
        shared::ports::EmailStart::HouseholdCancelled
    );
}

fn portal_deps(
    rig: &Rig,
    provider: &RecordingProvider,
) -> PortalDeps<MemoryStore, ManualClock, RecordingProvider> {
    PortalDeps {
        store: rig.store.clone(),
        clock: rig.clock.clone(),
        live_provider: provider.clone(),
        sandbox: SandboxProvider,
    }
}

fn page_request(method: http::Method, v: &Verification, token: &str, form: &str) -> ApiRequest {
    ApiRequest::new(method, &format!("/t/{}/{token}", v.verification_id))
        .with_header("content-type", "application/x-www-form-urlencoded")
        .with_body(form.to_string())
}

#[tokio::test]
async fn the_tenant_page_of_a_cancelled_households_member_is_the_cancelled_page_and_calls_no_provider()
 {
    let rig = rig().await;
    let provider = RecordingProvider::default();
    let deps = portal_deps(&rig, &provider);
    let (open, cancelled, token) = (&rig.open, &rig.cancelled, rig.token.as_str());
    // The open household's member: the consent form, then the provider's user on consent.
    let page = tenant_portal(&deps, page_request(http::Method::GET, open, token, "")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Verify your income"));
    let consent = "action=consent&agree=yes";
    let done = tenant_portal(
        &deps,
        page_request(http::Method::POST, open, token, consent),
    )
    .await;
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(provider.calls(), vec!["create_user".to_string()]);
    provider.calls.lock().unwrap().clear();

    let before = rig.stored(cancelled.verification_id).await;
    let get = || page_request(http::Method::GET, cancelled, token, "");
    let page = tenant_portal(&deps, get()).await;
    assert_eq!(page.status, 410, "{}", page.body);
    assert!(
        page.body.contains("This request was cancelled"),
        "{}",
        page.body
    );
    for form in [consent, "action=consent", "action=connect"] {
        let post = page_request(http::Method::POST, cancelled, token, form);
        let page = tenant_portal(&deps, post).await;
        assert_eq!(page.status, 410, "{form}: {}", page.body);
        assert!(page.body.contains("This request was cancelled"));
    }
    assert!(provider.calls().is_empty(), "{:?}", provider.calls());
    assert!(rig.stored(cancelled.verification_id).await == before);
}

#[tokio::test]
async fn a_member_who_consented_before_the_cancel_gets_no_widget_and_no_income_fetch() {
    let rig = rig().await;
    let provider = RecordingProvider::default();
    let deps = portal_deps(&rig, &provider);
    let (cancelled, token) = (&rig.cancelled, rig.token.as_str());
    // Consented (and its provider user stored) before the cancel: the member is in progress.
    let mut consented = rig.stored(cancelled.verification_id).await;
    consented.status = Status::InProgress;
    consented.consented_at = Some(created() + Duration::minutes(1));
    consented.provider_user = Some("provider-user-0".into());
    rig.store.insert_verification(&consented);
    let page = tenant_portal(&deps, page_request(http::Method::GET, cancelled, token, "")).await;
    assert_eq!(page.status, 410, "{}", page.body);
    let post = page_request(http::Method::POST, cancelled, token, "action=connect");
    let page = tenant_portal(&deps, post).await;
    assert_eq!(page.status, 410, "{}", page.body);
    assert!(provider.calls().is_empty(), "{:?}", provider.calls());
    assert!(rig.stored(cancelled.verification_id).await == consented);
}
