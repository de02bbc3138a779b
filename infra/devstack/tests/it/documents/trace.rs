//! Every upload leaves a trace, on moto's versioned bucket: a form posted again is a new version
//! that counts and is listed beside the one it replaced, each downloaded as the bytes analysed; a
//! form posted after the verification closed leaves no object. (The erasure of every version and
//! delete marker: `erasure.rs`, through `common::put_uploads`; a version S3 refuses to delete:
//! here.)

use domain::documents::record::{DocumentState, MAX_UPLOADS, object_key};

use super::upload::{post_file, upload_form};
use super::{client, consented, get_page, pump_until, pump_until_analysed, stored};
use crate::common::{self, TINY_PNG};

const TEXT: &[u8] = b"Net pay 1,900.00";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_posted_again_counts_is_listed_and_each_version_downloads_as_analysed() {
    let env = common::env().await;
    let workers = env.workers();
    let (id, link) = consented(&env).await;
    let (action, fields) = upload_form(&get_page(&env, &link).await).expect("an upload form");
    assert_eq!(post_file(&action, &fields, "a.png", &TINY_PNG).await.0, 303);
    pump_until_analysed(&env, &workers, id, 1).await;
    // The same signed form again, within its 15 minutes: a second version of the same key.
    assert_eq!(post_file(&action, &fields, "b.pdf", TEXT).await.0, 303);
    let replaced = |v: &domain::Verification| {
        v.documents
            .values()
            .any(|d| d.replaced.len() == 1 && d.state != DocumentState::Analysing)
    };
    assert!(
        pump_until(&env, &workers, id, replaced).await,
        "the second version is recorded"
    );
    let v = stored(&env, id).await;
    assert_eq!(v.uploads, 2, "the second version counts against the caps");
    let (document_id, current) = v.documents.iter().next().unwrap();
    assert_eq!((current.number, current.state), (2, DocumentState::Refused));
    let first = &current.replaced[0];
    assert_eq!((first.number, first.state), (1, DocumentState::Analysed));
    assert!(
        first.analysis.is_some(),
        "the replaced upload keeps its verdict"
    );
    let (one, two) = (first.version_id.clone(), current.version_id.clone());
    assert!(
        one.is_some() && two.is_some() && one != two,
        "{one:?} {two:?}"
    );

    // The landlord's list: both uploads, the first marked replaced, each link that version.
    let path = format!("/api/v1/verify/documents?verification_id={id}");
    let listed = env.call("GET", &path, Some(&env.test_key), None).await;
    assert_eq!(listed.status, 200, "{}", listed.raw);
    let documents = listed.body["data"]["documents"].as_array().unwrap().clone();
    assert_eq!(documents.len(), 2, "{}", listed.raw);
    assert_eq!(documents[0]["name"], "Document 1");
    assert_eq!(documents[0]["replaced_by"], "Document 2");
    assert_eq!(documents[0]["verdict"], "undetermined");
    assert_eq!(documents[1]["state"], "refused");
    assert!(documents[1].get("replaced_by").is_none());
    for (entry, bytes) in documents.iter().zip([&TINY_PNG[..], TEXT]) {
        let url = entry["download_url"].as_str().unwrap();
        assert!(url.contains("versionId="), "{url}");
        let got = client().get(url).send().await.unwrap();
        assert_eq!(got.status().as_u16(), 200);
        assert_eq!(
            got.bytes().await.unwrap().as_ref(),
            bytes,
            "the bytes analysed"
        );
    }

    // Closed: the page signs no form, and the old form's post leaves no new version behind.
    let key = object_key(id, document_id);
    let cancelled = env.cancel_verification(&env.test_key, id).await;
    assert_eq!(cancelled.status, 200, "{}", cancelled.raw);
    assert!(
        upload_form(&get_page(&env, &link).await).is_none(),
        "no form once closed"
    );
    assert_eq!(
        post_file(&action, &fields, "late.png", &TINY_PNG).await.0,
        303
    );
    let bucket = env.names.documents_bucket.clone();
    let versions = || async { common::upload_keys(&env.sdk, &bucket, id).await };
    assert_eq!(versions().await.len(), 3, "the late version arrived");
    let unchanged = |v: &domain::Verification| v.documents[document_id].number == 2;
    for _ in 0..20 {
        if versions().await.len() == 2 {
            break;
        }
        assert!(pump_until(&env, &workers, id, unchanged).await);
    }
    assert_eq!(
        versions().await,
        vec![key.clone(), key],
        "the late version is deleted"
    );
    let v = stored(&env, id).await;
    assert_eq!(
        (v.uploads, v.documents.len()),
        (2, 1),
        "nothing recorded of it"
    );
    assert!(v.uploads < MAX_UPLOADS);
}

/// S3 refuses to delete one version (a legal hold here; on AWS any entry in the `Errors` of
/// DeleteObjects' 200): the erasure fails rather than report the uploads gone, what it could delete
/// is gone, and the next call, once S3 allows it, deletes the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erasure_s3_refuses_in_part_fails_and_the_next_call_finishes_it() {
    use aws_sdk_s3::types::{ObjectLockLegalHold, ObjectLockLegalHoldStatus};
    use ports::DocumentEraser;

    let env = common::env().await;
    let s3 = adapters::s3::s3_client(&env.sdk);
    let bucket = format!("locked-{}", uuid::Uuid::new_v4().simple());
    (s3.create_bucket().bucket(&bucket))
        .object_lock_enabled_for_bucket(true)
        .send()
        .await
        .unwrap();
    let id = uuid::Uuid::new_v4();
    common::put_uploads(&env.sdk, &bucket, id).await;
    let held = s3
        .put_object()
        .bucket(&bucket)
        .key(object_key(id, "d3"))
        .body(b"%PDF-1.7 held".to_vec().into())
        .send()
        .await
        .unwrap();
    let hold = |status| {
        s3.put_object_legal_hold()
            .bucket(&bucket)
            .key(object_key(id, "d3"))
            .set_version_id(held.version_id().map(String::from))
            .legal_hold(ObjectLockLegalHold::builder().status(status).build())
            .send()
    };
    hold(ObjectLockLegalHoldStatus::On).await.unwrap();
    let eraser = adapters::s3::S3Objects::new(&env.sdk, &bucket);

    let failed = eraser.erase_uploads(id).await;
    assert!(
        failed.is_err(),
        "a refused version is no success: {failed:?}"
    );
    assert_eq!(
        common::upload_keys(&env.sdk, &bucket, id).await,
        vec![object_key(id, "d3")],
        "what S3 allowed is gone; the held version is left"
    );

    hold(ObjectLockLegalHoldStatus::Off).await.unwrap();
    assert_eq!(eraser.erase_uploads(id).await.unwrap(), 1);
    assert!(common::upload_keys(&env.sdk, &bucket, id).await.is_empty());
    assert_eq!(eraser.erase_uploads(id).await.unwrap(), 0, "safe to repeat");
}
