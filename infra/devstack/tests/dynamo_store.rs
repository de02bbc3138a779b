//! The DynamoDB adapter on its own, against moto: item round trips (and that the stored items are
//! exactly what `dynamo::items` builds, which the bench's seeding and the tests rely on),
//! conditional writes that refuse, and the counters that move with them. The scenarios written
//! against the store traits also run on `MemoryStore`, which must behave the same.

mod common;

use common::Metered;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Duration, TimeZone, Utc};
use shared::adapters::dynamo::items::{self, Item};
use shared::adapters::dynamo::{DynamoStore, create_table, keys, schema};
use shared::config::Plans;
use shared::domain::metering::PresentedKey;
use shared::domain::report::IncomeReport;
use shared::domain::{
    Account, ApiKeyRecord, Mode, NewVerificationInput, Plan, Status, SubscriptionStatus,
    Transition, Verification,
};
use shared::ports::store::prelude::*;
use shared::ports::{
    CreateOutcome, EmailClaim, EmailStart, IdempotencyClaim, LinkTokenOutcome, ListQuery,
    MeterOutcome, MeteredCancel, MeteredCreate, TransitionOutcome, WebhookSecrets,
};

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
                super::$scenario(shared::adapters::testing::MemoryStore::new()).await
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
    shared::adapters::testing::active_account(ACCOUNT, plan, now())
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
        Some(items::account_item(&acct).unwrap())
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
    assert!(store.find_api_key(&key.key_hash).await.unwrap() == Some(key.clone()));
    assert_eq!(
        raw(&store, keys::api_key(&key.key_hash)).await,
        Some(items::api_key_item(&key).unwrap())
    );
    let listed = store.list_api_keys(ACCOUNT).await.unwrap();
    assert_eq!(listed.len(), 1);
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
    assert_eq!(store.find_api_key("orphan-hash").await.unwrap(), None);

    let secrets = WebhookSecrets {
        current: Some("whsec_current".into()),
        previous: None,
        previous_valid_until: None,
    };
    assert!(store.get_webhook_secrets(ACCOUNT).await.unwrap() == WebhookSecrets::default());
    store.put_webhook_secrets(ACCOUNT, &secrets).await.unwrap();
    assert!(store.get_webhook_secrets(ACCOUNT).await.unwrap() == secrets);

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

on_both_stores!(conditional_writes_refuse);
async fn conditional_writes_refuse<S: Store>(store: S) {
    store.put_account(&account("pro")).await.unwrap();
    // An account or a verification is never overwritten.
    assert!(store.put_account(&account("business")).await.is_err());
    let v = pending(Mode::Live);
    store.create_verification(&v, None, None).await.unwrap();
    assert!(store.create_verification(&v, None, None).await.is_err());

    // An Idempotency-Key is claimed once.
    let claim = IdempotencyClaim {
        key_hash: "idem".into(),
        body_hash: "body".into(),
    };
    let first = pending(Mode::Test);
    let second = pending(Mode::Test);
    let outcome = store.create_verification(&first, Some(&claim), None).await;
    assert_eq!(outcome.unwrap(), CreateOutcome::Created);
    match store
        .create_verification(&second, Some(&claim), None)
        .await
        .unwrap()
    {
        CreateOutcome::IdempotencyConflict(record) => {
            assert_eq!(record.verification_id, first.verification_id)
        }
        other => panic!("{other:?}"),
    }
    assert!(
        store
            .get_verification(second.verification_id)
            .await
            .unwrap()
            .is_none()
    );

    // A transition from a status that is no longer stored loses, and sees the fresh state.
    let started = match store
        .transition(&v, &Transition::Start, now())
        .await
        .unwrap()
    {
        TransitionOutcome::Applied(started) => started,
        other => panic!("{other:?}"),
    };
    match store
        .transition(&v, &Transition::Cancel, now())
        .await
        .unwrap()
    {
        TransitionOutcome::Conflict(Some(fresh)) => assert_eq!(fresh.status, Status::InProgress),
        other => panic!("{other:?}"),
    }
    // A consent records its provider user once; a second one is refused.
    let consent = |user: &str| Transition::Consent {
        version: "v1".into(),
        provider_user: Some(user.into()),
    };
    let outcome = store
        .transition(&started, &consent("user-1"), now())
        .await
        .unwrap();
    assert!(
        matches!(outcome, TransitionOutcome::Applied(_)),
        "{outcome:?}"
    );
    match store
        .transition(&started, &consent("user-2"), now())
        .await
        .unwrap()
    {
        TransitionOutcome::Conflict(Some(fresh)) => {
            assert_eq!(fresh.provider_user.as_deref(), Some("user-1"))
        }
        other => panic!("{other:?}"),
    }
    // Only the fields the transition sets are written: a token bound since the read survives.
    assert_eq!(
        store
            .add_recent_link_token(&started, "mail-token-hash", 3)
            .await
            .unwrap(),
        LinkTokenOutcome::Added
    );
    let report = IncomeReport::empty_for_tests();
    let complete = Transition::Complete {
        report: Box::new(report),
    };
    let outcome = store.transition(&started, &complete, now()).await.unwrap();
    assert!(
        matches!(outcome, TransitionOutcome::Applied(_)),
        "{outcome:?}"
    );
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::Completed);
    assert_eq!(stored.provider_user.as_deref(), Some("user-1"));
    assert!(stored.token_hashes.contains(&"mail-token-hash".to_string()));
    // Consent is recorded only on an open verification.
    let late = Transition::Consent {
        version: "v1".into(),
        provider_user: None,
    };
    assert!(matches!(
        store.transition(&stored, &late, now()).await.unwrap(),
        TransitionOutcome::Conflict(_)
    ));
    // A link token cannot be bound to a verification that does not exist.
    let missing = pending(Mode::Test);
    assert_eq!(
        store.add_recent_link_token(&missing, "x", 3).await.unwrap(),
        LinkTokenOutcome::NotFound
    );
    let absent = missing.verification_id;
    let start = store.claim_email_and_bind(absent, None, "x", now()).await;
    assert_eq!(start.unwrap(), EmailStart::NotPending);

    // The tenant e-mail is claimed by one sender; its outcome is kept for good. (`v` is
    // completed by now and the claim binds only while pending: a fresh one is mailed.)
    let mailed = pending(Mode::Live);
    store
        .create_verification(&mailed, None, None)
        .await
        .unwrap();
    let id = mailed.verification_id;
    let claim = |id, hash: &'static str, at| store.claim_email_and_bind(id, None, hash, at);
    assert_eq!(
        claim(id, "mail-1", now()).await.unwrap(),
        EmailStart::Claimed
    );
    assert_eq!(
        claim(id, "mail-2", now()).await.unwrap(),
        EmailStart::Refused(EmailClaim::Held)
    );
    let after_lease = now() + items::EMAIL_LEASE + Duration::seconds(2);
    assert_eq!(
        claim(id, "mail-3", after_lease).await.unwrap(),
        EmailStart::Claimed
    );
    store.mark_email_sent(id, now()).await.unwrap();
    assert_eq!(
        claim(id, "mail-4", after_lease).await.unwrap(),
        EmailStart::Refused(EmailClaim::Sent)
    );
    assert!(store.release_email_send(id).await.is_err());
    let other = first.verification_id;
    assert_eq!(
        claim(other, "mail-5", now()).await.unwrap(),
        EmailStart::Claimed
    );
    store.release_email_send(other).await.unwrap();
    assert_eq!(
        claim(other, "mail-6", now()).await.unwrap(),
        EmailStart::Claimed
    );
    store.mark_email_rejected(other, "bounced").await.unwrap();
    assert_eq!(
        claim(other, "mail-7", now()).await.unwrap(),
        EmailStart::Refused(EmailClaim::Rejected("bounced".into()))
    );
}

