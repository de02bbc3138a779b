//! The demo accounts with their fixed keys, and the fixture verifications and webhook history
//! the sample events in `events/` refer to.

use adapters::dynamo::DynamoStore;
use chrono::{Duration, Utc};
use domain::secrets::{GeneratedKey, account_key_from_random};
use domain::{Account, ApiKeyRecord, Mode, SubscriptionStatus};
use ports::StoreError;
use ports::store::prelude::*;

use super::accounts::{DEMO_ACCOUNT, OTHER_ACCOUNT};

/// The demo keys are fixed so the sample events in `events/` carry a key that works against the
/// local stack. They exist only in local tables; a deployed table never has them. They name their
/// account (the current key format).
pub fn demo_key(account: &str, mode: Mode) -> GeneratedKey {
    account_key_from_random(account, mode, demo_random(account, mode))
        .expect("demo account ids can be named in a key")
}

fn demo_random(account: &str, mode: Mode) -> &'static str {
    match (account, mode) {
        (DEMO_ACCOUNT, Mode::Live) => "DemoLiveKeyLocalStackOnly00001",
        (DEMO_ACCOUNT, Mode::Test) => "DemoTestKeyLocalStackOnly00001",
        (_, Mode::Live) => "OtherLiveKeyLocalStackOnly0001",
        (_, Mode::Test) => "OtherTestKeyLocalStackOnly0001",
    }
}

/// Creates an account on `plan` with a live and a test key; returns (live, test) secrets.
pub async fn seed_account(
    store: &DynamoStore,
    account_id: &str,
    plan: &str,
    fixed_keys: bool,
) -> Result<(String, String), StoreError> {
    let now = Utc::now();
    if store.get_account(account_id).await?.is_none() {
        store
            .put_account(&Account {
                account_id: account_id.to_string(),
                name: match account_id {
                    DEMO_ACCOUNT => "Demo Lettings".to_string(),
                    OTHER_ACCOUNT => "Other Landlord".to_string(),
                    other => other.to_string(),
                },
                plan: plan.to_string(),
                subscription_status: SubscriptionStatus::Active,
                current_period_end: now + Duration::days(30),
                created_at: now,
                api_window: None,
                api_requests: 0,
                sms_month: 0,
                sms_sent: 0,
                key_bursts: Default::default(),
                revoked_keys: vec![],
                api_keys: Default::default(),
            })
            .await?;
    }
    let listed = store.list_api_keys(account_id).await?;
    let mut secrets = Vec::new();
    for mode in [Mode::Live, Mode::Test] {
        let key = if fixed_keys {
            demo_key(account_id, mode)
        } else {
            domain::secrets::generate_api_key(account_id, mode).ok_or_else(|| {
                StoreError::Corrupt(format!("account id {account_id} cannot be named in a key"))
            })?
        };
        if !listed.iter().any(|k| k.key_hash == key.hash) {
            store
                .put_api_key(&ApiKeyRecord {
                    key_id: key.key_id.clone(),
                    key_hash: key.hash.clone(),
                    account_id: account_id.to_string(),
                    mode,
                    display_prefix: key.display_prefix.clone(),
                    created_at: now,
                    revoked_at: None,
                })
                .await?;
        }
        secrets.push(key.secret);
    }
    Ok((secrets[0].clone(), secrets[1].clone()))
}

/// Fixed ids of the fixture verifications the sample events refer to.
pub const FIXTURE_PENDING: &str = "0b3f1c2e-5d4a-4e8b-9c7d-1a2b3c4d5e6f";
pub const FIXTURE_IN_PROGRESS: &str = "1c4f2d3e-6e5b-4f9c-8d8e-2b3c4d5e6f70";
/// The in-progress fixture's number (E.164), texted by its sample reminder.
pub const FIXTURE_IN_PROGRESS_SMS: &str = "+12015550143";
pub const FIXTURE_COMPLETED: &str = "2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081";
pub const FIXTURE_OTHER_ACCOUNT: &str = "3e6b4f5a-8a7d-4b1e-8f0a-4d5e6f708192";
pub const FIXTURE_CONSENTED: &str = "4f7c5a6b-9b8e-4c2f-9a1b-5e6f708192a3";
pub const FIXTURE_EXPIRED: &str = "5a8d6b7c-0c9f-4d3a-8b2c-6f708192a3b4";
pub const FIXTURE_CANCELLED: &str = "6b9e7c8d-1d0a-4e4b-9c3d-708192a3b4c5";
pub const FIXTURE_FAILED: &str = "7c0f8d9e-2e1b-4f5c-8d4e-8192a3b4c5d6";
/// The tenant-link token of every fixture verification (the sample events of tenant-portal use it).
pub const FIXTURE_LINK_TOKEN: &str = "SampleLinkTokenForLocalFixturesOnly-0123456789";

