//! Runs over retention and erasure: a closed verification erased on request (and the refusals of
//! an open one and another account's), and one erased by its marker's TTL deletion; each has
//! uploads in the documents bucket, which the erasure lists and deletes, and fingerprint
//! submissions, which it deletes.

use super::*;

/// `DELETE /api/v1/verify/data`: a cancelled verification with a stored webhook event and a
/// delivery log, erased (then the `verification.erased` webhook); an open one refused; another
/// account's not found. Then the sweep: a verification closed past its retention, its erasure
/// marker swept as TTL would, erased by expire-verifications.
pub async fn erasure(rig: &mut Rig) {
    let key = rig.live_key.clone();
    let body = json!({
        "tenant_email": "iam.erased+good@example.com",
        "tenant_name": "Erin Erased",
        "webhook_url": rig.receiver.url.clone(),
    });
    let created = rig
        .expect("POST", VERIFY, Some(&key), Some(body), 201)
        .await;
    let id = created_id(&created, "verification_id");
    rig.drain().await;
    let data = format!("{VERIFY}/data?verification_id={id}");
    let open = rig.expect("DELETE", &data, Some(&key), None, 400).await;
    assert_eq!(open["code"], "verification_not_erasable", "{open}");
    let cancel = format!("{VERIFY}?verification_id={id}");
    rig.expect("DELETE", &cancel, Some(&key), None, 200).await;
    rig.drain().await;
    let other = rig.other_live_key.clone();
    rig.expect("DELETE", &data, Some(&other), None, 404).await;
    let bucket = rig.names.documents_bucket.clone();
    common::put_uploads(&rig.sdk, &bucket, &id).await;
    submitted(rig, id.parse().unwrap(), domain::Mode::Live).await;
    let erased = rig.expect("DELETE", &data, Some(&key), None, 200).await;
    assert!(erased["data"]["erased_at"].is_string(), "{erased}");
    let left = common::upload_keys(&rig.sdk, &bucket, &id).await;
    assert!(left.is_empty(), "the uploads erased: {left:?}");
    rig.drain().await;

    // A household member's erasure takes the household's address, rent and decision.
    let members = json!([{"tenant_email": "iam.erased.h+good@example.com", "role": "applicant"}]);
    let body =
        json!({"monthly_rent": 1000, "property_address": "1 Erased Row", "members": members});
    let h = rig
        .expect("POST", HOUSEHOLDS, Some(&key), Some(body), 201)
        .await;
    rig.drain().await;
    let household = h["data"]["household_id"].as_str().unwrap().to_string();
    let cancel = format!("{HOUSEHOLDS}?household_id={household}");
    rig.expect("DELETE", &cancel, Some(&key), None, 200).await;
    rig.drain().await;
    let member = h["data"]["members"][0]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let data = format!("{VERIFY}/data?verification_id={member}");
    rig.expect("DELETE", &data, Some(&key), None, 200).await;
    rig.drain().await;

    // The sweep: closed 400 days ago, its marker due.
    use domain::{Mode, NewVerificationInput, Transition, Verification};
    let long_ago = chrono::Utc::now() - chrono::Duration::days(400);
    let input = NewVerificationInput {
        tenant_email: "iam.swept+good@example.com".into(),
        ..Default::default()
    };
    let mut v = Verification::new_pending(
        stack::DEMO_ACCOUNT,
        Mode::Test,
        input,
        long_ago,
        chrono::Duration::days(7),
    );
    // A member of the household above: the sweep erases the household's data too.
    v.household_id = Some(household.parse().unwrap());
    rig.store.create_verification(&v, None, None).await.unwrap();
    let cancelled = rig.store.transition(&v, &Transition::Cancel, long_ago);
    assert!(matches!(
        cancelled.await.unwrap(),
        ports::TransitionOutcome::Applied(_)
    ));
    let id = v.verification_id;
    rig.store.arm_erasure(id, long_ago).await.unwrap();
    common::put_uploads(&rig.sdk, &bucket, id).await;
    submitted(rig, id, Mode::Test).await;
    let dynamo = aws_sdk_dynamodb::Client::new(&rig.sdk);
    let swept = devstack::pump::sweep_ttl(&dynamo, &rig.names.table, &rig.ttl)
        .await
        .unwrap();
    assert!(swept >= 1, "the markers were due");
    rig.drain().await;
    let stored = rig.store.get_verification(id).await.unwrap().unwrap();
    assert!(stored.erased_at.is_some(), "swept and erased");
    let left = common::upload_keys(&rig.sdk, &bucket, id).await;
    assert!(left.is_empty(), "the uploads erased: {left:?}");
}

/// A document's fingerprint submissions of the verification, as analyze-document records them.
async fn submitted(rig: &Rig, id: uuid::Uuid, mode: domain::Mode) {
    use ports::FingerprintStore;
    let marks = domain::documents::reuse::tenant_marks(b"iam runs' key", "erin@example.com", None);
    let now = chrono::Utc::now();
    let fingerprints = ["iam-file".to_string(), "iam-stub".to_string()];
    let until = now + chrono::Duration::days(90);
    let stored = rig
        .store
        .record_fingerprints(mode, &fingerprints, id, &marks, now, until);
    stored.await.unwrap();
}