on_both_stores!(the_e_mail_claim_binds_its_token_only_while_pending);
async fn the_e_mail_claim_binds_its_token_only_while_pending<S: Store>(store: S) {
    let v = pending(Mode::Live);
    let id = v.verification_id;
    store.create_verification(&v, None, None).await.unwrap();
    // The create response's tokens, and the e-mail's link.
    let tokens = |v: Option<Verification>| {
        let v = v.unwrap();
        let mail = v.message_links.get("invite_email").cloned();
        (v.token_hashes, mail)
    };
    let first = vec!["first-token-hash".to_string()];

    // Claimed: the claim and the token, together.
    let start = store.claim_email_and_bind(id, None, "mail-1", now()).await;
    assert_eq!(start.unwrap(), EmailStart::Claimed);
    let bound = tokens(store.get_verification(id).await.unwrap());
    assert_eq!(bound, (first.clone(), Some("mail-1".to_string())));
    // Held: neither (no token bound for an e-mail that is not sent by this attempt).
    let start = store.claim_email_and_bind(id, None, "mail-2", now()).await;
    assert_eq!(start.unwrap(), EmailStart::Refused(EmailClaim::Held));
    assert_eq!(tokens(store.get_verification(id).await.unwrap()), bound);
    // Held for the whole lease, not only at the instant it was taken.
    let within_lease = now() + items::EMAIL_LEASE - Duration::seconds(1);
    let start = store
        .claim_email_and_bind(id, None, "mail-2", within_lease)
        .await;
    assert_eq!(start.unwrap(), EmailStart::Refused(EmailClaim::Held));
    assert_eq!(tokens(store.get_verification(id).await.unwrap()), bound);
    let after_lease = now() + items::EMAIL_LEASE + Duration::seconds(2);
    let start = store
        .claim_email_and_bind(id, None, "mail-3", after_lease)
        .await;
    assert_eq!(start.unwrap(), EmailStart::Claimed);
    store.mark_email_sent(id, after_lease).await.unwrap();
    let start = store
        .claim_email_and_bind(id, None, "mail-4", after_lease)
        .await;
    assert_eq!(start.unwrap(), EmailStart::Refused(EmailClaim::Sent));
    // The attempt that took over bound its link in place of the crashed one's: nothing grows.
    let bound = tokens(store.get_verification(id).await.unwrap());
    assert_eq!(bound, (first, Some("mail-3".to_string())));

    // Rejected for good, the verification still pending: the caller fails it.
    let rejected = pending(Mode::Live);
    store
        .create_verification(&rejected, None, None)
        .await
        .unwrap();
    let rid = rejected.verification_id;
    let start = store.claim_email_and_bind(rid, None, "mail-r", now()).await;
    assert_eq!(start.unwrap(), EmailStart::Claimed);
    store.mark_email_rejected(rid, "bounced").await.unwrap();
    let start = store.claim_email_and_bind(rid, None, "mail", now()).await;
    assert_eq!(
        start.unwrap(),
        EmailStart::Refused(EmailClaim::Rejected("bounced".into()))
    );

    // Not pending (cancelled, past its expiry, or absent): nothing is written, not even a claim.
    let cancelled = pending(Mode::Live);
    store
        .create_verification(&cancelled, None, None)
        .await
        .unwrap();
    let cid = cancelled.verification_id;
    let outcome = store
        .transition(&cancelled, &Transition::Cancel, now())
        .await
        .unwrap();
    assert!(matches!(outcome, TransitionOutcome::Applied(_)));
    let start = store.claim_email_and_bind(cid, None, "mail", now()).await;
    assert_eq!(start.unwrap(), EmailStart::NotPending);
    assert!(
        store.release_email_send(cid).await.is_err(),
        "no claim was left behind"
    );
    let expired = pending(Mode::Live);
    store
        .create_verification(&expired, None, None)
        .await
        .unwrap();
    let start = store
        .claim_email_and_bind(expired.verification_id, None, "mail", expired.expires_at)
        .await;
    assert_eq!(start.unwrap(), EmailStart::NotPending);
    let unchanged = tokens(
        store
            .get_verification(expired.verification_id)
            .await
            .unwrap(),
    );
    assert_eq!(unchanged, (vec!["first-token-hash".to_string()], None));
    let absent = pending(Mode::Live).verification_id;
    let start = store
        .claim_email_and_bind(absent, None, "mail", now())
        .await;
    assert_eq!(start.unwrap(), EmailStart::NotPending);
}

on_both_stores!(counters_move_with_the_writes);
async fn counters_move_with_the_writes<S: Store>(store: S) {
    store.put_account(&account("pro")).await.unwrap();
    let month = "2026-03";
    let mut created = Vec::new();
    for _ in 0..2 {
        let v = pending(Mode::Live);
        let outcome = store.create_verification(&v, None, Some(2)).await.unwrap();
        assert_eq!(outcome, CreateOutcome::Created);
        created.push(v);
    }
    let over = store
        .create_verification(&pending(Mode::Live), None, Some(2))
        .await;
    assert_eq!(over.unwrap(), CreateOutcome::LimitReached);
    let (stats, usage) = store.owner_stats(ACCOUNT, Mode::Live, month).await.unwrap();
    assert_eq!((stats.total, stats.open, usage.created), (2, 2, 2));

    let report = IncomeReport::empty_for_tests();
    store
        .transition(
            &created[0],
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    let refund = Transition::FailRefunded {
        reason: "email_undeliverable".into(),
    };
    store.transition(&created[1], &refund, now()).await.unwrap();
    let (stats, usage) = store.owner_stats(ACCOUNT, Mode::Live, month).await.unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.completed, stats.failed),
        (2, 0, 1, 1)
    );
    assert_eq!((usage.created, usage.completed), (1, 1));
    // The refund gave one back: the month's allowance has room again.
    let again = store
        .create_verification(&pending(Mode::Live), None, Some(2))
        .await;
    assert_eq!(again.unwrap(), CreateOutcome::Created);
    // Test mode has its own counters.
    let (test_stats, _) = store.owner_stats(ACCOUNT, Mode::Test, month).await.unwrap();
    assert_eq!(test_stats.total, 0);
}

