//! The list's cost and filters, and the bound on replay links, against DynamoDB in moto.
//!
//! The list handlers run here with an injected clock and a DynamoDB client that counts, on the
//! wire, every Query and the items it read.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use adapters::dynamo::DynamoStore;
use aws_sdk_dynamodb::config::interceptors::AfterDeserializationInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::operation::query::QueryOutput;
use chrono::{DateTime, Duration, DurationRound, Utc};
use common::{TestEnv, env};
use domain::{
    Mode, NewVerificationInput, Status, SubscriptionStatus, Transition, VERIFICATION_LIFETIME,
    Verification,
};
use ports::list::COUNT_CAP;
use ports::store::prelude::*;
use ports::{Clock, TransitionOutcome};
use serde_json::{Value, json};
use service::handlers::api::{ApiDeps, MAX_REPLAY_LINK_TOKENS};
use service::http::ApiRequest;
use uuid::Uuid;

/// A clock the test sets.
#[derive(Clone)]
struct TestClock(Arc<Mutex<DateTime<Utc>>>);

impl TestClock {
    fn at(t: DateTime<Utc>) -> Self {
        TestClock(Arc::new(Mutex::new(t)))
    }
    fn set(&self, t: DateTime<Utc>) {
        *self.0.lock().unwrap() = t;
    }
}

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// Counts the Query calls a DynamoDB client made and the items they read (COUNT queries included:
/// their `Count` is the items DynamoDB read to answer them).
#[derive(Debug, Default)]
struct QueryCounter {
    queries: AtomicU64,
    items: AtomicU64,
    /// The most items one Query read.
    largest: AtomicU64,
}

#[derive(Debug, Clone, Default)]
struct CountingInterceptor(Arc<QueryCounter>);

impl Intercept for CountingInterceptor {
    fn name(&self) -> &'static str {
        "CountingInterceptor"
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        if let Ok(output) = context.output_or_error()
            && let Some(query) = output.downcast_ref::<QueryOutput>()
        {
            let read = query.scanned_count().max(0) as u64;
            self.0.queries.fetch_add(1, Ordering::SeqCst);
            self.0.items.fetch_add(read, Ordering::SeqCst);
            self.0.largest.fetch_max(read, Ordering::SeqCst);
        }
        Ok(())
    }
}

impl CountingInterceptor {
    /// (queries, items read) since the last call.
    fn take(&self) -> (u64, u64) {
        self.0.largest.store(0, Ordering::SeqCst);
        (
            self.0.queries.swap(0, Ordering::SeqCst),
            self.0.items.swap(0, Ordering::SeqCst),
        )
    }

    /// (queries, the most items one of them read) since the last call.
    fn take_largest(&self) -> (u64, u64) {
        let largest = self.0.largest.swap(0, Ordering::SeqCst);
        (self.take().0, largest)
    }
}

/// API handlers over the test's table, with a counting client and the given clock.
fn counted_deps(
    env: &TestEnv,
    clock: TestClock,
) -> (ApiDeps<DynamoStore, TestClock>, CountingInterceptor) {
    let counter = CountingInterceptor::default();
    let conf = aws_sdk_dynamodb::config::Builder::from(&env.sdk)
        .interceptor(counter.clone())
        .build();
    let store = DynamoStore::new(
        aws_sdk_dynamodb::Client::from_conf(conf),
        env.names.table.clone(),
    );
    let settings = service::config::Settings {
        plans: common::small_plans(),
        ..devstack::local_settings(&env.names.table, &env.base, VERIFICATION_LIFETIME)
    };
    (ApiDeps::new(store, clock, settings), counter)
}

async fn list(deps: &ApiDeps<DynamoStore, TestClock>, key: &str, query: &str) -> (u16, Value) {
    let req = ApiRequest::new(http::Method::GET, &format!("/api/v1/verifications{query}"))
        .with_header("authorization", &format!("Bearer {key}"));
    let resp = service::handlers::list_verifications::list_verifications(deps, req).await;
    let body = serde_json::from_str(&resp.body).unwrap_or(Value::Null);
    (resp.status, body)
}