/// Seeds the verifications the sample events refer to (test mode of the demo account, plus one
/// of another account). Safe to call twice.
pub async fn seed_fixtures(store: &DynamoStore) -> Result<(), StoreError> {
    use domain::income::{PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod};
    use domain::report::build_report;
    use domain::{NewVerificationInput, Transition, Verification};
    let now = Utc::now();
    let make = |id: &str, account: &str| {
        let input = NewVerificationInput {
            tenant_email: "fixture.tenant+good@example.com".into(),
            tenant_name: Some("Fixture Tenant".into()),
            property_address: Some("1 Sample Street, Springfield".into()),
            monthly_rent: Some(1500.0),
            ..Default::default()
        };
        let mut v = Verification::new_pending(account, Mode::Test, input, now, Duration::days(7));
        v.verification_id = id.parse().expect("fixture uuid");
        v.token_hashes = vec![domain::secrets::sha256_hex(FIXTURE_LINK_TOKEN.as_bytes())];
        v
    };
    for (id, account) in [
        (FIXTURE_PENDING, DEMO_ACCOUNT),
        (FIXTURE_IN_PROGRESS, DEMO_ACCOUNT),
        (FIXTURE_COMPLETED, DEMO_ACCOUNT),
        (FIXTURE_OTHER_ACCOUNT, OTHER_ACCOUNT),
        (FIXTURE_CONSENTED, DEMO_ACCOUNT),
        (FIXTURE_EXPIRED, DEMO_ACCOUNT),
        (FIXTURE_CANCELLED, DEMO_ACCOUNT),
        (FIXTURE_FAILED, DEMO_ACCOUNT),
    ] {
        let mut v = make(id, account);
        if id == FIXTURE_IN_PROGRESS {
            // The sample reminder that reaches every channel: e-mail, SMS and webhook.
            v.tenant_phone = Some("(201) 555-0143".into());
            v.sms_phone = Some(FIXTURE_IN_PROGRESS_SMS.into());
            v.webhook_url = Some("http://127.0.0.1:3001/webhooks".into());
        }
        if store.get_verification(v.verification_id).await?.is_some() {
            continue;
        }
        if id == FIXTURE_EXPIRED {
            v.created_at = now - Duration::days(8);
            v.expires_at = now - Duration::days(1);
        }
        store.create_verification(&v, None, None).await?;
        match id {
            FIXTURE_CANCELLED => {
                store.transition(&v, &Transition::Cancel, now).await?;
            }
            FIXTURE_FAILED => {
                let reason = "income_unverifiable".to_string();
                store
                    .transition(&v, &Transition::Fail { reason }, now)
                    .await?;
            }
            FIXTURE_CONSENTED => {
                let consent = Transition::Consent {
                    version: "2026-11-v1".into(),
                    provider_user: None,
                    methods: vec![],
                };
                store.transition(&v, &consent, now).await?;
            }
            _ => {}
        }
        if id == FIXTURE_IN_PROGRESS || id == FIXTURE_COMPLETED {
            store.transition(&v, &Transition::Start, now).await?;
        }
        if id == FIXTURE_COMPLETED {
            let started = store
                .get_verification(v.verification_id)
                .await?
                .expect("just written");
            // The sandbox's biweekly paychecks of 2,400.00: the sample shows stability.
            let income = ProviderIncome {
                provider_confidence: Some(0.97),
                sources: vec![ProviderIncomeSource::on_cycle(
                    "Acme Corp",
                    "SALARY",
                    PayFrequency::Biweekly,
                    now.date_naive() - chrono::Duration::days(3),
                    26,
                    |_| 2400.0,
                )],
                ..ProviderIncome::empty(VerificationMethod::Bank, now.date_naive())
            };
            let report = build_report(&income, v.monthly_rent);
            store
                .transition(
                    &started,
                    &Transition::Complete {
                        report: Box::new(report),
                    },
                    now,
                )
                .await?;
        }
    }
    seed_webhook_history(store, now).await?;
    crate::household_fixtures::seed_households(store).await
}

/// The webhook event and delivery attempt the sample events of `redeliver-webhook` and
/// `list-webhook-deliveries` refer to: the completed fixture's `verification.completed` (as if it
/// had been sent to the local receiver) and another account's event.
async fn seed_webhook_history(
    store: &DynamoStore,
    now: chrono::DateTime<Utc>,
) -> Result<(), StoreError> {
    use domain::Status;
    use domain::webhook_log::{
        AttemptOutcome, DeliveryAttempt, StoredWebhookEvent, WebhookSubject,
    };
    use service::handlers::publish_events::webhook_message;
    for id in [FIXTURE_COMPLETED, FIXTURE_OTHER_ACCOUNT] {
        let Some(mut v) = store
            .get_verification(id.parse().expect("fixture uuid"))
            .await?
        else {
            continue;
        };
        v.webhook_url = Some("http://127.0.0.1:3001/webhooks".into());
        if v.status == Status::Pending {
            v.status = Status::InProgress;
            v.started_at = Some(now);
        }
        let Some(event) = webhook_message(&v).and_then(|m| StoredWebhookEvent::of(&m, now)) else {
            continue;
        };
        if store
            .get_webhook_event(&event.message.webhook_id)
            .await?
            .is_some()
        {
            continue;
        }
        store.put_webhook_event(&event).await?;
        let attempt = DeliveryAttempt {
            event_id: event.message.webhook_id.clone(),
            event_type: event.event_type.clone(),
            subject: WebhookSubject::Verification(v.verification_id),
            attempt: 1,
            attempted_at: now,
            outcome: AttemptOutcome::Delivered,
            http_status: Some(200),
            error: None,
            duration_ms: 42,
            final_attempt: false,
        };
        store
            .record_delivery_attempt(&v.account_id, &attempt)
            .await?;
    }
    Ok(())
}
