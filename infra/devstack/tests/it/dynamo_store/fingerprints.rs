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