/// Stores a pending test-mode verification of the demo account created at `created_at`.
async fn seed(store: &DynamoStore, created_at: DateTime<Utc>) -> Verification {
    let v = Verification::new_pending(
        devstack::stack::DEMO_ACCOUNT,
        Mode::Test,
        NewVerificationInput {
            tenant_email: format!("seed-{}@example.com", created_at.timestamp_millis()),
            ..Default::default()
        },
        created_at,
        VERIFICATION_LIFETIME,
    );
    store.create_verification(&v, None, None).await.unwrap();
    v
}

/// What a refused list request (401/403/429) may have read: the capped page, read beside the
/// metering write that refused it (the page's queries and the COUNTs behind `total`, at most five,
/// each of at most `COUNT_CAP` items); and the answer shows none of it.
fn assert_refused_read_at_most_a_capped_page(
    counter: &CountingInterceptor,
    body: &Value,
    what: &str,
) {
    let (queries, largest) = counter.take_largest();
    assert!(
        queries <= 5 && largest <= u64::from(COUNT_CAP),
        "{what}: {queries} queries, {largest} items in the largest"
    );
    assert!(body.get("data").is_none(), "{what}: {body}");
    assert!(!body.to_string().contains("seed-"), "{what}: {body}");
}

/// A page is read beside the metering write with each of its queries capped at `COUNT_CAP` items
/// (offset + limit <= `MAX_LIMIT`; for `pending`, `in_progress` and `expired` the COUNTs behind
/// `total` too), so a refused request reads at most that, whose items it never answers with
/// (issue 14's relaxation of the trust rule: a parallel read must be bounded before it starts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_list_requests_read_at_most_a_capped_page() {
    let env = env().await;
    let now = Utc::now();
    for i in 0..30 {
        seed(&env.store, now - Duration::minutes(i)).await;
    }
    let (deps, counter) = counted_deps(&env, TestClock::at(now));
    let account = devstack::stack::DEMO_ACCOUNT;

    // Allowed: the page is read (and the counter sees it).
    let (status, body) = list(&deps, &env.test_key, "?limit=100").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"].as_array().unwrap().len(), 30);
    let (queries, items) = counter.take();
    assert!(
        queries >= 1 && items >= 30,
        "{queries} queries, {items} items"
    );

    // 403: inactive subscription.
    env.store
        .update_account(
            account,
            None,
            Some((SubscriptionStatus::PastDue, now + Duration::days(3))),
        )
        .await
        .unwrap();
    for query in [
        "?limit=100",
        "?status=pending",
        "?status=in_progress",
        "?status=expired",
    ] {
        let (status, body) = list(&deps, &env.test_key, query).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("subscription_inactive")),
            "{query}"
        );
        assert_refused_read_at_most_a_capped_page(&counter, &body, &format!("403 {query}"));
    }

    // 429: past the daily allowance (`tiny` allows 3; one was used above).
    env.store
        .update_account(
            account,
            Some("tiny"),
            Some((SubscriptionStatus::Active, now + Duration::days(30))),
        )
        .await
        .unwrap();
    for _ in 0..2 {
        let usage = service::handlers::get_usage::get_usage(
            &deps,
            ApiRequest::new(http::Method::GET, "/api/v1/usage")
                .with_header("authorization", &format!("Bearer {}", env.test_key)),
        )
        .await;
        assert_eq!(usage.status, 200, "{}", usage.body);
    }
    counter.take();
    let (status, body) = list(&deps, &env.test_key, "?limit=100&status=completed").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("rate_limit_exceeded"))
    );
    assert_refused_read_at_most_a_capped_page(&counter, &body, "429");

    // 401: a key revoked while this (warm) function still has it cached.
    env.store
        .update_account(account, Some("business"), None)
        .await
        .unwrap();
    let (status, body) = list(&deps, &env.test_key, "").await;
    assert_eq!(status, 200, "{body}");
    counter.take();
    let keys = env.store.list_api_keys(account).await.unwrap();
    let test_key = keys
        .iter()
        .find(|k| k.key_hash == domain::secrets::sha256_hex(env.test_key.as_bytes()))
        .unwrap();
    assert!(
        env.store
            .revoke_api_key(account, &test_key.key_id, now)
            .await
            .unwrap()
    );
    let (status, body) = list(&deps, &env.test_key, "?limit=100").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("api_key_revoked"))
    );
    assert_refused_read_at_most_a_capped_page(&counter, &body, "401");
}

