//! The live monthly allowance checked on the account item (issue 14), against DynamoDB in moto:
//! live creates and households on cold instances (which do not know the plan) racing at the
//! monthly edge, and the month's one live count on the account item (creates, households,
//! refunds). The store scenario also runs on `MemoryStore`.

use crate::common;

use adapters::dynamo::{DynamoStore, live_created_attribute};
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{Datelike, Duration, Utc};
use common::{Metered, TestEnv, env};
use domain::household::{Household, HouseholdMember, MemberRole};
use domain::metering::PresentedKey;
use domain::plans::Plans;
use domain::{
    ApiKeyRecord, Mode, NewVerificationInput, Plan, Transition, VERIFICATION_LIFETIME,
    Verification, usage_month,
};
use ports::store::prelude::*;
use ports::{MeterOutcome, MeteredHousehold, SystemClock};
use serde_json::{Value, json};
use service::handlers::api::ApiDeps;
use service::http::{ApiRequest, ApiResponse};
use service::table_schema::{self as schema, keys};

/// A fresh instance (no caches: it knows no plan) over the test's table.
fn cold(env: &TestEnv) -> ApiDeps<DynamoStore, SystemClock> {
    let settings = service::config::Settings {
        plans: common::small_plans(),
        ..devstack::local_settings(&env.names.table, &env.base, VERIFICATION_LIFETIME)
    };
    ApiDeps::new(env.store.clone(), SystemClock, settings)
}

fn post(path: &str, key: &str, body: Value) -> ApiRequest {
    let mut req = ApiRequest::new(http::Method::POST, path)
        .with_header("authorization", &format!("Bearer {key}"))
        .with_header("content-type", "application/json");
    req.body = body.to_string().into_bytes();
    req
}

/// A live create on its own cold instance.
async fn create_cold(env: &TestEnv, key: &str, email: String) -> ApiResponse {
    let req = post("/api/v1/verify", key, json!({ "tenant_email": email }));
    service::handlers::create_verification::create_verification(&cold(env), req).await
}

/// A household of `members` applicants on its own cold instance.
async fn household_cold(env: &TestEnv, key: &str, tag: &str, members: usize) -> ApiResponse {
    let members: Vec<Value> = (0..members)
        .map(|i| json!({ "tenant_email": format!("{tag}.{i}@example.com"), "role": "applicant" }))
        .collect();
    let req = post(
        "/api/v1/households",
        key,
        json!({ "property_address": "2 Shared House Lane", "monthly_rent": 1800, "members": members }),
    );
    service::handlers::households::create_household(&cold(env), req).await
}

fn code(resp: &ApiResponse) -> (u16, String) {
    let body: Value = serde_json::from_str(&resp.body).unwrap_or(Value::Null);
    (resp.status, body["code"].as_str().unwrap_or("").to_string())
}

async fn raw(store: &DynamoStore, (pk, sk): (String, String)) -> adapters::dynamo::Item {
    store
        .client()
        .get_item()
        .table_name(store.table())
        .key(schema::PK, AttributeValue::S(pk))
        .key(schema::SK, AttributeValue::S(sk))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_default()
}

fn number(item: &adapters::dynamo::Item, attr: &str) -> Option<i64> {
    item.get(attr).map(|v| v.as_n().unwrap().parse().unwrap())
}

