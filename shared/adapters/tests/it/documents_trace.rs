//! Every upload leaves a trace, with fakes (a versioned bucket in memory): each version posted
//! counts against the caps and is kept with its verdict, replaced ones included; each version is
//! analysed as read; a version not taken in is deleted, and a failed delete is retried.

use aws_lambda_events::event::sqs::SqsEvent;
use domain::Status;
use domain::documents::record::{DocumentState, MAX_UPLOADS, object_key, report_documents};
use domain::documents::{DocumentKind, Verdict};
use service::handlers::analyze_document::analyze_documents;

use crate::documents_flow::{PNG, Rig, rig};

const TEXT: &[u8] = b"Net pay 1,900.00";

async fn handled(rig: &Rig, e: SqsEvent) -> bool {
    analyze_documents(&rig.analysis(), e)
        .await
        .batch_item_failures
        .is_empty()
}

#[tokio::test]
async fn the_same_form_posted_again_counts_and_keeps_the_replaced_upload_with_its_verdict() {
    let rig = rig().await;
    let (first, v1) = rig.upload_version("d1", &PNG, "same-etag", 1);
    assert!(handled(&rig, first.clone()).await);
    // The same bytes through the same form: the same ETag, a new version, a new upload.
    let (second, v2) = rig.upload_version("d1", &PNG, "same-etag", 1);
    assert!(handled(&rig, second.clone()).await);
    let v = rig.stored();
    assert_eq!(v.uploads, 2, "the second version counts");
    let d = &v.documents["d1"];
    assert_eq!((d.number, d.version_id.as_deref()), (2, Some(v2.as_str())));
    assert_eq!(d.replaced.len(), 1);
    let replaced = &d.replaced[0];
    assert_eq!(
        (replaced.number, replaced.version_id.as_deref()),
        (1, Some(v1.as_str()))
    );
    assert_eq!(
        replaced.verdict(),
        Some(Verdict::Undetermined),
        "kept with its verdict"
    );
    // Either notification again: nothing read, nothing written.
    let (reads, rev) = (rig.objects.reads(), v.documents_rev);
    for e in [first, second] {
        assert!(handled(&rig, e).await);
    }
    assert_eq!(
        (rig.objects.reads(), rig.stored().documents_rev),
        (reads, rev)
    );
    // The report names the replaced upload with its verdict.
    let set = vec![(d.clone(), d.analysis.clone().unwrap())];
    let (shown, _) = report_documents(&set, [], false);
    assert_eq!(shown[0].replaced, vec!["Document 1 (could not be checked)"]);
    assert!(
        shown[0]
            .summary
            .ends_with("It replaced Document 1 (could not be checked).")
    );
}

#[tokio::test]
async fn each_version_is_analysed_as_read_though_a_newer_one_is_stored() {
    let rig = rig().await;
    let (photo, _) = rig.upload_version("d1", &PNG, "e-photo", 1);
    let (text, text_version) = rig.upload_version("d1", TEXT, "e-text", 1);
    // The older notification first: it reads its own version, not the current object.
    assert!(handled(&rig, photo).await);
    let d = rig.stored().documents["d1"].clone();
    assert_eq!(
        d.analysis.as_ref().map(|a| a.kind),
        Some(DocumentKind::Photo)
    );
    assert!(handled(&rig, text).await);
    let d = rig.stored().documents["d1"].clone();
    assert_eq!(
        (d.state, d.version_id),
        (DocumentState::Refused, Some(text_version))
    );
    assert_eq!(
        d.replaced[0].analysis.as_ref().map(|a| a.kind),
        Some(DocumentKind::Photo)
    );
}