/// A page past the first `MAX_LIMIT` items (its cost grows with the offset) follows the metering
/// write, so a refused request reads none of it, on a cold instance or a warm one alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_list_reads_nothing_of_a_page_that_is_not_bounded() {
    let env = env().await;
    let now = Utc::now();
    for i in 0..30 {
        seed(&env.store, now - Duration::minutes(i)).await;
    }
    let account = devstack::stack::DEMO_ACCOUNT;
    let subscription = |status| {
        let store = &env.store;
        async move {
            store
                .update_account(account, None, Some((status, now + Duration::days(3))))
                .await
                .unwrap()
        }
    };
    let (deps, counter) = counted_deps(&env, TestClock::at(now));
    let unbounded = [
        "?limit=100&offset=1",
        "?offset=200",
        "?status=pending&offset=95&limit=10",
    ];

    // Allowed: each is read after the metering write.
    for query in unbounded {
        let (status, body) = list(&deps, &env.test_key, query).await;
        assert_eq!(status, 200, "{query}: {body}");
    }
    counter.take();

    // Refused (on this instance, warm and just allowed): none is read.
    subscription(SubscriptionStatus::PastDue).await;
    for query in unbounded {
        let (status, body) = list(&deps, &env.test_key, query).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("subscription_inactive")),
            "{query}"
        );
        assert_eq!(
            counter.take(),
            (0, 0),
            "{query}: a 403 reads no verification"
        );
    }
}

/// A COUNT behind `total` that reaches `COUNT_CAP` items (here the in-progress ones a `pending`
/// total subtracts) stops there: the allowed request then lists after its metering write, exactly;
/// a refused one has read at most the capped queries and answers none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_over_the_cap_follows_the_write_and_stays_exact() {
    let env = env().await;
    let now = Utc::now();
    // Past the cap by 20: a count stopped at the cap would make both totals wrong by 20.
    let in_progress = i64::from(COUNT_CAP) + 20;
    for i in 0..in_progress {
        let v = seed(&env.store, now - Duration::minutes(i)).await;
        let started = env
            .store
            .transition(&v, &Transition::Start, now)
            .await
            .unwrap();
        assert!(matches!(started, TransitionOutcome::Applied(_)));
    }
    for i in 0..5 {
        seed(&env.store, now - Duration::seconds(i)).await;
    }
    let (deps, counter) = counted_deps(&env, TestClock::at(now));
    let (status, body) = list(&deps, &env.test_key, "?status=pending").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pagination"]["total"], 5, "{body}");
    assert_eq!(body["data"].as_array().unwrap().len(), 5);
    let (status, body) = list(&deps, &env.test_key, "?status=in_progress&limit=10").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pagination"]["total"], in_progress, "{body}");
    assert_eq!(body["data"].as_array().unwrap().len(), 10);
    counter.take();
    env.store
        .update_account(
            devstack::stack::DEMO_ACCOUNT,
            None,
            Some((SubscriptionStatus::PastDue, now + Duration::days(3))),
        )
        .await
        .unwrap();
    let (status, body) = list(&deps, &env.test_key, "?status=pending").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("subscription_inactive"))
    );
    assert_refused_read_at_most_a_capped_page(&counter, &body, "403 over the cap");
}

