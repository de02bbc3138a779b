//! The fingerprints of the reuse check on both stores: each submission is kept once per
//! verification until its time, the earlier ones come back without this verification's own,
//! and test and live never meet.

use super::*;

use domain::documents::reuse::{TenantMarks, tenant_marks};
use ports::FingerprintStore;

fn marks(email: &str) -> TenantMarks {
    tenant_marks(b"a fingerprint key for the store's tests", email, None)
}

async fn record<S: FingerprintStore>(
    store: &S,
    mode: Mode,
    fingerprints: &[&str],
    id: uuid::Uuid,
    email: &str,
    at: DateTime<Utc>,
) -> Vec<TenantMarks> {
    let fingerprints: Vec<String> = fingerprints.iter().map(|f| f.to_string()).collect();
    store
        .record_fingerprints(
            mode,
            &fingerprints,
            id,
            &marks(email),
            at,
            at + Duration::days(90),
        )
        .await
        .unwrap()
}

async fn submissions_are_kept_per_verification_until_their_time<S: FingerprintStore>(store: S) {
    let (jane, sam, kim) = (
        uuid::Uuid::new_v4(),
        uuid::Uuid::new_v4(),
        uuid::Uuid::new_v4(),
    );
    let t = now();
    assert!(
        record(
            &store,
            Mode::Live,
            &["file-a", "stub-a"],
            jane,
            "jane@example.com",
            t
        )
        .await
        .is_empty()
    );
    // Written again (a retried analysis): still nothing earlier, and no second item.
    assert!(
        record(
            &store,
            Mode::Live,
            &["file-a", "stub-a"],
            jane,
            "jane@example.com",
            t
        )
        .await
        .is_empty()
    );
    // Sam's stub matches Jane's figures only: her one submission of it comes back.
    let earlier = record(
        &store,
        Mode::Live,
        &["file-b", "stub-a"],
        sam,
        "sam@example.com",
        t,
    )
    .await;
    assert_eq!(earlier, vec![marks("jane@example.com")]);
    // Test mode never meets live.
    assert!(
        record(&store, Mode::Test, &["file-a"], kim, "kim@example.com", t)
            .await
            .is_empty()
    );
    // Past Jane's 90 days (before the TTL deletes it), her submission no longer counts.
    let late = t + Duration::days(91);
    let earlier = record(
        &store,
        Mode::Live,
        &["file-a", "stub-a"],
        kim,
        "kim@example.com",
        late,
    )
    .await;
    assert!(earlier.is_empty(), "{earlier:?}");
}
on_both_stores!(submissions_are_kept_per_verification_until_their_time);

// An erasure deletes the verification's submissions (its tenant's keyed marks): a later document
// matching the erased one's finds only the submissions of verifications still kept.
on_both_stores!(an_erasure_deletes_the_verifications_fingerprint_submissions);
async fn an_erasure_deletes_the_verifications_fingerprint_submissions<S>(store: S)
where
    S: Store + FingerprintStore,
{
    store.put_account(&account("pro")).await.unwrap();
    let erased = pending(Mode::Live);
    store
        .create_verification(&erased, None, None)
        .await
        .unwrap();
    let (kept, later) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    let t = now();
    let id = erased.verification_id;
    record(
        &store,
        Mode::Live,
        &["file-e", "stub-e"],
        id,
        "jane@example.com",
        t,
    )
    .await;
    record(&store, Mode::Live, &["stub-e"], kept, "sam@example.com", t).await;
    let past_expiry = erased.expires_at + Duration::hours(1);
    let outcome = store.erase_verification(id, past_expiry).await.unwrap();
    assert!(
        matches!(outcome, ports::ErasureOutcome::Erased(_)),
        "{outcome:?}"
    );
    // Erasing again (a call stopped half-way is finished by the next) finds nothing left.
    let again = store.erase_verification(id, past_expiry).await.unwrap();
    assert!(
        matches!(again, ports::ErasureOutcome::AlreadyErased(_)),
        "{again:?}"
    );
    let earlier = record(
        &store,
        Mode::Live,
        &["file-e", "stub-e"],
        later,
        "kim@example.com",
        t,
    )
    .await;
    assert_eq!(
        earlier,
        vec![marks("sam@example.com")],
        "only the kept one's"
    );
}

// On the table, nothing of the erased verification's submissions is left: neither the
// submissions nor their list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erasure_leaves_no_fingerprint_item_of_the_verification_in_the_table() {
    let store = store().await;
    store.put_account(&account("pro")).await.unwrap();
    let v = pending(Mode::Live);
    store.create_verification(&v, None, None).await.unwrap();
    let id = v.verification_id;
    record(
        &store,
        Mode::Live,
        &["file-x", "stub-x"],
        id,
        "jane@example.com",
        now(),
    )
    .await;
    let listed = (keys::submitted(id), keys::fingerprint(Mode::Live, "file-x"));
    assert!(
        raw(&store, listed.clone()).await.is_some(),
        "listed under the verification"
    );
    let submission = keys::fingerprint_submission(Mode::Live, "stub-x", id);
    assert!(raw(&store, submission.clone()).await.is_some());
    let past_expiry = v.expires_at + Duration::hours(1);
    store.erase_verification(id, past_expiry).await.unwrap();
    for fingerprint in ["file-x", "stub-x"] {
        let submission = keys::fingerprint_submission(Mode::Live, fingerprint, id);
        assert!(
            raw(&store, submission).await.is_none(),
            "{fingerprint}'s submission"
        );
        let listed = (
            keys::submitted(id),
            keys::fingerprint(Mode::Live, fingerprint),
        );
        assert!(
            raw(&store, listed).await.is_none(),
            "{fingerprint}'s list item"
        );
    }
}