/// A photo swapped for a file that is refused, then another document finished with: the report
/// lists the refused upload, never counted, with the photo it replaced.
#[tokio::test]
async fn a_refused_replacement_keeps_what_it_replaced_in_the_report() {
    let rig = rig().await;
    let (photo, _) = rig.upload_version("d1", &PNG, "e-photo", 1);
    assert!(handled(&rig, photo).await);
    let (junk, _) = rig.upload_version("d1", TEXT, "e-text", 1);
    assert!(handled(&rig, junk).await);
    let (other, _) = rig.upload_version("d2", &PNG, "e-other", 1);
    assert!(handled(&rig, other).await);
    let typed = rig
        .page(Some("action=state_pay&document=d2&pay_date=2026-03-06&gross=2500&net=1900&frequency=biweekly"))
        .await;
    assert_eq!(typed.status, 303);
    assert_eq!(rig.page(Some("action=finish_documents")).await.status, 303);
    let v = rig.stored();
    assert_eq!(v.status, Status::Completed);
    let report = v.income_report.unwrap();
    let documents = report.documents.unwrap();
    let names: Vec<&str> = documents.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Document 2", "Document 3"]);
    let refused = &documents[0];
    assert!(refused.refused && !refused.counted && !refused.awaiting_review);
    assert_eq!(refused.verdict, Verdict::Undetermined);
    assert_eq!(refused.replaced, vec!["Document 1 (could not be checked)"]);
    assert!(
        refused.summary.contains("refused")
            && refused
                .summary
                .ends_with("It replaced Document 1 (could not be checked)."),
        "{}",
        refused.summary
    );
    // Only the typed photo's figures await the landlord, as before.
    assert_eq!(report.awaiting_review.unwrap().documents, ["Document 3"]);
}

/// A version still being analysed when a newer one replaced it: its analysis ends in the trace.
#[tokio::test]
async fn a_version_replaced_during_its_analysis_gets_its_verdict_in_the_trace() {
    let rig = rig().await;
    let (photo, _) = rig.upload_version("d1", &PNG, "e-photo", 1);
    let (text, _) = rig.upload_version("d1", TEXT, "e-text", 1);
    // The photo's claim is made by a first attempt that stopped before its analysis.
    let deps = rig.analysis();
    let failing = service::handlers::analyze_document::AnalysisDeps {
        analyse: std::sync::Arc::new(|_, _| Err("injected: the child did not start".into())),
        ..deps
    };
    assert!(
        !analyze_documents(&failing, photo.clone())
            .await
            .batch_item_failures
            .is_empty()
    );
    assert!(handled(&rig, text).await);
    let d = rig.stored().documents["d1"].clone();
    assert_eq!(d.replaced[0].state, DocumentState::Analysing);
    // The photo's retry finishes it where it now stands: in the trace.
    assert!(handled(&rig, photo).await);
    let d = rig.stored().documents["d1"].clone();
    assert_eq!((d.number, d.state), (2, DocumentState::Refused));
    assert_eq!(d.replaced[0].verdict(), Some(Verdict::Undetermined));
}

/// Past the cap, or after the verification closed (a form signed before), the version is
/// deleted with its reason; a failed delete is retried, not acknowledged (fault injection).
#[tokio::test]
async fn a_version_not_taken_in_is_deleted_and_a_failed_delete_is_retried() {
    let rig = rig().await;
    let mut v = rig.stored();
    v.uploads = MAX_UPLOADS;
    rig.store.insert_verification(&v);
    let key = object_key(v.verification_id, "over");
    let (over, _) = rig.upload_version("over", &PNG, "e-over", 1);
    assert!(handled(&rig, over).await);
    assert!(
        rig.objects.versions(&key).is_empty(),
        "past the cap: deleted"
    );
    assert!(rig.stored().documents.is_empty());

    v.uploads = 0;
    v.status = Status::Completed;
    rig.store.insert_verification(&v);
    let key = object_key(v.verification_id, "late");
    let (late, version) = rig.upload_version("late", &PNG, "e-late", 1);
    rig.objects.set_deletes_down(true);
    assert!(
        !handled(&rig, late.clone()).await,
        "a failed delete is retried"
    );
    assert_eq!(rig.objects.versions(&key), vec![version]);
    rig.objects.set_deletes_down(false);
    assert!(handled(&rig, late).await);
    assert!(rig.objects.versions(&key).is_empty(), "closed: deleted");
    assert_eq!(rig.objects.reads(), 0, "neither was read");
    assert!(rig.stored().documents.is_empty());
}
