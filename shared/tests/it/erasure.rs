//! Retention and erasure on the in-memory store: `DELETE /api/v1/verify/data` by the
//! verification's state (open, closed, erased, another key's), metered like any request; and
//! `expire-verifications` arming an erasure at the end of the account's retention, erasing when a
//! marker fires due, and arming it again when the retention grew.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use shared::adapters::testing::{ManualClock, MemoryStore};
use shared::domain::retention::RetentionDays;
use shared::domain::{Status, Transition};
use shared::handlers::api::{cancel_verification, erase_verification_data, get_verification};
use shared::handlers::expire_verifications::{ExpiryDeps, TTL_PRINCIPAL, expire_verifications};
use shared::http::ApiRequest;
use shared::ports::store::prelude::*;
use uuid::Uuid;

use crate::handlers_api::{ACCOUNT, created_id, deps_with, refusal, with_id};
use crate::support::{body, now};

fn erase_request(key: &str, id: Uuid) -> ApiRequest {
    ApiRequest::new(
        http::Method::DELETE,
        &format!("/api/v1/verify/data?verification_id={id}"),
    )
    .with_header("authorization", &format!("Bearer {key}"))
}

async fn requests_today(store: &MemoryStore) -> u32 {
    store
        .get_account(ACCOUNT)
        .await
        .unwrap()
        .unwrap()
        .api_requests
}

#[tokio::test]
async fn erase_refuses_an_open_verification_and_erases_a_closed_one_once() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    deps.store.add_tenant_note(id, "ignored").await.unwrap();

    let before = requests_today(&deps.store).await;
    let response = erase_verification_data(&deps, erase_request(key, id)).await;
    assert_eq!(
        refusal(&response),
        (400, "verification_not_erasable".into())
    );
    assert!(
        body(&response)["error"]
            .as_str()
            .unwrap()
            .contains("cancel it first")
    );
    let other_mode = erase_verification_data(&deps, erase_request(&keys.live.secret, id)).await;
    assert_eq!(refusal(&other_mode), (404, "not_found".into()));
    let unknown = erase_verification_data(&deps, erase_request(key, Uuid::new_v4())).await;
    assert_eq!(refusal(&unknown), (404, "not_found".into()));
    let missing = ApiRequest::new(http::Method::DELETE, "/api/v1/verify/data")
        .with_header("authorization", &format!("Bearer {key}"));
    let missing = erase_verification_data(&deps, missing).await;
    assert_eq!(refusal(&missing).0, 400);
    assert_eq!(
        requests_today(&deps.store).await,
        before + 4,
        "each refusal counted"
    );

    let cancelled = cancel_verification(&deps, with_id(http::Method::DELETE, key, &id.to_string()));
    assert_eq!(cancelled.await.status, 200);
    let first = erase_verification_data(&deps, erase_request(key, id)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    deps.clock.advance(Duration::minutes(5));
    let again = erase_verification_data(&deps, erase_request(key, id)).await;
    assert_eq!(again.status, 200, "{}", again.body);
    let erased_at = body(&first)["data"]["erased_at"].clone();
    assert!(erased_at.is_string());
    assert_eq!(body(&again)["data"]["erased_at"], erased_at, "erased once");
    assert_eq!(requests_today(&deps.store).await, before + 7);

    let shown = get_verification(&deps, with_id(http::Method::GET, key, &id.to_string())).await;
    let data = &body(&shown)["data"];
    assert_eq!(data["erased_at"], erased_at);
    assert_eq!(data["tenant"], json!({"email": "", "name": ""}));
    assert_eq!(data["property"]["address"], "");
    let stored = deps.store.verification(id).unwrap();
    assert_eq!(stored.tenant_name, None);
    assert!(stored.token_hashes.is_empty() && stored.message_links.is_empty());
}