/// A key the metering finds by its hash first (the earlier format): the write checks revocation.
fn found_key(key_id: &str) -> PresentedKey {
    PresentedKey {
        key_id: key_id.into(),
        key_hash: format!("hash-of-{key_id}"),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        names_account: false,
    }
}

on_both_stores!(a_key_naming_its_account_is_authenticated_by_the_metering_write);
/// A key of the current format is never looked up: the one metering write counts it only while
/// its account lists its hash with its mode and has not revoked it.
async fn a_key_naming_its_account_is_authenticated_by_the_metering_write<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 10,
        api_requests_per_day: 5,
        api_access: true,
    }]);
    let issued = |hash: &str, mode| ApiKeyRecord {
        key_id: format!("key_{hash}"),
        key_hash: hash.into(),
        account_id: ACCOUNT.into(),
        mode,
        display_prefix: "tiv_test_aaaa".into(),
        created_at: now(),
        revoked_at: None,
    };
    let presented = |hash: &str, mode| PresentedKey {
        key_id: format!("key_{hash}"),
        key_hash: hash.into(),
        account_id: ACCOUNT.into(),
        mode,
        names_account: true,
    };
    // Before it is issued: unknown, and nothing is counted.
    let meter = |key: PresentedKey| {
        let (store, plans) = (&store, &plans);
        async move { store.meter_api_request(&key, now(), plans).await.unwrap() }
    };
    assert_eq!(
        meter(presented("h1", Mode::Test)).await,
        MeterOutcome::UnknownAccount
    );
    // The account's first key creates the listing, the second adds to it.
    store.put_api_key(&issued("h1", Mode::Test)).await.unwrap();
    store.put_api_key(&issued("h2", Mode::Live)).await.unwrap();
    match meter(presented("h1", Mode::Test)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 1),
        other => panic!("{other:?}"),
    }
    match meter(presented("h2", Mode::Live)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 2),
        other => panic!("{other:?}"),
    }
    // Listed for the other mode, or not listed at all: unknown, not counted.
    assert_eq!(
        meter(presented("h1", Mode::Live)).await,
        MeterOutcome::UnknownAccount
    );
    assert_eq!(
        meter(presented("h3", Mode::Test)).await,
        MeterOutcome::UnknownAccount
    );
    // Revoked: refused by the next request's write, and the other key still counts.
    assert!(
        store
            .revoke_api_key(ACCOUNT, "key_h1", now())
            .await
            .unwrap()
    );
    assert_eq!(
        meter(presented("h1", Mode::Test)).await,
        MeterOutcome::KeyRevoked
    );
    match meter(presented("h2", Mode::Live)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 3),
        other => panic!("{other:?}"),
    }
}

on_both_stores!(a_create_carrying_its_metering_writes_both_or_nothing);
/// `meter_and_create`: the count of the request and the create happen together or not at all;
/// every refusal (window not started, the plan's monthly allowance used up, the Idempotency-Key
/// used, a key not listed or revoked, the day's allowance used up) leaves the count and the
/// verifications as they were. The monthly allowance is the plan the account has at the write.
async fn a_create_carrying_its_metering_writes_both_or_nothing<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plan = |name: &str, month, day| Plan {
        name: name.into(),
        verifications_per_month: month,
        api_requests_per_day: day,
        api_access: true,
    };
    let plans = Plans::new(vec![plan("tiny", 1, 4), plan("pro", 5, 4)]);
    for (hash, key_id) in [("h1", "key_h1"), ("h2", "key_h2")] {
        let record = ApiKeyRecord {
            key_id: key_id.into(),
            key_hash: hash.into(),
            account_id: ACCOUNT.into(),
            mode: Mode::Live,
            display_prefix: "tiv_live_acct".into(),
            created_at: now(),
            revoked_at: None,
        };
        store.put_api_key(&record).await.unwrap();
    }
    let presented = |hash: &str| PresentedKey {
        key_id: format!("key_{hash}"),
        key_hash: hash.into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Live,
        names_account: true,
    };
    let claim = IdempotencyClaim {
        key_hash: "idem-key".into(),
        body_hash: "idem-body".into(),
    };
    let (store, plans) = (&store, &plans);
    let create = |hash: &'static str, idem: bool| {
        let v = pending(Mode::Live);
        let claim = claim.clone();
        async move {
            let key = presented(hash);
            let idem = idem.then_some(&claim);
            let out = Metered::of(
                store
                    .meter_and_create(&MeteredCreate {
                        key: &key,
                        now: now(),
                        plans,
                        verification: &v,
                        idempotency: idem,
                    })
                    .await,
            );
            let written = store.get_verification(v.verification_id).await.unwrap();
            assert_eq!(out.wrote(), written.is_some(), "both or nothing");
            out.map(|a| a.api_requests)
        }
    };
    let count = || async {
        store
            .get_account(ACCOUNT)
            .await
            .unwrap()
            .unwrap()
            .api_requests
    };
    // A read's count (the first request of the UTC day: `the_first_request_of_a_day_...`).
    assert!(matches!(
        store
            .meter_api_request(&presented("h1"), now(), plans)
            .await
            .unwrap(),
        MeterOutcome::Allowed(_)
    ));
    assert_eq!(count().await, 1);
    // Counted and created together, the Idempotency-Key claimed with them.
    assert_eq!(create("h1", true).await, Metered::Wrote(2));
    assert_eq!(count().await, 2);
    let month = shared::domain::usage_month(now());
    let (_, used) = store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!(used.created, 1);
    // The month's allowance of `tiny` (1) used up: nothing (the usual way tells it).
    assert_eq!(create("h1", false).await, Metered::Nothing);
    assert_eq!(count().await, 2);
    // On `pro` (5 a month) the same write allows it: the write reads the plan, not the caller.
    assert!(
        store
            .update_account(ACCOUNT, Some("pro"), None)
            .await
            .unwrap()
    );
    // The Idempotency-Key used: nothing; a key not listed: refused as unknown.
    assert_eq!(create("h1", true).await, Metered::Nothing);
    assert_eq!(
        create("h9", false).await,
        Metered::Refused("unknown_account")
    );
    assert_eq!(count().await, 2);
    // A revoked key: refused by the same write; the other key still counts.
    assert!(
        store
            .revoke_api_key(ACCOUNT, "key_h2", now())
            .await
            .unwrap()
    );
    assert_eq!(create("h2", false).await, Metered::Refused("key_revoked"));
    assert_eq!(create("h1", false).await, Metered::Wrote(3));
    assert_eq!(create("h1", false).await, Metered::Wrote(4));
    // The day's allowance (4) used up: refused, nothing written.
    assert_eq!(
        create("h1", false).await,
        Metered::Refused("limit_exceeded")
    );
    assert_eq!(count().await, 4);
    let (_, used) = store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!(used.created, 3);
}

