//! `admin set-retention`: the period is bounded and stored on the account, and the erasure of
//! every closed verification is armed at the new end (a marker only ever moves earlier).

use adapters::dynamo::DynamoStore;
use admin::{Command, run};
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{Duration, Utc};
use devstack::moto::Moto;
use domain::plans::Plans;
use domain::retention::RetentionDays;
use domain::{Mode, NewVerificationInput, Transition, VERIFICATION_LIFETIME, Verification};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use service::table_schema::keys;

/// The TTL of the verification's erasure marker, if it has one.
async fn marker_ttl(store: &DynamoStore, v: &Verification) -> Option<i64> {
    let (pk, sk) = keys::erasure_marker(v.verification_id);
    let item = store
        .client()
        .get_item()
        .table_name(store.table())
        .key("PK", AttributeValue::S(pk))
        .key("SK", AttributeValue::S(sk))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item?;
    item.get("ttl")?.as_n().ok()?.parse().ok()
}

/// A verification of `acct_acme` closed (expired) `days_ago`.
async fn closed(store: &DynamoStore, days_ago: i64) -> Verification {
    let at = Utc::now() - Duration::days(days_ago);
    let v = Verification::new_pending(
        "acct_acme",
        Mode::Test,
        NewVerificationInput {
            tenant_email: "t@example.com".into(),
            ..Default::default()
        },
        at - Duration::days(1),
        VERIFICATION_LIFETIME,
    );
    store.create_verification(&v, None, None).await.unwrap();
    match store.transition(&v, &Transition::Cancel, at).await.unwrap() {
        TransitionOutcome::Applied(v) => v,
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_retention_bounds_the_period_and_arms_every_closed_verification() {
    let moto = Moto::start().unwrap();
    let sdk = moto.sdk_config().await;
    let names = devstack::stack::Resources::named("admin-retention");
    devstack::stack::bootstrap(&sdk, &names).await.unwrap();
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let plans = Plans::defaults();
    let now = Utc::now();
    let go = |c: Command| run(&store, admin::NO_SECRETS, &plans, c, now);
    go(Command::CreateAccount {
        name: "Acme Lettings".into(),
        plan: "pro".into(),
        id: Some("acct_acme".into()),
    })
    .await
    .unwrap();
    assert_eq!(
        store.retention_days("acct_acme").await.unwrap(),
        Some(RetentionDays::DEFAULT)
    );

    for days in [0, 29, 2556] {
        let refused = go(Command::SetRetention {
            account: "acct_acme".into(),
            days,
        })
        .await;
        assert!(refused.unwrap_err().contains("30 to 2555"), "{days}");
    }
    let unknown = go(Command::SetRetention {
        account: "acct_nobody".into(),
        days: 60,
    })
    .await;
    assert_eq!(unknown.unwrap_err(), "no such account");

    let (old, recent) = (closed(&store, 40).await, closed(&store, 10).await);
    let out = go(Command::SetRetention {
        account: "acct_acme".into(),
        days: 30,
    })
    .await
    .unwrap();
    assert!(
        out.contains("30 days") && out.contains("for 2 closed"),
        "{out}"
    );
    assert_eq!(
        store.retention_days("acct_acme").await.unwrap(),
        RetentionDays::new(30)
    );
    let due = |v: &Verification, days| (v.expired_at.unwrap() + Duration::days(days)).timestamp();
    // Past due already: the next sweep erases it.
    assert_eq!(marker_ttl(&store, &old).await, Some(due(&old, 30)));
    assert_eq!(marker_ttl(&store, &recent).await, Some(due(&recent, 30)));

    // A longer period moves no marker later: the earlier one fires, finds the erasure not due,
    // and arms it again (expire-verifications).
    go(Command::SetRetention {
        account: "acct_acme".into(),
        days: 400,
    })
    .await
    .unwrap();
    assert_eq!(marker_ttl(&store, &recent).await, Some(due(&recent, 30)));
}
