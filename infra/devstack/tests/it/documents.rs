//! Documents end to end on moto: the tenant page's upload form, the browser's POST to the bucket,
//! the bucket's notification through the documents queue to analyze-document, and the report.

mod trace;
pub mod upload;

use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use domain::documents::Verdict;
use domain::documents::record::{DocumentState, object_key};
use domain::income::VerificationMethod;
use domain::{Status, Transition, Verification};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use serde_json::json;
use service::handlers::analyze_document::analyze_documents;
use uuid::Uuid;

use crate::common::{self, TINY_PNG, TestEnv};
use upload::{post_file, upload_form};

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A test verification the tenant consented to: its id and link (path).
pub(crate) async fn consented(env: &TestEnv) -> (Uuid, String) {
    let created = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "docs+good@example.com", "tenant_name": "Dana Docs", "monthly_rent": 1200}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let id: Uuid = created.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let url = created.body["data"]["verification_url"].as_str().unwrap();
    let link = url.strip_prefix(&env.base).unwrap().to_string();
    assert_eq!(
        post_page(env, &link, "action=consent&agree=yes").await.0,
        303
    );
    (id, link)
}

async fn post_page(env: &TestEnv, link: &str, form: &str) -> (u16, String) {
    let resp = client()
        .post(format!("{}{link}", env.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

pub(crate) async fn get_page(env: &TestEnv, link: &str) -> String {
    client()
        .get(format!("{}{link}", env.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

pub(crate) async fn stored(env: &TestEnv, id: Uuid) -> Verification {
    env.store.get_verification(id).await.unwrap().unwrap()
}

/// Hands the documents queue to analyze-document (the local mapping) until `id` has `count`
/// documents, none of them still being analysed.
pub async fn pump_until_analysed(
    env: &TestEnv,
    workers: &devstack::Workers,
    id: Uuid,
    count: usize,
) {
    let analysed = |v: &Verification| {
        v.documents.len() >= count
            && (v.documents.values()).all(|d| d.state != DocumentState::Analysing)
    };
    if !pump_until(env, workers, id, analysed).await {
        panic!("{count} document(s) of {id} were not analysed");
    }
}

/// Hands the documents queue to analyze-document until `done` holds of `id`'s stored
/// verification; false when it never did.
pub async fn pump_until(
    env: &TestEnv,
    workers: &devstack::Workers,
    id: Uuid,
    done: impl Fn(&Verification) -> bool,
) -> bool {
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    for _ in 0..20 {
        devstack::pump::pump_documents_once(
            &sqs,
            &env.created.documents_queue_url,
            &workers.analysis,
            0,
        )
        .await
        .unwrap();
        if done(&stored(env, id).await) {
            return true;
        }
    }
    false
}

/// The bucket's notification for one object, as the documents queue delivers it.
fn notification(key: &str, size: u64, etag: &str, receive: u32) -> SqsEvent {
    let body = json!({"Records": [{
        "eventName": "ObjectCreated:Post",
        "s3": {"object": {"key": key, "size": size, "eTag": etag}},
    }]});
    let mut message = SqsMessage::default();
    message.message_id = Some(format!("{etag}-{receive}"));
    message.body = Some(body.to_string());
    message
        .attributes
        .insert("ApproximateReceiveCount".into(), receive.to_string());
    let mut event = SqsEvent::default();
    event.records.push(message);
    event
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_goes_from_the_page_through_the_bucket_to_the_report() {
    let env = common::env().await;
    let workers = env.workers();
    let (id, link) = consented(&env).await;
    let html = get_page(&env, &link).await;
    let (action, fields) = upload_form(&html).expect("the page offers an upload");
    assert!(action.ends_with(&format!("/{}", env.names.documents_bucket)));
    // A text file first: it reaches the bucket (moto enforces no policy) and is refused.
    let (status, location) = post_file(&action, &fields, "stub.pdf", b"Net pay 1,900.00").await;
    assert_eq!(status, 303);
    let back = location.expect("S3 sends the browser back");
    assert!(back.starts_with(&format!("{}{link}", env.base)), "{back}");
    pump_until_analysed(&env, &workers, id, 1).await;
    let v = stored(&env, id).await;
    let refused = v.documents.values().next().unwrap();
    assert_eq!(refused.state, DocumentState::Refused);
    assert_eq!(
        refused.refusal.as_deref(),
        Some("the file is not a PDF, a JPEG or a PNG")
    );
    // Then a photo, on a fresh form: undetermined, its figures typed by the tenant.
    let html = get_page(&env, &link).await;
    assert!(html.contains("not accepted: the file is not a PDF, a JPEG or a PNG"));
    let (action, fields) = upload_form(&html).unwrap();
    assert_eq!(
        post_file(&action, &fields, "stub.png", &TINY_PNG).await.0,
        303
    );
    pump_until_analysed(&env, &workers, id, 2).await;
    let v = stored(&env, id).await;
    assert_eq!(v.status, Status::InProgress);
    let (photo, _) = v
        .documents
        .iter()
        .find(|(_, d)| d.state == DocumentState::Analysed)
        .expect("the photo is analysed");
    let today = chrono::Utc::now().date_naive();
    let typed = format!(
        "action=state_pay&document={photo}&pay_date={today}&gross=3000.00&net=2300.00&frequency=semi_monthly"
    );
    assert_eq!(post_page(&env, &link, &typed).await.0, 303);
    assert_eq!(
        post_page(&env, &link, "action=finish_documents").await.0,
        303
    );
    let got = env.get_verification(&env.test_key, id).await;
    assert_eq!(got.body["data"]["status"], "completed", "{}", got.raw);
    let report = &got.body["data"]["income_report"];
    assert_eq!(report["verification_method"], "document");
    assert_eq!(report["needs_review"], true);
    // Every upload is listed: the refused file first, never counted, with its refusal.
    assert_eq!(report["documents"].as_array().unwrap().len(), 2);
    let refused = &report["documents"][0];
    assert_eq!(refused["name"], "Document 1");
    assert_eq!(refused["refused"], true);
    assert_eq!(refused["counted"], false);
    assert_eq!(refused["reason"], "the file is not a PDF, a JPEG or a PNG");
    assert_eq!(report["documents"][1]["verdict"], "undetermined");
    assert_eq!(report["documents"][1]["stated_by_tenant"], true);
    assert!(report["documents"][1].get("refused").is_none());
    // Typed figures count once the landlord accepts them; the acceptance computes the report
    // again, through the store's one conditional write.
    assert_eq!(report["total_monthly_income"], 0.0);
    assert_eq!(
        report["awaiting_review"]["total_monthly_income_if_accepted"],
        6000.0
    );
    assert_eq!(report["revision"], 1);
    let accepted = json!({"decision": "accepted", "note": "Matches the employer's letter."});
    let done = env.review_documents(&env.test_key, id, accepted).await;
    assert_eq!(done.status, 200, "{}", done.raw);
    let got = env.get_verification(&env.test_key, id).await;
    let report = &got.body["data"]["income_report"];
    assert_eq!(report["total_monthly_income"], 6000.0, "{}", got.raw);
    assert_eq!(report["revision"], 2);
    assert_eq!(report["documents"][1]["counted"], true);
    assert_eq!(
        report["documents"][0]["counted"], false,
        "an acceptance never counts a refused file"
    );
    assert!(report.get("awaiting_review").is_none());
    let v = stored(&env, id).await;
    assert_eq!(
        v.income_report.unwrap().verification_method,
        VerificationMethod::Document
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_object_event_twice_records_once_and_a_fault_ends_undetermined() {
    let env = common::env().await;
    let mut workers = env.workers();
    let (id, _) = consented(&env).await;
    let s3 = adapters::s3::s3_client(&env.sdk);
    let put = |doc: &'static str| {
        let s3 = s3.clone();
        let bucket = env.names.documents_bucket.clone();
        async move {
            s3.put_object()
                .bucket(bucket)
                .key(object_key(id, doc))
                .body(TINY_PNG.to_vec().into())
                .send()
                .await
                .unwrap();
        }
    };
    put("twice").await;
    let event = notification(&object_key(id, "twice"), 67, "etag-twice", 1);
    assert!(
        analyze_documents(&workers.analysis, event.clone())
            .await
            .batch_item_failures
            .is_empty()
    );
    let first = stored(&env, id).await;
    assert_eq!(first.documents["twice"].state, DocumentState::Analysed);
    assert!(
        analyze_documents(&workers.analysis, event)
            .await
            .batch_item_failures
            .is_empty()
    );
    let again = stored(&env, id).await;
    assert_eq!(
        again.documents_rev, first.documents_rev,
        "nothing written the second time"
    );
    assert_eq!(again.uploads, 1);

    workers.analysis.analyse = std::sync::Arc::new(|_, _| panic!("injected fault in the analysis"));
    put("faulty").await;
    let key = object_key(id, "faulty");
    for receive in 1..3 {
        let response =
            analyze_documents(&workers.analysis, notification(&key, 67, "etag-f", receive)).await;
        assert_eq!(
            response.batch_item_failures.len(),
            1,
            "receive {receive} is retried"
        );
        assert_eq!(
            stored(&env, id).await.documents["faulty"].state,
            DocumentState::Analysing
        );
    }
    let last = analyze_documents(&workers.analysis, notification(&key, 67, "etag-f", 3)).await;
    assert!(last.batch_item_failures.is_empty());
    let d = stored(&env, id).await.documents["faulty"].clone();
    let analysis = d.analysis.unwrap();
    assert_eq!(
        (d.state, analysis.verdict),
        (DocumentState::Analysed, Verdict::Undetermined)
    );
    assert_eq!(
        analysis.reason.as_deref(),
        Some("the analysis could not finish: it failed 2 times")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completion_from_a_stale_read_of_the_documents_is_refused() {
    let env = common::env().await;
    let workers = env.workers();
    let (id, _) = consented(&env).await;
    let read = stored(&env, id).await;
    // An upload is recorded after the read.
    adapters::s3::s3_client(&env.sdk)
        .put_object()
        .bucket(&env.names.documents_bucket)
        .key(object_key(id, "late"))
        .body(TINY_PNG.to_vec().into())
        .send()
        .await
        .unwrap();
    let event = notification(&object_key(id, "late"), 67, "etag-late", 1);
    analyze_documents(&workers.analysis, event).await;
    let report = domain::documents::finish::document_report(&read, chrono::Utc::now().date_naive());
    let done = Transition::Complete {
        report: Box::new(report),
    };
    let outcome = env
        .store
        .transition(&read, &done, chrono::Utc::now())
        .await
        .unwrap();
    assert!(matches!(outcome, TransitionOutcome::Conflict(Some(_))));
    assert_eq!(stored(&env, id).await.status, Status::InProgress);
}

/// The sandbox's samples on moto: the page links them, a download is the tenant's own sample,
/// and uploaded through the page's form each gets the verdict it shows in the report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_samples_download_from_the_page_and_show_their_verdicts_in_the_report() {
    use domain::documents::samples::Sample;
    let env = common::env().await;
    let workers = env.workers();
    let (id, link) = consented(&env).await;
    for (count, sample) in [Sample::Earlier, Sample::AppendedEdit]
        .into_iter()
        .enumerate()
    {
        let html = get_page(&env, &link).await;
        let path = format!("{link}/samples/{}.pdf", sample.slug());
        assert!(html.contains(&path), "the page links {path}");
        let download = client()
            .get(format!("{}{path}", env.base))
            .send()
            .await
            .unwrap();
        assert_eq!(download.status(), 200);
        let bytes = download.bytes().await.unwrap().to_vec();
        let (action, fields) = upload_form(&html).expect("the page offers an upload");
        let name = sample.file_name();
        assert_eq!(post_file(&action, &fields, &name, &bytes).await.0, 303);
        pump_until_analysed(&env, &workers, id, count + 1).await;
    }
    assert_eq!(
        post_page(&env, &link, "action=finish_documents").await.0,
        303
    );
    let got = env.get_verification(&env.test_key, id).await;
    assert_eq!(got.body["data"]["status"], "completed", "{}", got.raw);
    let report = &got.body["data"]["income_report"];
    assert_eq!(report["needs_review"], true, "an edited document is in it");
    let documents = report["documents"].as_array().unwrap();
    let verdict_of = |name: &str| {
        let d = (documents.iter())
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {documents:?}"));
        let failed: Vec<&str> = (d["checks"].as_array().unwrap().iter())
            .filter(|c| c["result"] == "fail")
            .map(|c| c["check"].as_str().unwrap())
            .collect();
        (d["verdict"].as_str().unwrap().to_string(), failed)
    };
    // The report names documents by their order, not by the tenant's file names.
    assert_eq!(verdict_of("Document 1"), ("clean".into(), vec![]));
    assert_eq!(
        verdict_of("Document 2"),
        ("edited".into(), vec!["incremental_updates", "overlays"])
    );
    // The landlord's PDF names the flagged document and why; its pages as PNGs for a person.
    let pdf = common::landlord_pdf(&env, &env.test_key, &id.to_string()).await;
    let path = common::artifacts_dir().join("documents-report-edited.pdf");
    let text = common::pdf_text(&pdf, &path);
    for expected in [
        "Document 2 (pay stub): signs of editing found (incremental_updates, overlays); not \
         counted.",
        "Document 1 (pay stub): no sign of editing found.",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    let status = std::process::Command::new("pdftoppm")
        .args(["-png", "-r", "80"])
        .arg(&path)
        .arg(path.with_extension(""))
        .status()
        .expect("pdftoppm runs");
    assert!(status.success());
}