on_both_stores!(a_cancel_carrying_its_metering_writes_both_or_nothing);
/// `meter_and_cancel`: the count and the cancel of the key's own open verification (pending or in
/// progress, one write either way) happen together or not at all; anything else (another account
/// or mode, a closed status, past its expiry, missing, the day's allowance used up) leaves the
/// count and the verification as they were.
async fn a_cancel_carrying_its_metering_writes_both_or_nothing<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 10,
        api_requests_per_day: 4,
        api_access: true,
    }]);
    let record = ApiKeyRecord {
        key_id: "key_h1".into(),
        key_hash: "h1".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        display_prefix: "tiv_test_acct".into(),
        created_at: now(),
        revoked_at: None,
    };
    store.put_api_key(&record).await.unwrap();
    let key = PresentedKey {
        key_id: "key_h1".into(),
        key_hash: "h1".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        names_account: true,
    };
    let (store, plans, key) = (&store, &plans, &key);
    let cancel = |id: uuid::Uuid, at: DateTime<Utc>| async move {
        Metered::of(
            store
                .meter_and_cancel(&MeteredCancel {
                    key,
                    now: at,
                    plans,
                    verification_id: id,
                })
                .await,
        )
        .map(|a| a.api_requests)
    };
    let count = || async {
        store
            .get_account(ACCOUNT)
            .await
            .unwrap()
            .unwrap()
            .api_requests
    };
    let created = |mode| async move {
        let v = pending(mode);
        store.create_verification(&v, None, None).await.unwrap();
        v
    };
    assert!(matches!(
        store.meter_api_request(key, now(), plans).await.unwrap(),
        MeterOutcome::Allowed(_)
    ));
    let open = created(Mode::Test).await;
    let live = created(Mode::Live).await;
    let started = created(Mode::Test).await;
    store
        .transition(&started, &Transition::Start, now())
        .await
        .unwrap();
    let done = created(Mode::Test).await;
    let report = IncomeReport::empty_for_tests();
    store
        .transition(
            &done,
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    // Another mode's, a completed one, one past its expiry, one that does not exist: nothing.
    assert_eq!(cancel(live.verification_id, now()).await, Metered::Nothing);
    assert_eq!(cancel(done.verification_id, now()).await, Metered::Nothing);
    assert_eq!(
        cancel(open.verification_id, open.expires_at).await,
        Metered::Nothing
    );
    assert_eq!(cancel(uuid::Uuid::new_v4(), now()).await, Metered::Nothing);
    assert_eq!(count().await, 1);
    // One in progress: counted and cancelled in the one write, its counter moved.
    assert_eq!(
        cancel(started.verification_id, now()).await,
        Metered::Wrote(2)
    );
    let stopped = store
        .get_verification(started.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stopped.status, stopped.cancelled_at),
        (Status::Expired, Some(now()))
    );
    // The key's own pending one: counted and cancelled together, counters moved.
    assert_eq!(cancel(open.verification_id, now()).await, Metered::Wrote(3));
    let after = store
        .get_verification(open.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.status, Status::Expired);
    assert_eq!(after.cancelled_at, Some(now()));
    let month = shared::domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.expired, stats.completed),
        (3, 0, 2, 1)
    );
    // Cancelled already: nothing more.
    assert_eq!(cancel(open.verification_id, now()).await, Metered::Nothing);
    // The day's allowance used up: nothing, even for a pending one.
    let another = created(Mode::Test).await;
    assert!(matches!(
        store.meter_api_request(key, now(), plans).await.unwrap(),
        MeterOutcome::Allowed(_)
    ));
    assert_eq!(
        cancel(another.verification_id, now()).await,
        Metered::Refused("limit_exceeded")
    );
    let still = store
        .get_verification(another.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(still.status, Status::Pending);
    assert_eq!(count().await, 4);
}

on_both_stores!(a_cancel_carrying_its_metering_races_the_tenant_start_and_always_applies);
/// The one-write cancel and the tenant's start of the same pending verification, at once: the
/// start is conditional on `pending`, the cancel on either open status. So the cancel always
/// applies (after the start, or before it, and then the start is refused: a cancelled
/// verification is never started), and the counters follow: every one ends cancelled.
async fn a_cancel_carrying_its_metering_races_the_tenant_start_and_always_applies<S: Store>(
    store: S,
) {
    let (key, plans) = metered_pro_key(&store).await;
    for _ in 0..5 {
        let v = pending(Mode::Test);
        store.create_verification(&v, None, None).await.unwrap();
        let cancel = MeteredCancel {
            key: &key,
            now: now(),
            plans: &plans,
            verification_id: v.verification_id,
        };
        let (cancelled, started) = futures::join!(
            store.meter_and_cancel(&cancel),
            store.transition(&v, &Transition::Start, now())
        );
        assert!(cancelled.unwrap().is_some(), "the cancel applies");
        let started = matches!(started.unwrap(), TransitionOutcome::Applied(_));
        let stored = store
            .get_verification(v.verification_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (stored.status, stored.cancelled_at),
            (Status::Expired, Some(now()))
        );
        // A start that applied came first (it set `started_at`); one refused wrote nothing.
        assert_eq!(stored.started_at.is_some(), started);
    }
    let month = shared::domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!((stats.total, stats.open, stats.expired), (5, 0, 5));
}

on_both_stores!(a_cancel_carrying_its_metering_races_the_tenant_completion_with_one_winner);
/// The one-write cancel of a verification in progress and the tenant's completion of it, at once:
/// both are conditional on an open status, so exactly one is applied and the counters follow the
/// winner.
async fn a_cancel_carrying_its_metering_races_the_tenant_completion_with_one_winner<S: Store>(
    store: S,
) {
    let (key, plans) = metered_pro_key(&store).await;
    let mut winners = (0u64, 0u64);
    for _ in 0..5 {
        let v = pending(Mode::Test);
        store.create_verification(&v, None, None).await.unwrap();
        let TransitionOutcome::Applied(v) = store
            .transition(&v, &Transition::Start, now())
            .await
            .unwrap()
        else {
            panic!("the start applies");
        };
        let cancel = MeteredCancel {
            key: &key,
            now: now(),
            plans: &plans,
            verification_id: v.verification_id,
        };
        let complete = Transition::Complete {
            report: Box::new(IncomeReport::empty_for_tests()),
        };
        let (cancelled, completed) = futures::join!(
            store.meter_and_cancel(&cancel),
            store.transition(&v, &complete, now())
        );
        let cancelled = cancelled.unwrap().is_some();
        let completed = matches!(completed.unwrap(), TransitionOutcome::Applied(_));
        assert!(
            cancelled != completed,
            "exactly one wins: cancel {cancelled}, complete {completed}"
        );
        let stored = store
            .get_verification(v.verification_id)
            .await
            .unwrap()
            .unwrap();
        let expected = if cancelled {
            winners.0 += 1;
            Status::Expired
        } else {
            winners.1 += 1;
            Status::Completed
        };
        assert_eq!(stored.status, expected);
    }
    let month = shared::domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(
        (stats.open, stats.expired, stats.completed),
        (0, winners.0, winners.1)
    );
}