/// The live month's count, kept on the account's usage item only (the month item counts no live
/// create).
async fn live_counts(store: &DynamoStore, account: &str) -> Option<i64> {
    let month = usage_month(Utc::now());
    let month_item = raw(store, keys::month(account, Mode::Live, &month)).await;
    assert_eq!(number(&month_item, "created"), None, "counted once");
    let usage_item = raw(store, keys::usage(account)).await;
    number(&usage_item, &live_created_attribute(&month))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_live_creates_on_cold_instances_stop_at_the_monthly_allowance() {
    let env = env().await;
    let account = devstack::stack::OTHER_ACCOUNT;
    let key = env.other_live_key.clone();
    // `pro` allows 5 live verifications a month here: 3 made, then 6 at once on 6 cold
    // instances: exactly 2 fit.
    for i in 0..3 {
        let r = create_cold(&env, &key, format!("first{i}@example.com")).await;
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let racing = (0..6).map(|i| create_cold(&env, &key, format!("edge{i}@example.com")));
    let replies = futures::future::join_all(racing).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        2,
        "{statuses:?}"
    );
    for r in replies.iter().filter(|r| r.status != 201) {
        assert_eq!(code(r), (403, "verification_limit_reached".into()));
    }
    assert_eq!(live_counts(&env.store, account).await, Some(5));
    let (stats, _) = env
        .store
        .owner_stats(account, Mode::Live, &usage_month(Utc::now()))
        .await
        .unwrap();
    assert_eq!(stats.total, 5, "only counted creates exist");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_live_households_on_cold_instances_stop_at_the_monthly_allowance() {
    let env = env().await;
    let account = devstack::stack::OTHER_ACCOUNT;
    let key = env.other_live_key.clone();
    // 5 a month: one single create, then five households of two at once: exactly two fit.
    let r = create_cold(&env, &key, "single@example.com".into()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let tags: Vec<String> = (0..5).map(|i| format!("edge{i}")).collect();
    let racing = tags.iter().map(|tag| household_cold(&env, &key, tag, 2));
    let replies = futures::future::join_all(racing).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        2,
        "{statuses:?}"
    );
    for r in replies.iter().filter(|r| r.status != 201) {
        assert_eq!(code(r), (403, "verification_limit_reached".into()));
    }
    assert_eq!(live_counts(&env.store, account).await, Some(5));
    // Full: a household of one is refused whole, and changes neither count.
    let r = household_cold(&env, &key, "late", 1).await;
    assert_eq!(code(&r), (403, "verification_limit_reached".into()));
    assert_eq!(live_counts(&env.store, account).await, Some(5));
}

/// A failure on the service's side gives the month back on its count, in its transaction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refund_gives_the_month_back_on_its_count() {
    let env = env().await;
    let account = devstack::stack::OTHER_ACCOUNT;
    let r = create_cold(&env, &env.other_live_key, "refunded@example.com".into()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(live_counts(&env.store, account).await, Some(1));
    let body: Value = serde_json::from_str(&r.body).unwrap();
    let id = body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let v = env.store.get_verification(id).await.unwrap().unwrap();
    let refund = Transition::FailRefunded {
        reason: "provider_unavailable".into(),
    };
    env.store.transition(&v, &refund, Utc::now()).await.unwrap();
    assert_eq!(live_counts(&env.store, account).await, Some(0));
}

/// Runs a scenario written against the store traits on the DynamoDB adapter (moto) and on the
/// in-memory store, so the two keep the same semantics.
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

const ACCOUNT: &str = "acct_live";

/// A fresh table on the shared moto server.
async fn store() -> DynamoStore {
    let sdk = common::moto().sdk_config().await;
    let client = aws_sdk_dynamodb::Client::new(&sdk);
    let table = format!("live{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    adapters::dynamo::create_table(&client, &table)
        .await
        .expect("table");
    DynamoStore::new(client, table)
}

/// A household of `count` pending members of `mode`, created now.
fn household(mode: Mode, count: usize) -> (Household, Vec<Verification>) {
    let now = Utc::now();
    let household_id = uuid::Uuid::new_v4();
    let members: Vec<Verification> = (0..count)
        .map(|i| {
            let input = NewVerificationInput {
                tenant_email: format!("member{i}@example.com"),
                monthly_rent: Some(1800.0),
                ..Default::default()
            };
            let mut v = Verification::new_pending(ACCOUNT, mode, input, now, Duration::days(7));
            v.household_id = Some(household_id);
            v.household_role = Some(MemberRole::Applicant);
            v
        })
        .collect();
    let household = Household {
        household_id,
        account_id: ACCOUNT.into(),
        mode,
        created_at: now,
        property_address: None,
        monthly_rent: 1800.0,
        rent_subsidy_monthly: None,
        income_multiple: None,
        guarantor_multiple: None,
        webhook_url: None,
        members: (members.iter())
            .map(|v| HouseholdMember {
                verification_id: v.verification_id,
                role: MemberRole::Applicant,
            })
            .collect(),
        decision: None,
        decided_at: None,
        cancelled_at: None,
        erased_at: None,
    };
    (household, members)
}

on_both_stores!(a_household_carrying_its_metering_writes_both_or_nothing);
/// `meter_and_create_household`: the count of the request and the household with all its members
/// happen together or not at all; a live one only within the monthly allowance of the plan the
/// account has at the write, for all members at once; a test one never charged.
async fn a_household_carrying_its_metering_writes_both_or_nothing<S: Store>(store: S) {
    let now = Utc::now();
    store
        .put_account(&test_support::active_account(ACCOUNT, "small", now))
        .await
        .unwrap();
    let plans = Plans::new(vec![
        Plan {
            name: "small".into(),
            verifications_per_month: 3,
            api_requests_per_day: 7,
            api_access: true,
            sms_per_month: 0,
            key_burst: Default::default(),
        },
        Plan {
            name: "roomy".into(),
            verifications_per_month: 100,
            api_requests_per_day: 7,
            api_access: true,
            sms_per_month: 0,
            key_burst: Default::default(),
        },
    ]);
    for mode in [Mode::Live, Mode::Test] {
        let record = ApiKeyRecord {
            key_id: format!("key_{}", mode.as_str()),
            key_hash: mode.as_str().into(),
            account_id: ACCOUNT.into(),
            mode,
            display_prefix: "tiv_acct".into(),
            created_at: now,
            revoked_at: None,
        };
        store.put_api_key(&record).await.unwrap();
    }
    let presented = |mode: Mode| PresentedKey {
        key_id: format!("key_{}", mode.as_str()),
        key_hash: mode.as_str().into(),
        account_id: ACCOUNT.into(),
        mode,
    };
    let (store, plans) = (&store, &plans);
    let create = |mode: Mode, count: usize| async move {
        let (household, members) = household(mode, count);
        let key = presented(mode);
        let out = Metered::<()>::of(
            store
                .meter_and_create_household(&MeteredHousehold {
                    key: &key,
                    now: Utc::now(),
                    plans,
                    household: &household,
                    members: &members,
                    idempotency: None,
                })
                .await,
        );
        let written = store.get_household(household.household_id).await.unwrap();
        let member = store
            .get_verification(members[0].verification_id)
            .await
            .unwrap();
        assert_eq!(out.wrote(), written.is_some(), "both or nothing");
        assert_eq!(written.is_some(), member.is_some(), "with its members");
        out.map(|(a, ())| a.api_requests)
    };
    let month = usage_month(now);
    let used = || async {
        store
            .owner_stats(ACCOUNT, Mode::Live, &month)
            .await
            .unwrap()
            .1
            .created
    };
    // A read's count first (the first request of a UTC day is counted by the one write too:
    // `dynamo_store.rs`, `the_first_request_of_a_day_is_counted_by_the_one_write`).
    assert!(matches!(
        store
            .meter_api_request(&presented(Mode::Live), Utc::now(), plans)
            .await
            .unwrap(),
        MeterOutcome::Allowed(_)
    ));
    // Counted with all its members; the next does not fit `small` (3 a month) and is refused
    // whole (told so, the request counted alone); one more member does.
    assert_eq!(create(Mode::Live, 2).await, Metered::Wrote(2));
    assert_eq!(used().await, 2);
    assert_eq!(
        create(Mode::Live, 2).await,
        common::declined("LimitReached")
    );
    assert_eq!(create(Mode::Live, 1).await, Metered::Wrote(4));
    assert_eq!(
        create(Mode::Live, 1).await,
        common::declined("LimitReached")
    );
    assert_eq!(used().await, 3);
    // A test household is never charged; on `roomy` the same write allows live ones again.
    assert_eq!(create(Mode::Test, 6).await, Metered::Wrote(6));
    assert!(
        store
            .update_account(ACCOUNT, Some("roomy"), None)
            .await
            .unwrap()
    );
    assert_eq!(create(Mode::Live, 6).await, Metered::Wrote(7));
    assert_eq!(used().await, 9);
    // The day's allowance (7) used up: refused, nothing written.
    assert_eq!(
        create(Mode::Live, 1).await,
        Metered::Refused("limit_exceeded")
    );
    assert_eq!(used().await, 9);
}

/// The live create that counts on the account removes last month's count (no longer checked),
/// so the account item, read by every request, does not grow month after month.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn last_months_count_leaves_the_usage_item() {
    let env = env().await;
    let account = devstack::stack::OTHER_ACCOUNT;
    // The day's first request starts the window the usual way; the next counts in one write.
    let r = create_cold(&env, &env.other_live_key, "first@example.com".into()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let now = Utc::now();
    let previous = usage_month(now - Duration::days(i64::from(now.day())));
    let attribute = live_created_attribute(&previous);
    let (pk, sk) = keys::usage(account);
    env.store
        .client()
        .update_item()
        .table_name(env.store.table())
        .key(schema::PK, AttributeValue::S(pk))
        .key(schema::SK, AttributeValue::S(sk))
        .update_expression("SET #m = :n")
        .expression_attribute_names("#m", &attribute)
        .expression_attribute_values(":n", AttributeValue::N("7".into()))
        .send()
        .await
        .unwrap();
    let r = create_cold(&env, &env.other_live_key, "second@example.com".into()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let item = raw(&env.store, keys::usage(account)).await;
    assert_eq!(number(&item, &attribute), None, "{attribute} removed");
    assert_eq!(live_counts(&env.store, account).await, Some(2));
}