/// What the list must show at `now`: the seeded verifications (as stored), newest first, that a
/// reader sees with `status`.
fn expected(seeded: &[Verification], status: Option<Status>, now: DateTime<Utc>) -> Vec<Uuid> {
    let mut shown: Vec<&Verification> = seeded
        .iter()
        .filter(|v| status.is_none_or(|s| v.effective_status(now) == s))
        .collect();
    shown.sort_by_key(|v| std::cmp::Reverse((v.created_at, v.verification_id)));
    shown.iter().map(|v| v.verification_id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_and_totals_follow_the_shown_status_before_any_sweeper() {
    let env = env().await;
    // Stored timestamps have milliseconds; so has the clock, to compare with what was stored.
    let now = Utc::now()
        .duration_trunc(Duration::milliseconds(1))
        .unwrap();
    let day = |d: f64| Duration::milliseconds((d * 86_400_000.0) as i64);
    let store = &env.store;
    let mut by_status: Vec<(f64, Option<Transition>)> = vec![
        // Pending: fresh, at the boundary (expires exactly now), and past expiry.
        (0.5, None),
        (2.0, None),
        (6.9, None),
        (7.0, None),
        (7.00001, None),
        (8.0, None),
        (12.0, None),
        // In progress: fresh (one of them goes stale when the clock moves on), and past expiry.
        (1.0, Some(Transition::Start)),
        (5.8, Some(Transition::Start)),
        (7.5, Some(Transition::Start)),
        (9.0, Some(Transition::Start)),
        // Stored expired (cancelled), completed and failed, fresh and old.
        (3.0, Some(Transition::Cancel)),
        (10.0, Some(Transition::Cancel)),
        (
            4.0,
            Some(Transition::Complete {
                report: Box::new(domain::report::IncomeReport::empty_for_tests()),
            }),
        ),
        (
            11.0,
            Some(Transition::Complete {
                report: Box::new(domain::report::IncomeReport::empty_for_tests()),
            }),
        ),
        (
            2.5,
            Some(Transition::Fail {
                reason: "provider_error".into(),
            }),
        ),
    ];
    let mut seeded = Vec::new();
    for (age, transition) in by_status.drain(..) {
        let v = seed(store, now - day(age)).await;
        let v = match transition {
            None => v,
            Some(t) => match store.transition(&v, &t, now - day(age)).await.unwrap() {
                ports::TransitionOutcome::Applied(next) => next,
                other => panic!("seed transition: {other:?}"),
            },
        };
        // As a reader gets it back (timestamps to the millisecond).
        seeded.push(
            store
                .get_verification(v.verification_id)
                .await
                .unwrap()
                .unwrap(),
        );
    }
    let clock = TestClock::at(now);
    let (deps, counter) = counted_deps(&env, clock.clone());
    let filters = [
        None,
        Some(Status::Pending),
        Some(Status::InProgress),
        Some(Status::Expired),
        Some(Status::Completed),
        Some(Status::Failed),
    ];
    let pages = [(0, 100), (0, 2), (1, 2), (2, 3), (4, 4), (7, 5), (40, 5)];
    let stored_in_progress = seeded
        .iter()
        .filter(|v| v.status == Status::InProgress)
        .count() as u64;
    // Now, and a day and a half later: the split follows the clock.
    for at in [now, now + day(1.5)] {
        clock.set(at);
        let stale_open = seeded
            .iter()
            .filter(|v| v.status.is_open() && v.effective_status(at) == Status::Expired)
            .count() as u64;
        for status in filters {
            let want = expected(&seeded, status, at);
            for (offset, limit) in pages {
                let query = match status {
                    None => format!("?offset={offset}&limit={limit}"),
                    Some(s) => format!("?status={}&offset={offset}&limit={limit}", s.as_str()),
                };
                counter.take();
                let (code, body) = list(&deps, &env.test_key, &query).await;
                assert_eq!(code, 200, "{query}: {body}");
                let got: Vec<Uuid> = body["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i["id"].as_str().unwrap().parse().unwrap())
                    .collect();
                let slice: Vec<Uuid> = want.iter().skip(offset).take(limit).copied().collect();
                assert_eq!(got, slice, "{query} at {at}");
                assert_eq!(
                    body["pagination"],
                    json!({"limit": limit, "offset": offset, "total": want.len()}),
                    "{query} at {at}"
                );
                if let Some(s) = status {
                    assert!(
                        body["data"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|i| i["status"] == s.as_str()),
                        "{query}: {body}"
                    );
                }
                // O(offset+limit): three sorted sources at most, plus the unswept stale counted,
                // plus, for an open filter, the in-progress ones counted for its total (pending and
                // in_progress share one counter).
                let (_, items) = counter.take();
                let counted_in_progress = match status {
                    Some(Status::Pending | Status::InProgress) => stored_in_progress,
                    _ => 0,
                };
                let bound = 3 * (offset + limit) as u64 + stale_open + counted_in_progress;
                assert!(items <= bound, "{query}: read {items} items, bound {bound}");
            }
        }
    }
}

/// The link token in a create (or replay) answer.
fn link_token(reply: &common::Reply) -> String {
    let url = reply.body["data"]["verification_url"].as_str().unwrap();
    url.rsplit('/').next().unwrap().to_string()
}

fn hash(token: &str) -> String {
    domain::secrets::sha256_hex(token.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_replays_keep_a_bounded_set_of_working_links() {
    let env = env().await;
    let body = json!({"tenant_email": "replay@example.com"}).to_string();
    let send = || {
        let env = &env;
        let body = body.clone();
        async move {
            env.call_with(
                "POST",
                "/api/v1/verify",
                Some(&env.test_key),
                Some(&body),
                &[("idempotency-key", "replay-storm")],
            )
            .await
        }
    };
    let first = send().await;
    assert_eq!(first.status, 201, "{}", first.raw);
    let id: Uuid = first.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let first_token = link_token(&first);
    // The tenant's e-mailed link, bound as the outbox binds it (with the e-mail's claim).
    let (mail_token, mail_hash) = domain::secrets::generate_link_token();
    let invite = domain::reach::Message::InviteEmail(0);
    let start = env.store.claim_message(id, &invite, &mail_hash, Utc::now());
    assert_eq!(start.await.unwrap(), ports::ClaimStart::Claimed);
    // The create response's link and the replays' (the e-mail's is apart, in `message_links`).
    let bound = 1 + MAX_REPLAY_LINK_TOKENS;

    // Ten replays at once, while a reader checks the bound on every state it sees.
    let done = AtomicBool::new(false);
    let watch = async {
        let mut seen = 0;
        while !done.load(Ordering::SeqCst) {
            let v = env.store.get_verification(id).await.unwrap().unwrap();
            assert!(
                v.token_hashes.len() <= bound,
                "{} links",
                v.token_hashes.len()
            );
            assert!(v.recent_token_hashes.len() <= MAX_REPLAY_LINK_TOKENS);
            seen += 1;
        }
        seen
    };
    let storm = async {
        let replies = futures::future::join_all((0..10).map(|_| send())).await;
        done.store(true, Ordering::SeqCst);
        replies
    };
    let (replies, _) = futures::join!(storm, watch);
    for r in &replies {
        assert_eq!(r.status, 201, "{}", r.raw);
        assert_eq!(r.header("idempotent-replayed"), Some("true"));
        assert_eq!(r.body["data"]["verification_id"], id.to_string());
    }
    let v = env.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(v.token_hashes.len(), bound, "{:?}", v.token_hashes);
    assert_eq!(v.recent_token_hashes.len(), MAX_REPLAY_LINK_TOKENS);
    assert_eq!(v.message_links.get("invite_email"), Some(&mail_hash));
    // The kept replay links are the answers' own, and the latest of them.
    let answered: Vec<String> = replies.iter().map(|r| hash(&link_token(r))).collect();
    assert!(v.recent_token_hashes.iter().all(|h| answered.contains(h)));

    // Then replays one after another: the newest ones are exactly the ones kept.
    let mut newest = Vec::new();
    for _ in 0..MAX_REPLAY_LINK_TOKENS + 1 {
        let r = send().await;
        assert_eq!(r.status, 201, "{}", r.raw);
        newest.push(link_token(&r));
    }
    let kept = &newest[1..];
    let v = env.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(
        v.recent_token_hashes,
        kept.iter().map(|t| hash(t)).collect::<Vec<_>>()
    );
    assert_eq!(v.token_hashes.len(), bound);

    let open = |token: String| {
        let env = &env;
        async move {
            env.call("GET", &format!("/t/{id}/{token}"), None, None)
                .await
                .status
        }
    };
    // The first answer's link, the e-mailed link and the newest replay links open the page.
    for token in [first_token, mail_token]
        .into_iter()
        .chain(kept.iter().cloned())
    {
        assert_eq!(open(token).await, 200);
    }
    // Dropped replay links open nothing.
    assert_eq!(open(newest[0].clone()).await, 404);
    for r in &replies {
        assert_eq!(open(link_token(r)).await, 404);
    }
}
