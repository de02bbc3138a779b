//! Retention and erasure on the in-memory store: `DELETE /api/v1/verify/data` by the
//! verification's state (open, closed, erased, another key's), metered like any request; and
//! `expire-verifications` arming an erasure at the end of the account's retention, erasing when a
//! marker fires due, and arming it again when the retention grew. Both roads erase the
//! verification's uploaded documents too, and a failure there is reported, never counted done.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use chrono::{DateTime, Duration, Utc};
use domain::retention::RetentionDays;
use domain::{Status, Transition};
use ports::store::prelude::*;
use serde_json::json;
use service::handlers::cancel_verification::cancel_verification;
use service::handlers::erase_verification_data::erase_verification_data;
use service::handlers::expire_verifications::{ExpiryDeps, TTL_PRINCIPAL, expire_verifications};
use service::handlers::get_verification::get_verification;
use service::http::ApiRequest;
use test_support::{ManualClock, MemoryObjects, MemoryStore};
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
    let response =
        erase_verification_data(&deps, &MemoryObjects::default(), erase_request(key, id)).await;
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
    let other_mode = erase_verification_data(
        &deps,
        &MemoryObjects::default(),
        erase_request(&keys.live.secret, id),
    )
    .await;
    assert_eq!(refusal(&other_mode), (404, "not_found".into()));
    let unknown = erase_verification_data(
        &deps,
        &MemoryObjects::default(),
        erase_request(key, Uuid::new_v4()),
    )
    .await;
    assert_eq!(refusal(&unknown), (404, "not_found".into()));
    let missing = ApiRequest::new(http::Method::DELETE, "/api/v1/verify/data")
        .with_header("authorization", &format!("Bearer {key}"));
    let missing = erase_verification_data(&deps, &MemoryObjects::default(), missing).await;
    assert_eq!(refusal(&missing).0, 400);
    assert_eq!(
        requests_today(&deps.store).await,
        before + 4,
        "each refusal counted"
    );

    let cancelled = cancel_verification(&deps, with_id(http::Method::DELETE, key, &id.to_string()));
    assert_eq!(cancelled.await.status, 200);
    let first =
        erase_verification_data(&deps, &MemoryObjects::default(), erase_request(key, id)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    deps.clock.advance(Duration::minutes(5));
    let again =
        erase_verification_data(&deps, &MemoryObjects::default(), erase_request(key, id)).await;
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
    let response =
        erase_verification_data(&deps, &MemoryObjects::default(), erase_request(key, id)).await;
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
        ports::TransitionOutcome::Applied(_)
    ));
    let start = deps
        .store
        .transition(&stored, &Transition::Start, now())
        .await;
    assert!(matches!(
        start.unwrap(),
        ports::TransitionOutcome::Conflict(_)
    ));
}

/// A TTL deletion of the verification's marker (`EXPIRY` or `ERASURE`), as the stream delivers it.
fn removed(id: Uuid, sk: &str) -> Event {
    let mut record = EventRecord::default();
    record.event_name = "REMOVE".into();
    let pk = service::table_schema::keys::markers(id);
    let keys = [("PK", pk), ("SK", sk.to_string())];
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
    assert!(matches!(completed, ports::TransitionOutcome::Applied(_)));
    let at = |t: DateTime<Utc>| ExpiryDeps {
        store: store.clone(),
        clock: ManualClock::at(t),
        documents: MemoryObjects::default(),
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
    service::handlers::retention::rearm_account(&store, ACCOUNT)
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

/// Two uploads of `id` and one of another verification, in a fake bucket.
fn bucket_with_uploads(id: Uuid, other: Uuid) -> MemoryObjects {
    let objects = MemoryObjects::default();
    objects.put(&format!("uploads/{id}/d1"), b"%PDF-1.7 stub");
    objects.put(&format!("uploads/{id}/d2"), b"%PDF-1.7 statement");
    objects.put(&format!("uploads/{other}/d1"), b"%PDF-1.7 another");
    objects
}

#[tokio::test]
async fn the_landlords_erasure_erases_the_uploads_and_answers_500_until_they_are_gone() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    let other = Uuid::new_v4();
    let objects = bucket_with_uploads(id, other);
    let cancelled = cancel_verification(&deps, with_id(http::Method::DELETE, key, &id.to_string()));
    assert_eq!(cancelled.await.status, 200);

    // S3 fails after the table's erasure: the landlord gets a 500, not "erased".
    objects.set_down(true);
    let failed = erase_verification_data(&deps, &objects, erase_request(key, id)).await;
    assert_eq!(refusal(&failed), (500, "internal_error".into()));
    assert!(deps.store.verification(id).unwrap().erased_at.is_some());
    assert_eq!(objects.keys().len(), 3, "nothing deleted");

    // Asked again (the table already erased): the uploads go, the other verification's stay.
    objects.set_down(false);
    let done = erase_verification_data(&deps, &objects, erase_request(key, id)).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(objects.keys(), vec![format!("uploads/{other}/d1")]);
    let again = erase_verification_data(&deps, &objects, erase_request(key, id)).await;
    assert_eq!(again.status, 200, "nothing left is done");

    // A stack without a documents bucket has nothing to erase there.
    let none: Option<MemoryObjects> = None;
    let without = erase_verification_data(&deps, &none, erase_request(key, id)).await;
    assert_eq!(without.status, 200, "{}", without.body);
}

#[tokio::test]
async fn the_sweeps_erasure_erases_the_uploads_and_reports_the_record_until_they_are_gone() {
    let (api, keys) = deps_with(MemoryStore::new(), "pro").await;
    let store = api.store.clone();
    let id = created_id(&api, &keys.test.secret).await;
    let v = store.verification(id).unwrap();
    let closed = store.transition(&v, &Transition::Cancel, now()).await;
    assert!(matches!(
        closed.unwrap(),
        ports::TransitionOutcome::Applied(_)
    ));
    let due = now() + Duration::days(365);
    store.arm_erasure(id, due).await.unwrap();
    assert_eq!(store.ttl_delete_erasure_marker(id), Some(due));
    let other = Uuid::new_v4();
    let deps = ExpiryDeps {
        store: store.clone(),
        clock: ManualClock::at(due),
        documents: bucket_with_uploads(id, other),
    };

    // S3 fails: the record is reported (the stream delivers it again), the uploads stay.
    deps.documents.set_down(true);
    let failed = expire_verifications(&deps, removed(id, "ERASURE")).await;
    let reported: Vec<_> = (failed.batch_item_failures.iter())
        .map(|f| f.item_identifier.clone())
        .collect();
    assert_eq!(reported, vec![Some("1".to_string())]);
    assert!(store.verification(id).unwrap().erased_at.is_some());
    assert_eq!(deps.documents.keys().len(), 3);

    // The same record again, the verification already erased: the uploads go now.
    deps.documents.set_down(false);
    let done = expire_verifications(&deps, removed(id, "ERASURE")).await;
    assert!(done.batch_item_failures.is_empty());
    assert_eq!(deps.documents.keys(), vec![format!("uploads/{other}/d1")]);
}