#[tokio::test]
async fn an_open_verification_past_its_expiry_may_be_erased_before_the_sweep() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    deps.clock.advance(Duration::days(8));
    let response = erase_verification_data(&deps, erase_request(key, id)).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let stored = deps.store.verification(id).unwrap();
    assert_eq!(
        stored.status,
        Status::Pending,
        "its expiry is the sweep's to record"
    );
    // The expiry still lands; nothing else does.
    let expired = deps
        .store
        .transition(&stored, &Transition::Expire, now())
        .await;
    assert!(matches!(
        expired.unwrap(),
        shared::ports::TransitionOutcome::Applied(_)
    ));
    let start = deps
        .store
        .transition(&stored, &Transition::Start, now())
        .await;
    assert!(matches!(
        start.unwrap(),
        shared::ports::TransitionOutcome::Conflict(_)
    ));
}

/// A TTL deletion of the verification's marker (`EXPIRY` or `ERASURE`), as the stream delivers it.
fn removed(id: Uuid, sk: &str) -> Event {
    let mut record = EventRecord::default();
    record.event_name = "REMOVE".into();
    let keys = [("PK", format!("VERIFICATION#{id}")), ("SK", sk.to_string())];
    for (name, value) in keys {
        record
            .change
            .keys
            .insert(name.into(), serde_dynamo::AttributeValue::S(value));
    }
    record.change.sequence_number = Some("1".into());
    let mut identity = aws_lambda_events::event::dynamodb::UserIdentity::default();
    identity.type_ = "Service".into();
    identity.principal_id = TTL_PRINCIPAL.into();
    record.user_identity = Some(identity);
    let mut event = Event::default();
    event.records = vec![record];
    event
}

#[tokio::test]
async fn markers_arm_erase_and_arm_again_by_the_accounts_current_retention() {
    let (api, keys) = deps_with(MemoryStore::new(), "pro").await;
    let store = api.store.clone();
    let id = created_id(&api, &keys.test.secret).await;
    let v = store.verification(id).unwrap();
    let closed_at = now() + Duration::hours(1);
    let completed = store
        .transition(&v, &Transition::Fail { reason: "x".into() }, closed_at)
        .await
        .unwrap();
    assert!(matches!(
        completed,
        shared::ports::TransitionOutcome::Applied(_)
    ));
    let at = |t: DateTime<Utc>| ExpiryDeps {
        store: store.clone(),
        clock: ManualClock::at(t),
    };

    // The expiry marker fires: the verification closed already; its erasure is armed.
    let response = expire_verifications(&at(v.expires_at), removed(id, "EXPIRY")).await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(
        store.erasure_marker(id),
        Some(closed_at + Duration::days(365))
    );

    // A shorter retention, re-armed by the admin tool: the marker moves earlier.
    let thirty = RetentionDays::new(30).unwrap();
    assert!(store.set_retention_days(ACCOUNT, thirty).await.unwrap());
    shared::handlers::retention::rearm_account(&store, ACCOUNT)
        .await
        .unwrap();
    let due = closed_at + Duration::days(30);
    assert_eq!(store.erasure_marker(id), Some(due));

    // The retention grew again before it fired: the marker fires early and is armed again.
    let sixty = RetentionDays::new(60).unwrap();
    store.set_retention_days(ACCOUNT, sixty).await.unwrap();
    assert_eq!(store.ttl_delete_erasure_marker(id), Some(due));
    let response = expire_verifications(&at(due), removed(id, "ERASURE")).await;
    assert!(response.batch_item_failures.is_empty());
    assert!(store.verification(id).unwrap().erased_at.is_none());
    let later = closed_at + Duration::days(60);
    assert_eq!(store.erasure_marker(id), Some(later));

    // Due: erased; a late duplicate of the record changes nothing.
    assert_eq!(store.ttl_delete_erasure_marker(id), Some(later));
    for _ in 0..2 {
        let response = expire_verifications(&at(later), removed(id, "ERASURE")).await;
        assert!(response.batch_item_failures.is_empty());
    }
    let erased = store.verification(id).unwrap();
    assert_eq!(erased.erased_at, Some(later));
    assert_eq!(erased.tenant_email, "");
    assert_eq!(
        store.erasure_marker(id),
        None,
        "the erasure removed its marker"
    );
}
