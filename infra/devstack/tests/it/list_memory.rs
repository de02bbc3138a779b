//! A list request's memory does not grow with the caller's data (issue 21, point 4), against
//! moto at 20,000 verifications of one owner: at offset 10,000 (the deepest allowed) and in the
//! `status=expired` merge of three ranges, the page is right, and the whole items the queries
//! return are the page's own plus at most one query page per source; the items before that are
//! read with their keys only. Every DynamoDB call of the store goes through a recording proxy, which sees
//! each request's projection and each response's item count. (`make bench` reports the
//! list function's peak RSS at offsets 0 and 10,000.)

use crate::common;

use adapters::dynamo::DynamoStore;
use chrono::{Duration, Utc};
use devstack::proxy::Proxy;
use domain::{Mode, Status};
use ports::ListQuery;
use ports::store::prelude::*;

const OWNER: &str = "acct_deep_list";
const ITEMS: usize = 20_000;
/// Items per query at most (the adapter's, and DynamoDB's 1 MB besides).
const QUERY_PAGE: usize = 1000;

/// What the proxy saw of the list's queries: (keys-only queries, whole-item queries, whole items
/// returned in all).
fn queries(proxy: &Proxy) -> (usize, usize, u64) {
    let (mut keys_only, mut whole, mut whole_items) = (0, 0, 0);
    for call in proxy.take().iter().filter(|c| c.short() == "Query") {
        let body: serde_json::Value = serde_json::from_slice(&call.body).unwrap();
        if body["Select"] == "COUNT" {
            continue;
        }
        match body["ProjectionExpression"].as_str() {
            Some(projection) => {
                assert_eq!(projection, "#pk, #sk, #tpk, #tsk", "keys only");
                keys_only += 1;
            }
            None => {
                whole += 1;
                whole_items += call.scanned.unwrap_or(0);
            }
        }
    }
    (keys_only, whole, whole_items)
}

fn email_of(i: usize) -> String {
    // The seeder's tenant of verification `i` (created `i` seconds ago).
    format!("bench.tenant+{i}@example.com")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_page_holds_its_own_items_and_one_query_page_at_20000_items() {
    let env = common::env().await;
    let client = aws_sdk_dynamodb::Client::new(&env.sdk);
    devstack::seed::seed_verifications(&client, &env.names.table, OWNER, 0, ITEMS)
        .await
        .unwrap();
    let proxy = Proxy::start(&env.moto.endpoint).await.unwrap();
    let sdk = devstack::moto::sdk_config(&proxy.endpoint).await;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), env.names.table.clone());
    // One instant for every query: what is past expiry does not move between them.
    let now = Utc::now();
    let query = |status, offset, limit, stale_after_seconds: i64| ListQuery {
        account_id: OWNER.into(),
        mode: Mode::Test,
        status,
        offset,
        limit,
        expired_if_created_by: now - Duration::seconds(stale_after_seconds),
    };
    let lifetime = domain::VERIFICATION_LIFETIME.num_seconds();

    // Newest first, offset 10,000: verifications 10,000 to 10,099 (created that many seconds ago).
    let page = store
        .list_verifications(&query(None, 10_000, 100, lifetime))
        .await
        .unwrap();
    let emails: Vec<String> = page.items.iter().map(|v| v.tenant_email.clone()).collect();
    let expected: Vec<String> = (10_000..10_100).map(email_of).collect();
    assert_eq!(emails, expected);
    assert_eq!(page.total, ITEMS as u64);
    let (keys_only, whole, whole_items) = queries(&proxy);
    assert!(
        keys_only >= 10,
        "the 10,000 skipped were read as keys ({keys_only} queries)"
    );
    // Whole items: the page's, and at most one query page before it (not the 10,000 skipped).
    assert!(
        whole_items <= (QUERY_PAGE + 100) as u64,
        "{whole} queries, {whole_items} whole items"
    );

    // `status=expired` merges stored `expired` with the open ones past expiry: here every
    // verification older than 5,000 s is past it (about 15,000), and one is stored expired.
    let v = store
        .get_verification(page.items[0].verification_id)
        .await
        .unwrap()
        .unwrap();
    store
        .transition(&v, &domain::Transition::Cancel, Utc::now())
        .await
        .unwrap();
    // The newest one past expiry (seeding took a few seconds, so it is near 5,000).
    let newest = store
        .list_verifications(&query(Some(Status::Expired), 0, 1, 5_000))
        .await
        .unwrap();
    let tenant = newest.items[0].tenant_email.clone();
    let k0: usize = tenant["bench.tenant+".len()..tenant.len() - "@example.com".len()]
        .parse()
        .unwrap();
    assert!((4_900..=5_000).contains(&k0), "{k0}");
    proxy.take();
    let expired = store
        .list_verifications(&query(Some(Status::Expired), 10_000, 50, 5_000))
        .await
        .unwrap();
    let emails: Vec<String> = expired
        .items
        .iter()
        .map(|v| v.tenant_email.clone())
        .collect();
    // Newest first; the cancelled one (10,000, stored expired) counted once, in its place.
    let expected: Vec<String> = (k0 + 10_000..k0 + 10_050).map(email_of).collect();
    assert_eq!(emails, expected);
    assert_eq!(expired.total, (ITEMS - k0) as u64);
    let (keys_only, whole, whole_items) = queries(&proxy);
    assert!(keys_only >= 10, "{keys_only}");
    // Three sources: each at most one query page of whole items beside the page's.
    let bound = 3 * (QUERY_PAGE + 50) as u64;
    assert!(
        whole_items <= bound,
        "{whole} queries, {whole_items} whole items"
    );

    // Through the API (its own key): the deepest page answers.
    let (_, key) = devstack::stack::seed_account(&env.store, OWNER, "business", false)
        .await
        .unwrap();
    let reply = env
        .call(
            "GET",
            "/api/v1/verifications?offset=10000&limit=100",
            Some(&key),
            None,
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.raw);
    assert_eq!(
        reply.body["data"][1]["tenant_email"],
        email_of(10_001),
        "{}",
        reply.raw
    );
}