/// A "pro" account with a test key allowed today, for the metered cancels.
async fn metered_pro_key<S: Store>(store: &S) -> (PresentedKey, Plans) {
    store.put_account(&account("pro")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "pro".into(),
        verifications_per_month: 50,
        api_requests_per_day: 1000,
        api_access: true,
    }]);
    let record = ApiKeyRecord {
        key_id: "key_h1".into(),
        key_hash: "h1".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        display_prefix: "tiv_test_acct".into(),
        created_at: now(),
        revoked_at: None,
    };
    store.put_api_key(&record).await.unwrap();
    let key = PresentedKey {
        key_id: "key_h1".into(),
        key_hash: "h1".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        names_account: true,
    };
    assert!(matches!(
        store.meter_api_request(&key, now(), &plans).await.unwrap(),
        MeterOutcome::Allowed(_)
    ));
    (key, plans)
}

on_both_stores!(the_first_request_of_a_day_is_counted_by_the_one_write);
/// The day's count lives on the day's own attribute, so the first request of a UTC day is counted
/// by the same one write as any other: a create or a cancel carrying its metering, or a read's
/// count, starts the new day at one, with nothing written first.
async fn the_first_request_of_a_day_is_counted_by_the_one_write<S: Store>(store: S) {
    let (key, plans) = metered_pro_key(&store).await;
    let (store, key, plans) = (&store, &key, &plans);
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let window = |at: DateTime<Utc>| Some(shared::domain::api_window(at));
    let today = || async {
        let a = store.get_account(ACCOUNT).await.unwrap().unwrap();
        (a.api_window, a.api_requests)
    };
    assert_eq!(today().await, (window(now()), 1));
    // The next day's first request: a cancel carrying its metering.
    let day2 = now() + Duration::days(1);
    let cancel = MeteredCancel {
        key,
        now: day2,
        plans,
        verification_id: v.verification_id,
    };
    let cancelled = Metered::of(store.meter_and_cancel(&cancel).await);
    assert_eq!(
        cancelled.map(|a| (a.api_window, a.api_requests)),
        Metered::Wrote((window(day2), 1))
    );
    assert_eq!(today().await, (window(day2), 1));
    // The day after: a create carrying its metering, then a read's count.
    let day3 = now() + Duration::days(2);
    let mut fresh = pending(Mode::Test);
    fresh.created_at = day3;
    fresh.expires_at = day3 + Duration::days(7);
    let create = MeteredCreate {
        key,
        now: day3,
        plans,
        verification: &fresh,
        idempotency: None,
    };
    let created = Metered::of(store.meter_and_create(&create).await);
    assert_eq!(
        created.map(|a| (a.api_window, a.api_requests)),
        Metered::Wrote((window(day3), 1))
    );
    assert!(
        store
            .get_verification(fresh.verification_id)
            .await
            .unwrap()
            .is_some()
    );
    match store.meter_api_request(key, day3, plans).await.unwrap() {
        MeterOutcome::Allowed(a) => assert_eq!((a.api_window, a.api_requests), (window(day3), 2)),
        other => panic!("{other:?}"),
    }
    let day4 = now() + Duration::days(3);
    match store.meter_api_request(key, day4, plans).await.unwrap() {
        MeterOutcome::Allowed(a) => assert_eq!((a.api_window, a.api_requests), (window(day4), 1)),
        other => panic!("{other:?}"),
    }
}

/// The account item keeps one day's counter: a count removes the month of days before it, and
/// the earlier format (`api_window`, `api_requests`). Today's count of the earlier format is kept:
/// a write carrying its metering refuses on it (nothing written), and a read's count moves it onto
/// the day's attribute with one more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_counter_keeps_one_day_and_takes_over_the_earlier_format() {
    let store = store().await;
    let (key, plans) = metered_pro_key(&store).await;
    let account_key = keys::account(ACCOUNT);
    let day = |at: DateTime<Utc>| format!("api_requests_{}", at.format("%Y%m%d"));
    let n = |v: u32| AttributeValue::N(v.to_string());
    // Stale counters: 5 days ago (within the month a count clears) and 40 days ago (beyond it),
    // and yesterday's count in the earlier format.
    let yesterday = now() - Duration::days(1);
    put_attributes(
        &store,
        account_key.clone(),
        vec![
            (day(now() - Duration::days(5)), n(9)),
            (day(now() - Duration::days(40)), n(9)),
            (
                "api_window".into(),
                AttributeValue::S(shared::domain::api_window(yesterday)),
            ),
            ("api_requests".into(), n(7)),
        ],
    )
    .await;
    match store.meter_api_request(&key, now(), &plans).await.unwrap() {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 2),
        other => panic!("{other:?}"),
    }
    let item = raw(&store, account_key.clone()).await.unwrap();
    let mut counters: Vec<&String> = (item.keys())
        .filter(|k| k.starts_with("api_requests") || *k == "api_window")
        .collect();
    counters.sort();
    // The one beyond the month stays (read past: the latest day counts), the rest are gone.
    assert_eq!(counters, [&day(now() - Duration::days(40)), &day(now())]);
    assert_eq!(item.get(&day(now())), Some(&n(2)));
    // Today's count in the earlier format (an item written before the deploy): 6 of 1000 used.
    put_attributes(
        &store,
        account_key.clone(),
        vec![
            (day(now()), AttributeValue::Null(true)),
            (
                "api_window".into(),
                AttributeValue::S(shared::domain::api_window(now())),
            ),
            ("api_requests".into(), n(6)),
        ],
    )
    .await;
    let v = pending(Mode::Test);
    let create = MeteredCreate {
        key: &key,
        now: now(),
        plans: &plans,
        verification: &v,
        idempotency: None,
    };
    // The one write refuses (the usual way settles it), writing nothing.
    assert_eq!(
        Metered::of(store.meter_and_create(&create).await).map(|_| ()),
        Metered::Nothing
    );
    assert!(
        store
            .get_verification(v.verification_id)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store
            .get_account(ACCOUNT)
            .await
            .unwrap()
            .unwrap()
            .api_requests,
        6
    );
    // The usual way's count moves it: 7 on the day's attribute, the earlier format gone.
    match store.meter_api_request(&key, now(), &plans).await.unwrap() {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 7),
        other => panic!("{other:?}"),
    }
    let item = raw(&store, account_key.clone()).await.unwrap();
    assert_eq!(item.get(&day(now())), Some(&n(7)));
    assert!(!item.contains_key("api_window"));
    // And the one write counts again, removing the rest of the earlier format.
    assert_eq!(
        Metered::of(store.meter_and_create(&create).await).map(|a| a.api_requests),
        Metered::Wrote(8)
    );
    let item = raw(&store, account_key.clone()).await.unwrap();
    assert!(!item.contains_key("api_window") && !item.contains_key("api_requests"));
    // A rolling deploy: an instance of the earlier code counted 2 today in the earlier format
    // after this code counted 8 on the day's attribute. Both are kept: 8 + 2 + this request.
    put_attributes(
        &store,
        account_key.clone(),
        vec![
            (
                "api_window".into(),
                AttributeValue::S(shared::domain::api_window(now())),
            ),
            ("api_requests".into(), n(2)),
        ],
    )
    .await;
    match store.meter_api_request(&key, now(), &plans).await.unwrap() {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 11),
        other => panic!("{other:?}"),
    }
    let item = raw(&store, account_key).await.unwrap();
    assert_eq!(item.get(&day(now())), Some(&n(11)));
}

