//! The DynamoDB adapter on its own, against moto: item round trips (and that the stored items are
//! exactly what `dynamo::items` builds, which the bench's seeding and the tests rely on),
//! conditional writes that refuse, and the counters that move with them. The scenarios written
//! against the store traits also run on `MemoryStore`, which must behave the same.

use crate::common;

use common::Metered;

use adapters::dynamo::items::{self, Item};
use adapters::dynamo::{DynamoStore, create_table};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::metering::{MeterRefusal, PresentedKey};
use domain::plans::Plans;
use domain::reach::{MESSAGE_LEASE, Message};
use domain::report::IncomeReport;
use domain::{
    Account, ApiKeyRecord, Mode, NewVerificationInput, Plan, Status, SubscriptionStatus,
    Transition, Verification,
};
use ports::store::prelude::*;
use ports::{
    ClaimStart, CreateOutcome, CreateRefusal, IdempotencyClaim, LinkTokenOutcome, ListQuery,
    MessageClaim, MeterOutcome, MeteredCancel, MeteredCreate, TransitionOutcome,
    VerificationRefusal,
};
use service::table_schema::{self as schema, keys};

/// The first invite e-mail, as the outbox claims it.
static INVITE: Message = Message::InviteEmail(0);

const ACCOUNT: &str = "acct_dynamo";

/// Runs a scenario written against the store traits on the DynamoDB adapter (moto) and on the
/// in-memory store the handler tests use, so the two keep the same semantics.
macro_rules! on_both_stores {
    ($scenario:ident) => {
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn dynamo() {
                super::$scenario(super::store().await).await
            }
            #[tokio::test]
            async fn memory() {
                super::$scenario(test_support::MemoryStore::new()).await
            }
        }
    };
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap()
}

/// A fresh table on the shared moto server.
async fn store() -> DynamoStore {
    let sdk = common::moto().sdk_config().await;
    let client = Client::new(&sdk);
    let table = format!("store{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    create_table(&client, &table).await.expect("table");
    DynamoStore::new(client, table)
}

fn account(plan: &str) -> Account {
    test_support::active_account(ACCOUNT, plan, now())
}

fn pending(mode: Mode) -> Verification {
    let input = NewVerificationInput {
        tenant_email: "tenant@example.com".into(),
        monthly_rent: Some(1200.0),
        ..Default::default()
    };
    let mut v = Verification::new_pending(ACCOUNT, mode, input, now(), Duration::days(7));
    v.token_hashes = vec!["first-token-hash".into()];
    v
}

async fn raw(store: &DynamoStore, (pk, sk): (String, String)) -> Option<Item> {
    let out = store
        .client()
        .get_item()
        .table_name(store.table())
        .key(schema::PK, AttributeValue::S(pk))
        .key(schema::SK, AttributeValue::S(sk))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_round_trip_and_are_the_production_mapping() {
    let store = store().await;
    let acct = account("pro");
    store.put_account(&acct).await.unwrap();
    assert!(store.get_account(ACCOUNT).await.unwrap() == Some(acct.clone()));
    assert_eq!(
        raw(&store, keys::account(ACCOUNT)).await,
        Some(adapters::dynamo::account_items(&acct).unwrap().0)
    );
    let end = now() + Duration::days(60);
    let changed = store
        .update_account(
            ACCOUNT,
            Some("business"),
            Some((SubscriptionStatus::PastDue, end)),
        )
        .await
        .unwrap();
    assert!(changed);
    let updated = store.get_account(ACCOUNT).await.unwrap().unwrap();
    assert_eq!(
        (
            updated.plan.as_str(),
            updated.subscription_status,
            updated.current_period_end
        ),
        ("business", SubscriptionStatus::PastDue, end)
    );
    assert!(
        !store
            .update_account("nobody", Some("pro"), None)
            .await
            .unwrap()
    );

    let key = ApiKeyRecord {
        key_id: "key_0123456789abcdef".into(),
        key_hash: "0123456789abcdef-hash".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        display_prefix: "tiv_test_abcd".into(),
        created_at: now(),
        revoked_at: None,
    };
    store.put_api_key(&key).await.unwrap();
    assert_eq!(
        raw(&store, keys::api_key(&key.key_hash)).await,
        Some(items::api_key_item(&key).unwrap())
    );
    let listed = store.list_api_keys(ACCOUNT).await.unwrap();
    assert!(listed == [key.clone()]);
    // The same write listed the key's hash on its account; a key of an unknown account, or one
    // stored twice, is refused and lists nothing.
    let account_now = store.get_account(ACCOUNT).await.unwrap().unwrap();
    assert_eq!(
        account_now.api_keys,
        [(key.key_hash.clone(), Mode::Test)].into()
    );
    assert!(store.put_api_key(&key).await.is_err());
    let orphan = ApiKeyRecord {
        key_hash: "orphan-hash".into(),
        account_id: "nobody".into(),
        ..key.clone()
    };
    assert!(store.put_api_key(&orphan).await.is_err());
    assert_eq!(raw(&store, keys::api_key("orphan-hash")).await, None);

    let v = pending(Mode::Test);
    let claim = IdempotencyClaim {
        key_hash: "idem-hash".into(),
        body_hash: "body-hash".into(),
    };
    let created = store
        .create_verification(&v, Some(&claim), None)
        .await
        .unwrap();
    assert_eq!(created, CreateOutcome::Created);
    assert!(store.get_verification(v.verification_id).await.unwrap() == Some(v.clone()));
    let id = v.verification_id;
    assert_eq!(
        raw(&store, keys::verification(id)).await,
        Some(items::verification_item(&v).unwrap())
    );
    assert_eq!(
        raw(&store, keys::expiry_marker(id)).await,
        Some(items::expiry_marker_item(&v))
    );
    assert_eq!(
        raw(&store, keys::idempotency(&claim.key_hash)).await,
        Some(items::idempotency_item(&claim, &v).unwrap())
    );
    let record = store.get_idempotency("idem-hash").await.unwrap().unwrap();
    assert_eq!(
        (record.verification_id, record.body_hash.as_str()),
        (id, "body-hash")
    );
}

// After the macro: the areas below use `on_both_stores!`.
mod conditional_writes;
mod daily_counter;
mod fingerprints;
mod key_burst;
mod metered_writes;
mod notes_lists_and_ttl;
#[allow(unused_imports)]
use conditional_writes::*;
#[allow(unused_imports)]
use daily_counter::*;
#[allow(unused_imports)]
use metered_writes::*;
#[allow(unused_imports)]
use notes_lists_and_ttl::*;
