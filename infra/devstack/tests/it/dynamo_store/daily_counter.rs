//! The daily API counter and the plans allowance.

use super::*;

/// A "pro" account with a test key allowed today, for the metered cancels.
pub(super) async fn metered_pro_key<S: Store>(store: &S) -> (PresentedKey, Plans) {
    store.put_account(&account("pro")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "pro".into(),
        verifications_per_month: 50,
        api_requests_per_day: 1000,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    }]);
    let key = listed_key(store, "key_h1").await;
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
pub(super) async fn the_first_request_of_a_day_is_counted_by_the_one_write<S: Store>(store: S) {
    let (key, plans) = metered_pro_key(&store).await;
    let (store, key, plans) = (&store, &key, &plans);
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let window = |at: DateTime<Utc>| Some(domain::api_window(at));
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
    let cancelled = Metered::<()>::of(store.meter_and_cancel(&cancel).await);
    assert_eq!(
        cancelled.map(|(a, ())| (a.api_window, a.api_requests)),
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
    let created = Metered::<()>::of(store.meter_and_create(&create).await);
    assert_eq!(
        created.map(|(a, ())| (a.api_window, a.api_requests)),
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

/// The usage item keeps one day's counter: a count removes the month of days before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn the_daily_counter_keeps_one_day() {
    let store = store().await;
    let (key, plans) = metered_pro_key(&store).await;
    let account_key = keys::usage(ACCOUNT);
    let day = |at: DateTime<Utc>| format!("api_requests_{}", at.format("%Y%m%d"));
    let n = |v: u32| AttributeValue::N(v.to_string());
    // Stale counters: 5 days ago (within the month a count clears) and 40 days ago (beyond it).
    put_attributes(
        &store,
        account_key.clone(),
        vec![
            (day(now() - Duration::days(5)), n(9)),
            (day(now() - Duration::days(40)), n(9)),
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
    // A create carrying its metering counts on the same attribute.
    let v = pending(Mode::Test);
    let create = MeteredCreate {
        key: &key,
        now: now(),
        plans: &plans,
        verification: &v,
        idempotency: None,
    };
    assert_eq!(
        Metered::<()>::of(store.meter_and_create(&create).await).map(|(a, ())| a.api_requests),
        Metered::Wrote(3)
    );
    let item = raw(&store, account_key).await.unwrap();
    assert_eq!(item.get(&day(now())), Some(&n(3)));
}

/// Rewrites the item at `key` with `attrs` set (a `Null` value removes the attribute).
pub(super) async fn put_attributes(
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
pub(super) async fn a_single_api_plan_meters<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 10,
        api_requests_per_day: 2,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    }]);
    let key = listed_key(&store, "key_a").await;
    let meter = |at: DateTime<Utc>| {
        let (store, plans, key) = (&store, &plans, &key);
        async move { store.meter_api_request(key, at, plans).await.unwrap() }
    };
    for expected in [1, 2] {
        match meter(now()).await {
            MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, expected),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        meter(now()).await,
        MeterOutcome::Refused(MeterRefusal::LimitExceeded(_))
    ));
    match meter(now() + Duration::days(1)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 1),
        other => panic!("{other:?}"),
    }
}

on_both_stores!(the_api_allowance_counts_refuses_and_rolls_over);
pub(super) async fn the_api_allowance_counts_refuses_and_rolls_over<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    // Two plans with API access (one clause per plan in the condition); a single API plan is
    // `a_single_api_plan_meters`.
    let plan = |name: &str, requests| Plan {
        name: name.into(),
        verifications_per_month: 10,
        api_requests_per_day: requests,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    };
    let plans = Plans::new(vec![plan("tiny", 2), plan("pro", 1000)]);
    let keys = [
        listed_key(&store, "key_a").await,
        listed_key(&store, "key_b").await,
    ];
    let meter = |at: DateTime<Utc>, key: &'static str| {
        let (store, plans) = (&store, &plans);
        let key = keys.iter().find(|k| k.key_id == key).unwrap().clone();
        async move { store.meter_api_request(&key, at, plans).await.unwrap() }
    };
    for expected in [1, 2] {
        match meter(now(), "key_a").await {
            MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, expected),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        meter(now(), "key_a").await,
        MeterOutcome::Refused(MeterRefusal::LimitExceeded(_))
    ));
    // The next UTC day starts a new window at one.
    match meter(now() + Duration::days(1), "key_a").await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 1),
        other => panic!("{other:?}"),
    }
    // A revoked key is refused by the same write, and an unknown account too.
    assert!(store.revoke_api_key(ACCOUNT, "key_a", now()).await.unwrap());
    assert!(
        !store
            .revoke_api_key(ACCOUNT, "key_missing", now())
            .await
            .unwrap()
    );
    assert_eq!(
        meter(now(), "key_a").await,
        MeterOutcome::Refused(MeterRefusal::KeyRevoked)
    );
    let nobody = PresentedKey {
        account_id: "nobody".into(),
        ..keys[0].clone()
    };
    let unknown = store.meter_api_request(&nobody, now(), &plans).await;
    assert_eq!(
        unknown.unwrap(),
        MeterOutcome::Refused(MeterRefusal::UnknownAccount)
    );
    // A plan without API access is refused without counting.
    store
        .update_account(ACCOUNT, Some("starter"), None)
        .await
        .unwrap();
    assert!(matches!(
        meter(now(), "key_b").await,
        MeterOutcome::Refused(MeterRefusal::NoApiAccess(_))
    ));
}