/// Rewrites the item at `key` with `attrs` set (a `Null` value removes the attribute).
async fn put_attributes(
    store: &DynamoStore,
    key: (String, String),
    attrs: Vec<(String, AttributeValue)>,
) {
    let mut item = raw(store, key).await.unwrap();
    for (name, value) in attrs {
        match value {
            AttributeValue::Null(_) => item.remove(&name),
            value => item.insert(name, value),
        };
    }
    store
        .client()
        .put_item()
        .table_name(store.table())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

on_both_stores!(a_single_api_plan_meters);
/// With exactly one plan that has API access the allowance condition has one clause; DynamoDB
/// refuses redundant parentheses around it, which once made every API request a 500.
async fn a_single_api_plan_meters<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 10,
        api_requests_per_day: 2,
        api_access: true,
    }]);
    let meter = |at: DateTime<Utc>| {
        let (store, plans) = (&store, &plans);
        async move {
            store
                .meter_api_request(&found_key("key_a"), at, plans)
                .await
                .unwrap()
        }
    };
    for expected in [1, 2] {
        match meter(now()).await {
            MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, expected),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(meter(now()).await, MeterOutcome::LimitExceeded(_)));
    match meter(now() + Duration::days(1)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 1),
        other => panic!("{other:?}"),
    }
}

on_both_stores!(the_api_allowance_counts_refuses_and_rolls_over);
async fn the_api_allowance_counts_refuses_and_rolls_over<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    // Two plans with API access (one clause per plan in the condition); a single API plan is
    // `a_single_api_plan_meters`.
    let plan = |name: &str, requests| Plan {
        name: name.into(),
        verifications_per_month: 10,
        api_requests_per_day: requests,
        api_access: true,
    };
    let plans = Plans::new(vec![plan("tiny", 2), plan("pro", 1000)]);
    let meter = |at: DateTime<Utc>, key: &'static str| {
        let (store, plans) = (&store, &plans);
        async move {
            store
                .meter_api_request(&found_key(key), at, plans)
                .await
                .unwrap()
        }
    };
    for expected in [1, 2] {
        match meter(now(), "key_a").await {
            MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, expected),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        meter(now(), "key_a").await,
        MeterOutcome::LimitExceeded(_)
    ));
    // The next UTC day starts a new window at one.
    match meter(now() + Duration::days(1), "key_a").await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 1),
        other => panic!("{other:?}"),
    }
    // A revoked key is refused by the same write, and an unknown account too.
    let key = ApiKeyRecord {
        key_id: "key_a".into(),
        key_hash: "hash-a".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        display_prefix: "tiv_test_aaaa".into(),
        created_at: now(),
        revoked_at: None,
    };
    store.put_api_key(&key).await.unwrap();
    assert!(store.revoke_api_key(ACCOUNT, "key_a", now()).await.unwrap());
    assert!(
        !store
            .revoke_api_key(ACCOUNT, "key_missing", now())
            .await
            .unwrap()
    );
    assert_eq!(meter(now(), "key_a").await, MeterOutcome::KeyRevoked);
    let nobody = PresentedKey {
        account_id: "nobody".into(),
        ..found_key("key_a")
    };
    let unknown = store.meter_api_request(&nobody, now(), &plans).await;
    assert_eq!(unknown.unwrap(), MeterOutcome::UnknownAccount);
    // A plan without API access is refused without counting.
    store
        .update_account(ACCOUNT, Some("starter"), None)
        .await
        .unwrap();
    assert!(matches!(
        meter(now(), "key_b").await,
        MeterOutcome::NoApiAccess(_)
    ));
}

