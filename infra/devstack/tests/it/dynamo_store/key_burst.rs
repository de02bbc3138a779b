//! Each API key's burst (issue 33, point 4), and the account kept apart from its counters
//! (point 2): the burst is moved by the same conditional count as the day's allowance, so racing
//! requests of one key get exactly the burst, and the account item never holds a counter.

use domain::KeyBurst;

use super::metered_writes::listed_key;
use super::*;

/// A plan whose keys may make `requests` calls at once, then one a second.
fn plans(requests: u32) -> Plans {
    Plans::new(vec![Plan {
        name: "pro".into(),
        verifications_per_month: 50,
        api_requests_per_day: 1000,
        api_access: true,
        sms_per_month: 0,
        key_burst: KeyBurst {
            requests,
            per_second: 1,
        },
    }])
}

fn allowed(outcome: &MeterOutcome) -> bool {
    matches!(outcome, MeterOutcome::Allowed(_))
}

on_both_stores!(a_keys_burst_refuses_that_key_alone_until_it_refills);
pub(super) async fn a_keys_burst_refuses_that_key_alone_until_it_refills<S: Store>(store: S) {
    store.put_account(&account("pro")).await.unwrap();
    let (key, other) = (
        listed_key(&store, "key_b1").await,
        listed_key(&store, "key_b2").await,
    );
    let plans = plans(3);
    for _ in 0..3 {
        let outcome = store.meter_api_request(&key, now(), &plans).await.unwrap();
        assert!(allowed(&outcome), "{outcome:?}");
    }
    // The fourth at the same instant waits one interval: a second.
    match store.meter_api_request(&key, now(), &plans).await.unwrap() {
        MeterOutcome::Refused(MeterRefusal::BurstExceeded(account, wait_ms)) => {
            assert_eq!(wait_ms, 1000);
            assert_eq!(
                account.api_requests, 3,
                "the refused request is not counted"
            );
        }
        other => panic!("{other:?}"),
    }
    // A write carrying its metering is refused the same way, and writes nothing.
    let v = pending(Mode::Test);
    let create = MeteredCreate {
        key: &key,
        now: now(),
        plans: &plans,
        verification: &v,
        idempotency: None,
    };
    assert!(matches!(
        store.meter_and_create(&create).await.unwrap(),
        ports::Metered::AccountRefused(MeterRefusal::BurstExceeded(..))
    ));
    assert!(
        store
            .get_verification(v.verification_id)
            .await
            .unwrap()
            .is_none()
    );
    // The account's other key is not held back, and the first key may call again a second on.
    assert!(allowed(
        &store
            .meter_api_request(&other, now(), &plans)
            .await
            .unwrap()
    ));
    let later = now() + Duration::seconds(1);
    assert!(allowed(
        &store.meter_api_request(&key, later, &plans).await.unwrap()
    ));
    let counted = store.get_account(ACCOUNT).await.unwrap().unwrap();
    assert_eq!(counted.api_requests, 5);
}

on_both_stores!(racing_requests_of_one_key_get_exactly_its_burst);
/// Ten requests of one key at once, four allowed by its burst: the conditional count settles the
/// race (on DynamoDB, a count refused because another moved the key's state is judged again).
pub(super) async fn racing_requests_of_one_key_get_exactly_its_burst<S: Store>(store: S) {
    store.put_account(&account("pro")).await.unwrap();
    let key = listed_key(&store, "key_race").await;
    let plans = plans(4);
    let (store, key, plans) = (&store, &key, &plans);
    let outcomes = futures::future::join_all(
        (0..10).map(|_| async move { store.meter_api_request(key, now(), plans).await }),
    )
    .await;
    let mut passed = 0;
    for outcome in outcomes {
        match outcome.expect("no race ends in an error") {
            MeterOutcome::Allowed(_) => passed += 1,
            MeterOutcome::Refused(MeterRefusal::BurstExceeded(..)) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(passed, 4);
    let counted = store.get_account(ACCOUNT).await.unwrap().unwrap();
    assert_eq!(counted.api_requests, 4, "only the allowed requests count");
}

/// The counters go to the usage item; the account item, which no API or event function may
/// write, keeps its keys and plan and never a count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_item_holds_no_counter_and_the_usage_item_no_key() {
    let store = store().await;
    store.put_account(&account("pro")).await.unwrap();
    let key = listed_key(&store, "key_split").await;
    let outcome = store
        .meter_api_request(&key, now(), &plans(5))
        .await
        .unwrap();
    assert!(allowed(&outcome));
    let account = raw(&store, keys::account(ACCOUNT)).await.unwrap();
    let usage = raw(&store, keys::usage(ACCOUNT)).await.unwrap();
    assert!(account.contains_key("api_keys") && account.contains_key("plan"));
    let counters = ["api_requests_", "api_burst_", "live_created_", "sms_sent_"];
    for name in account.keys() {
        assert!(
            !counters.iter().any(|c| name.starts_with(c)),
            "the account item holds {name}"
        );
    }
    assert_eq!(
        usage["api_requests_20260310"],
        AttributeValue::N("1".into())
    );
    let burst: i64 = usage["api_burst_key_split"]
        .as_n()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(burst, now().timestamp_millis() + 1000);
    for name in ["api_keys", "plan", "revoked_keys", "subscription_status"] {
        assert!(!usage.contains_key(name), "the usage item holds {name}");
    }
}