/// `infra/make_events.py` writes stream images by hand, in Python: every key in them must be the
/// key the adapter writes for the verification they carry, so the samples cannot drift from the
/// schema unnoticed.
#[test]
fn sample_stream_events_carry_the_production_keys() {
    use aws_lambda_events::event::dynamodb::Event;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events");
    let mut checked = 0;
    for function in ["publish-events", "expire-verifications"] {
        for file in std::fs::read_dir(dir.join(function)).unwrap() {
            let path = file.unwrap().path();
            let raw = std::fs::read_to_string(&path).unwrap();
            let event: Event = serde_json::from_str(&raw).unwrap();
            for record in event.records {
                let change = record.change;
                for image in [change.new_image, change.old_image] {
                    let image: Item = image.into();
                    let text = |name: &str| match image.get(name) {
                        Some(AttributeValue::S(v)) => v.clone(),
                        _ => String::new(),
                    };
                    let Some(id) = keys::verification_id(&text(schema::PK)) else {
                        continue;
                    };
                    let expected = if text(schema::SK) == schema::VERIFICATION_SK {
                        let v = items::verification_from_item(image.clone()).unwrap();
                        items::verification_item(&v).unwrap()
                    } else {
                        let (pk, sk) = keys::expiry_marker(id);
                        assert_eq!(text(schema::SK), sk, "{}", path.display());
                        [(schema::PK, pk), (schema::SK, sk)]
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), AttributeValue::S(v)))
                            .collect()
                    };
                    for attr in schema::KEY_ATTRIBUTES {
                        let stored = image.get(attr);
                        assert_eq!(stored, expected.get(attr), "{attr} in {}", path.display());
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 6, "only {checked} images checked");
}

/// The tenant's note is stored once, on a completed verification only; of concurrent notes exactly
/// one is kept, and the note never moves the status or the report.
async fn the_tenant_note_is_stored_once<S: Store>(store: S) {
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let id = v.verification_id;
    assert!(
        store
            .add_tenant_note(id, "too early")
            .await
            .unwrap()
            .is_none(),
        "no note before completion"
    );
    let done = Transition::Complete {
        report: Box::new(IncomeReport::empty_for_tests()),
    };
    let completed = match store.transition(&v, &done, now()).await.unwrap() {
        TransitionOutcome::Applied(c) => c,
        other => panic!("{other:?}"),
    };
    let notes: Vec<String> = (0..6)
        .map(|i| format!("note {i}: 5 € \"quoted\"\nline"))
        .collect();
    let outcomes =
        futures::future::join_all(notes.iter().map(|n| store.add_tenant_note(id, n))).await;
    let kept: Vec<Verification> = outcomes.into_iter().filter_map(Result::unwrap).collect();
    assert_eq!(kept.len(), 1, "exactly one concurrent note wins");
    let stored = store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.tenant_note, kept[0].tenant_note);
    assert!(notes.contains(stored.tenant_note.as_ref().unwrap()));
    assert_eq!(stored.status, Status::Completed);
    assert_eq!(stored.income_report, completed.income_report);
    assert!(store.add_tenant_note(id, "again").await.unwrap().is_none());
    assert!(
        store
            .add_tenant_note(uuid::Uuid::new_v4(), "nobody")
            .await
            .unwrap()
            .is_none()
    );
}
on_both_stores!(the_tenant_note_is_stored_once);

on_both_stores!(cancelling_one_in_progress_keeps_the_list_totals_exact);
/// Pending and in_progress share one `open` counter, so the list tells them apart by counting the
/// in-progress range: after one-write cancels of verifications in progress and pending, beside
/// open ones past expiry that no sweeper has moved, every filter's total is the number of
/// verifications a reader sees with that status, and the page shows them all.
async fn cancelling_one_in_progress_keeps_the_list_totals_exact<S: Store>(store: S) {
    let (key, plans) = metered_pro_key(&store).await;
    let lifetime = Duration::days(7);
    let store = &store;
    let seed = |age: Duration, start: bool| async move {
        let input = NewVerificationInput {
            tenant_email: "tenant@example.com".into(),
            ..Default::default()
        };
        let v = Verification::new_pending(ACCOUNT, Mode::Test, input, now() - age, lifetime);
        store.create_verification(&v, None, None).await.unwrap();
        if start {
            let at = now() - age + Duration::minutes(1);
            let outcome = store.transition(&v, &Transition::Start, at).await.unwrap();
            assert!(matches!(outcome, TransitionOutcome::Applied(_)));
        }
        v.verification_id
    };
    let mut ids = Vec::new();
    for (age_hours, start) in [(1, false), (2, false), (3, false), (4, true), (5, true)] {
        ids.push(seed(Duration::hours(age_hours), start).await);
    }
    ids.push(seed(Duration::hours(6), true).await);
    ids.push(seed(Duration::hours(7), true).await);
    // Past expiry, not swept: shown expired, still stored (and counted) open.
    ids.push(seed(Duration::days(8), false).await);
    ids.push(seed(Duration::days(9), true).await);
    let cancel = |id| {
        let (key, plans) = (&key, &plans);
        async move {
            store
                .meter_and_cancel(&MeteredCancel {
                    key,
                    now: now(),
                    plans,
                    verification_id: id,
                })
                .await
                .unwrap()
                .is_some()
        }
    };
    // Two in progress and one pending cancelled; one past expiry refused.
    for id in [ids[3], ids[4], ids[0]] {
        assert!(cancel(id).await);
    }
    assert!(!cancel(ids[8]).await);
    let report = IncomeReport::empty_for_tests();
    let in_progress = store.get_verification(ids[5]).await.unwrap().unwrap();
    store
        .transition(
            &in_progress,
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    let mut stored = Vec::new();
    for id in &ids {
        stored.push(store.get_verification(*id).await.unwrap().unwrap());
    }
    let want = [
        (None, 9),
        (Some(Status::Pending), 2),
        (Some(Status::InProgress), 1),
        (Some(Status::Expired), 5),
        (Some(Status::Completed), 1),
        (Some(Status::Failed), 0),
    ];
    for (status, count) in want {
        let shown = stored
            .iter()
            .filter(|v| status.is_none_or(|s| v.effective_status(now()) == s))
            .count();
        assert_eq!(shown, count, "the seeding shows {status:?}");
        let page = store
            .list_verifications(&ListQuery {
                account_id: ACCOUNT.into(),
                mode: Mode::Test,
                status,
                offset: 0,
                limit: 100,
                expired_if_created_by: now() - lifetime,
            })
            .await
            .unwrap();
        assert_eq!(page.total, shown as u64, "total of {status:?}");
        assert_eq!(page.items.len(), shown, "page of {status:?}");
    }
    // Stored open: the two pending and the one in progress shown so, and the two past expiry.
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &shared::domain::usage_month(now()))
        .await
        .unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.expired, stats.completed),
        (9, 5, 3, 1)
    );
}

on_both_stores!(a_read_free_cancel_applies_only_to_the_owners_open_verification);
/// `cancel_open` (cancel-household's write per member): the owner's pending or in-progress
/// verification before its expiry is cancelled with the counters moved; another account's or
/// mode's, a closed one, one past its expiry and a missing one are left as they were.
async fn a_read_free_cancel_applies_only_to_the_owners_open_verification<S: Store>(store: S) {
    let created = |mode| {
        let store = &store;
        async move {
            let v = pending(mode);
            store.create_verification(&v, None, None).await.unwrap();
            v
        }
    };
    let waiting = created(Mode::Test).await;
    let started = created(Mode::Test).await;
    store
        .transition(&started, &Transition::Start, now())
        .await
        .unwrap();
    let done = created(Mode::Test).await;
    let report = IncomeReport::empty_for_tests();
    store
        .transition(
            &done,
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    let live = created(Mode::Live).await;
    let cancel = |id, account: &'static str, mode, at| {
        let store = &store;
        async move { store.cancel_open(id, account, mode, at).await.unwrap() }
    };
    assert!(!cancel(waiting.verification_id, "acct_other", Mode::Test, now()).await);
    assert!(!cancel(live.verification_id, ACCOUNT, Mode::Test, now()).await);
    assert!(!cancel(done.verification_id, ACCOUNT, Mode::Test, now()).await);
    assert!(
        !cancel(
            waiting.verification_id,
            ACCOUNT,
            Mode::Test,
            waiting.expires_at
        )
        .await
    );
    assert!(!cancel(uuid::Uuid::new_v4(), ACCOUNT, Mode::Test, now()).await);
    assert!(cancel(waiting.verification_id, ACCOUNT, Mode::Test, now()).await);
    assert!(cancel(started.verification_id, ACCOUNT, Mode::Test, now()).await);
    // Cancelled already: closed.
    assert!(!cancel(started.verification_id, ACCOUNT, Mode::Test, now()).await);
    for id in [waiting.verification_id, started.verification_id] {
        let v = store.get_verification(id).await.unwrap().unwrap();
        assert_eq!((v.status, v.cancelled_at), (Status::Expired, Some(now())));
    }
    let done_now = store
        .get_verification(done.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(done_now.status, Status::Completed);
    let month = shared::domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.expired, stats.completed),
        (3, 0, 2, 1)
    );
    let (live_stats, _) = store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!((live_stats.open, live_stats.expired), (1, 0));
}

on_both_stores!(of_eight_concurrent_household_decisions_exactly_one_is_stored);
/// When members finish at the same moment each stream record tries to store the household's
/// decision: the conditional write lets exactly one in, what is stored is that writer's decision
/// and time (never a mix), and a later write is refused too.
async fn of_eight_concurrent_household_decisions_exactly_one_is_stored<S: Store>(store: S) {
    use shared::domain::household::{
        Household, HouseholdMember, MemberOutcome, MemberRole, decide,
    };
    let household_id = uuid::Uuid::new_v4();
    let mut member = pending(Mode::Test);
    member.household_id = Some(household_id);
    member.household_role = Some(MemberRole::Applicant);
    let household = Household {
        household_id,
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        created_at: now(),
        property_address: None,
        monthly_rent: 1200.0,
        rent_subsidy_monthly: None,
        income_multiple: None,
        guarantor_multiple: None,
        webhook_url: None,
        members: vec![HouseholdMember {
            verification_id: member.verification_id,
            role: MemberRole::Applicant,
        }],
        decision: None,
        decided_at: None,
        cancelled_at: None,
    };
    let created = store
        .create_household(&household, std::slice::from_ref(&member), None, None)
        .await
        .unwrap();
    assert_eq!(created, CreateOutcome::Created);
    // Each writer carries its own decision and time, so the stored one names its writer.
    let writes: Vec<_> = (0..8)
        .map(|i| {
            let outcome = MemberOutcome {
                verification_id: member.verification_id,
                role: MemberRole::Applicant,
                status: Status::Completed,
                monthly_income: Some(3000.0 + f64::from(i)),
            };
            let terms = shared::domain::affordability::RentTerms::rent_only(Some(1200.0));
            let decision = decide(&terms, None, &[outcome]).unwrap();
            (decision, now() + Duration::seconds(i.into()))
        })
        .collect();
    let won: Vec<bool> = futures::future::join_all(
        (writes.iter()).map(|(d, at)| store.record_household_decision(household_id, d, *at)),
    )
    .await
    .into_iter()
    .map(Result::unwrap)
    .collect();
    let winners: Vec<usize> = (0..8).filter(|i| won[*i]).collect();
    assert_eq!(winners.len(), 1, "exactly one writer stores it: {won:?}");
    let (decision, at) = &writes[winners[0]];
    let stored = store.get_household(household_id).await.unwrap().unwrap();
    assert_eq!(stored.decision.as_ref(), Some(decision));
    assert_eq!(stored.decided_at, Some(*at));
    let late = &writes[(winners[0] + 1) % 8];
    assert!(
        !store
            .record_household_decision(household_id, &late.0, late.1)
            .await
            .unwrap()
    );
    assert_eq!(
        store.get_household(household_id).await.unwrap().unwrap(),
        stored
    );
    // A household that does not exist stores nothing.
    assert!(
        !store
            .record_household_decision(uuid::Uuid::new_v4(), decision, *at)
            .await
            .unwrap()
    );
}

/// The raw `ttl` attribute of an item, as DynamoDB's TTL reads it (a number, epoch seconds).
fn ttl_of(item: &Item) -> i64 {
    match item.get(schema::TTL_ATTRIBUTE) {
        Some(AttributeValue::N(n)) => n.parse().expect("epoch seconds"),
        other => panic!("no numeric ttl: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_events_and_delivery_attempts_expire_30_days_after_their_time() {
    use shared::domain::webhook::WebhookMessage;
    use shared::domain::webhook_log::{
        AttemptOutcome, DeliveryAttempt, StoredWebhookEvent, WebhookSubject,
    };

    let store = store().await;
    let id = uuid::Uuid::new_v4();
    let event_id = format!("msg_{}_completed", id.simple());
    let body = serde_json::json!({
        "type": "verification.completed",
        "timestamp": "2026-03-10T12:00:00.000Z",
        "data": {"verification_id": id.to_string()},
    });
    let message = WebhookMessage {
        webhook_id: event_id.clone(),
        account_id: ACCOUNT.into(),
        url: "https://hooks.example.com/h".into(),
        body: body.to_string(),
    };
    let stored_at = now();
    let event = StoredWebhookEvent::of(&message, stored_at).expect("an event of ours");
    store.put_webhook_event(&event).await.unwrap();
    // An attempt two days later: its own time counts, not the event's.
    let attempted_at = now() + Duration::days(2) + Duration::milliseconds(1_250);
    let attempt = DeliveryAttempt {
        event_id: event_id.clone(),
        event_type: "verification.completed".into(),
        subject: WebhookSubject::Verification(id),
        attempt: 1,
        attempted_at,
        outcome: AttemptOutcome::Delivered,
        http_status: Some(200),
        error: None,
        duration_ms: 12,
        final_attempt: false,
    };
    store
        .record_delivery_attempt(ACCOUNT, &attempt)
        .await
        .unwrap();

    // 2026-03-10T12:00:00Z is 1_773_144_000; thirty days are 2_592_000 seconds.
    assert_eq!(stored_at.timestamp(), 1_773_144_000);
    let event_item = raw(&store, keys::webhook_event(&event_id)).await.unwrap();
    assert_eq!(ttl_of(&event_item), 1_773_144_000 + 2_592_000);
    let attempt_key = (
        keys::deliveries(WebhookSubject::Verification(id)),
        keys::delivery_attempt(&shared::domain::format_ts(attempted_at), &event_id, 1),
    );
    let attempt_item = raw(&store, attempt_key).await.unwrap();
    // Whole seconds: the attempt's time rounded down, plus thirty days.
    assert_eq!(
        ttl_of(&attempt_item),
        1_773_144_000 + 2 * 86_400 + 1 + 2_592_000
    );
}
