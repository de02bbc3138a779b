//! The upload and analysis of documents with fakes: the in-memory store, a bucket in memory and a
//! signer with example credentials. The analysis handler (idempotent per object, what arrived
//! checked first, retries ending `undetermined`, the upload cap) and the tenant page (the upload
//! form, typed figures, finishing with documents into the report).

use adapters::live_provider::LiveProvider;
use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use chrono::Duration;
use domain::documents::record::{DocumentState, MAX_UPLOADS, object_key};
use domain::documents::reuse::FingerprintKey;
use domain::documents::{Analysis, CheckResult, DocumentKind, Verdict};
use domain::income::VerificationMethod;
use domain::methods::{AttemptOutcome, MethodAttempt};
use domain::{Mode, NewVerificationInput, Status, Transition, Verification};
use ports::store::prelude::*;
use service::handlers::analyze_document::{AnalysisDeps, analyze_documents};
use service::handlers::tenant_portal::documents::DocumentUploads;
use service::handlers::tenant_portal::{PortalDeps, tenant_portal};
use service::http::ApiRequest;
use service::sandbox::SandboxProvider;
use test_support::{ExampleSigner, ManualClock, MemoryObjects, MemoryStore, active_account};

use crate::support::now;

/// The smallest PNG (1 x 1 pixel, 67 bytes): a photo, which the analysis can't read.
pub(crate) const PNG: [u8; 67] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

pub(crate) struct Rig {
    pub(crate) store: MemoryStore,
    pub(crate) objects: MemoryObjects,
    clock: ManualClock,
    pub(crate) v: Verification,
    token: String,
}

pub(crate) async fn rig() -> Rig {
    rig_with(vec![], vec![]).await
}

/// A rig whose verification names `methods` and has left the tries of `attempts`.
pub(crate) async fn rig_with(
    methods: Vec<VerificationMethod>,
    attempts: Vec<MethodAttempt>,
) -> Rig {
    let store = MemoryStore::new();
    store
        .put_account(&active_account("acct_docs", "pro", now()))
        .await
        .unwrap();
    let tenant = ("jane+good@example.com", Some("Jane Q. Doe"));
    let (v, token) = consented(&store, tenant, methods, attempts).await;
    Rig {
        store,
        objects: MemoryObjects::default(),
        clock: ManualClock::at(now() + Duration::minutes(1)),
        v,
        token,
    }
}

/// A verification of `acct_docs` for the tenant `(email, name)`, consented: in progress.
async fn consented(
    store: &MemoryStore,
    (email, name): (&str, Option<&str>),
    methods: Vec<VerificationMethod>,
    attempts: Vec<MethodAttempt>,
) -> (Verification, String) {
    let input = NewVerificationInput {
        tenant_email: email.into(),
        tenant_name: name.map(str::to_string),
        monthly_rent: Some(1000.0),
        ..Default::default()
    };
    let mut v = Verification::new_pending("acct_docs", Mode::Test, input, now(), Duration::days(7));
    v.methods = methods;
    v.method_attempts = attempts;
    let (token, hash) = domain::secrets::generate_link_token();
    v.token_hashes = vec![hash];
    store.insert_verification(&v);
    let consent = Transition::Consent {
        version: "test".into(),
        provider_user: None,
        methods: vec![],
    };
    store.transition(&v, &consent, now()).await.unwrap();
    (store.verification(v.verification_id).unwrap(), token)
}

fn panics() -> service::handlers::analyze_document::Analyse {
    std::sync::Arc::new(|_, _| panic!("injected fault in the analysis"))
}

impl Rig {
    pub(crate) fn analysis(&self) -> AnalysisDeps<MemoryStore, MemoryObjects, ManualClock> {
        AnalysisDeps {
            store: self.store.clone(),
            objects: self.objects.clone(),
            clock: self.clock.clone(),
            analyse: service::handlers::analyze_document::in_process(),
            time_limit: std::time::Duration::from_secs(10),
            max_receives: 3,
            fingerprint_key: FingerprintKey::new(b"the tests' fingerprint key, 32+ bytes".to_vec())
                .unwrap(),
        }
    }

    /// Another tenant's verification on the same store and bucket.
    async fn another(&self, tenant: (&str, Option<&str>)) -> Rig {
        let (v, token) = consented(&self.store, tenant, vec![], vec![]).await;
        Rig {
            store: self.store.clone(),
            objects: self.objects.clone(),
            clock: self.clock.clone(),
            v,
            token,
        }
    }

    fn portal(&self) -> PortalDeps<MemoryStore, ManualClock, LiveProvider, ExampleSigner> {
        PortalDeps {
            store: self.store.clone(),
            clock: self.clock.clone(),
            live_provider: LiveProvider::none(),
            sandbox: SandboxProvider,
            link_window: domain::retention::LinkWindow::DEFAULT,
            uploads: Some(DocumentUploads {
                signer: ExampleSigner {
                    bucket: "docs".into(),
                },
                base_url: Some("https://verify.example.com".into()),
            }),
        }
    }

    pub(crate) fn stored(&self) -> Verification {
        self.store.verification(self.v.verification_id).unwrap()
    }

    /// Uploads `bytes` as document `doc` and returns the notification's SQS event.
    pub(crate) fn upload(&self, doc: &str, bytes: &[u8], etag: &str) -> SqsEvent {
        let key = object_key(self.v.verification_id, doc);
        self.objects.put(&key, bytes);
        event(&key, bytes.len() as u64, etag, 1)
    }

    /// Posts `bytes` as a new version of document `doc`; the notification names the version, as
    /// a versioned bucket's does on AWS (receive `receive`).
    pub(crate) fn upload_version(
        &self,
        doc: &str,
        bytes: &[u8],
        etag: &str,
        receive: u32,
    ) -> (SqsEvent, String) {
        let key = object_key(self.v.verification_id, doc);
        let version = self.objects.put(&key, bytes);
        let mut e = event(&key, bytes.len() as u64, etag, receive);
        let mut body: serde_json::Value =
            serde_json::from_str(e.records[0].body.as_deref().unwrap()).unwrap();
        body["Records"][0]["s3"]["object"]["versionId"] = version.clone().into();
        e.records[0].body = Some(body.to_string());
        (e, version)
    }

    fn link(&self) -> String {
        format!("/t/{}/{}", self.v.verification_id, self.token)
    }

    pub(crate) async fn page(&self, form: Option<&str>) -> service::http::ApiResponse {
        let (method, body) = match form {
            Some(f) => (http::Method::POST, f.as_bytes().to_vec()),
            None => (http::Method::GET, vec![]),
        };
        let mut headers = http::HeaderMap::new();
        headers.insert("host", "verify.example.com".parse().unwrap());
        let req = ApiRequest {
            method,
            path: self.link(),
            query: Default::default(),
            headers,
            body,
            request_id: "req-docs".into(),
        };
        tenant_portal(&self.portal(), req).await
    }
}

fn event(key: &str, size: u64, etag: &str, receive: u32) -> SqsEvent {
    let body = serde_json::json!({"Records": [{
        "eventName": "ObjectCreated:Post",
        "s3": {"bucket": {"name": "docs"}, "object": {"key": key, "size": size, "eTag": etag}},
    }]});
    let mut message = SqsMessage::default();
    message.message_id = Some(format!("m-{etag}-{receive}"));
    message.body = Some(body.to_string());
    message
        .attributes
        .insert("ApproximateReceiveCount".into(), receive.to_string());
    let mut e = SqsEvent::default();
    e.records.push(message);
    e
}

#[tokio::test]
async fn a_photo_is_analysed_once_per_object_and_the_same_event_twice_records_once() {
    let rig = rig().await;
    let deps = rig.analysis();
    let e = rig.upload("d1", &PNG, "etag1");
    assert!(
        analyze_documents(&deps, e.clone())
            .await
            .batch_item_failures
            .is_empty()
    );
    let first = rig.stored();
    let d = &first.documents["d1"];
    assert_eq!(d.state, DocumentState::Analysed);
    assert_eq!((d.number, first.uploads), (1, 1));
    let analysis = d.analysis.as_ref().unwrap();
    assert_eq!(
        (analysis.kind, analysis.verdict),
        (DocumentKind::Photo, Verdict::Undetermined)
    );
    assert!(d.needs_stated_pay());
    // The same notification again: nothing read, nothing written.
    assert!(
        analyze_documents(&deps, e)
            .await
            .batch_item_failures
            .is_empty()
    );
    assert_eq!(rig.objects.reads(), 1);
    assert_eq!(rig.stored().documents_rev, first.documents_rev);
    assert_eq!(rig.stored().status, Status::InProgress, "stays in progress");
}

/// The reuse check: the same file from another tenant fails it (and the document is `edited`);
/// from the same tenant again, under a second address, it passes; a retried analysis adds no
/// submission.
#[tokio::test]
async fn the_same_file_from_another_tenant_fails_the_reuse_check_and_names_no_one() {
    let jane = rig().await;
    let analysed = |rig: &Rig, doc: &str| {
        let d = rig.stored().documents[doc].clone();
        d.analysis.expect("analysed")
    };
    let reuse = |a: &Analysis| {
        let c = a.check(domain::documents::names::REUSE).unwrap().clone();
        (c.result, c.evidence)
    };
    let e = jane.upload("d1", &PNG, "e1");
    assert!(
        analyze_documents(&jane.analysis(), e)
            .await
            .batch_item_failures
            .is_empty()
    );
    let first = analysed(&jane, "d1");
    assert_eq!(reuse(&first).0, CheckResult::Pass);
    assert_eq!(first.verdict, Verdict::Undetermined, "a photo, unchanged");

    let again = jane
        .another(("jane.work@example.com", Some("Jane Doe")))
        .await;
    let e = again.upload("d1", &PNG, "e2");
    assert!(
        analyze_documents(&again.analysis(), e)
            .await
            .batch_item_failures
            .is_empty()
    );
    let (result, evidence) = reuse(&analysed(&again, "d1"));
    assert_eq!(result, CheckResult::Pass, "{evidence}");
    assert!(
        evidence.contains("1 earlier submission by this tenant"),
        "{evidence}"
    );

    let sam = jane.another(("sam@example.com", Some("Sam Roe"))).await;
    let e = sam.upload("d1", &PNG, "e3");
    assert!(
        analyze_documents(&sam.analysis(), e)
            .await
            .batch_item_failures
            .is_empty()
    );
    let reused = analysed(&sam, "d1");
    let (result, evidence) = reuse(&reused);
    assert_eq!(result, CheckResult::Fail);
    assert_eq!(reused.verdict, Verdict::Inconsistent);
    assert!(
        evidence.contains("another tenant in the last 90 days (2 times)"),
        "{evidence}"
    );
    for secret in [
        jane.v.verification_id.to_string(),
        "jane".to_string(),
        "acct_docs".to_string(),
    ] {
        assert!(!evidence.contains(&secret), "{evidence}");
    }
    // Jane's next upload of the file now meets Sam's submission too: the check says the file
    // went to another tenant, not which of them it belongs to.
    let e = jane.upload("d2", &PNG, "e4");
    assert!(
        analyze_documents(&jane.analysis(), e)
            .await
            .batch_item_failures
            .is_empty()
    );
    assert_eq!(reuse(&analysed(&jane, "d2")).0, CheckResult::Fail);
}

#[tokio::test]
async fn what_arrived_is_checked_first_an_oversized_object_is_never_read() {
    let rig = rig().await;
    let deps = rig.analysis();
    let key = object_key(rig.v.verification_id, "big");
    let e = event(&key, 11 * 1024 * 1024, "etag-big", 1);
    assert!(
        analyze_documents(&deps, e)
            .await
            .batch_item_failures
            .is_empty()
    );
    let d = &rig.stored().documents["big"];
    assert_eq!(d.state, DocumentState::Refused);
    assert!(d.refusal.as_deref().unwrap().contains("10 MB"), "{d:?}");
    assert_eq!(rig.objects.reads(), 0);
    // Not a PDF, a JPEG or a PNG: refused with a clear message, whatever its name.
    let e = rig.upload("txt", b"Gross pay 2,500.00", "etag-txt");
    assert!(
        analyze_documents(&deps, e)
            .await
            .batch_item_failures
            .is_empty()
    );
    let d = &rig.stored().documents["txt"];
    assert_eq!(d.state, DocumentState::Refused);
    assert_eq!(
        d.refusal.as_deref(),
        Some("the file is not a PDF, a JPEG or a PNG")
    );
}

#[tokio::test]
async fn an_analysis_that_keeps_failing_ends_undetermined_with_its_reason() {
    let rig = rig().await;
    let mut deps = rig.analysis();
    deps.analyse = panics();
    let key = object_key(rig.v.verification_id, "d1");
    rig.objects.put(&key, &PNG);
    for receive in 1..3 {
        let response = analyze_documents(&deps, event(&key, 16, "e1", receive)).await;
        assert_eq!(response.batch_item_failures.len(), 1, "retried");
        assert_eq!(rig.stored().documents["d1"].state, DocumentState::Analysing);
    }
    // The queue's last receive records the document instead of trying again.
    let response = analyze_documents(&deps, event(&key, 16, "e1", 3)).await;
    assert!(response.batch_item_failures.is_empty());
    let d = &rig.stored().documents["d1"];
    assert_eq!(d.state, DocumentState::Analysed);
    let analysis = d.analysis.as_ref().unwrap();
    assert_eq!(analysis.verdict, Verdict::Undetermined);
    assert_eq!(
        analysis.reason.as_deref(),
        Some("the analysis could not finish: it failed 2 times")
    );
    // The storage down: retried, nothing recorded beyond the arrival (its notification names
    // its version, so the claim comes before any call to the bucket).
    let (e, _) = rig.upload_version("d2", &PNG, "e2", 1);
    rig.objects.set_down(true);
    assert_eq!(
        analyze_documents(&rig.analysis(), e)
            .await
            .batch_item_failures
            .len(),
        1
    );
    assert_eq!(rig.stored().documents["d2"].state, DocumentState::Analysing);
}

#[tokio::test]
async fn uploads_are_capped_and_a_closed_verification_takes_none() {
    let rig = rig().await;
    let deps = rig.analysis();
    let mut v = rig.stored();
    v.uploads = MAX_UPLOADS;
    rig.store.insert_verification(&v);
    let e = rig.upload("late", &PNG, "e-late");
    assert!(
        analyze_documents(&deps, e)
            .await
            .batch_item_failures
            .is_empty()
    );
    assert!(rig.stored().documents.is_empty());
    assert_eq!(rig.objects.reads(), 0);
    v.uploads = 0;
    v.status = Status::Completed;
    rig.store.insert_verification(&v);
    let e = rig.upload("after", &PNG, "e-after");
    assert!(
        analyze_documents(&deps, e)
            .await
            .batch_item_failures
            .is_empty()
    );
    assert!(rig.stored().documents.is_empty());
}

#[tokio::test]
async fn the_page_offers_a_signed_upload_straight_to_the_bucket() {
    let rig = rig().await;
    let page = rig.page(None).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Or upload documents"));
    assert!(page.body.contains(r#"action="https://docs.example""#));
    let key = object_key(rig.v.verification_id, "");
    assert!(page.body.contains(&format!(r#"name="key" value="{key}"#)));
    assert!(page.body.contains(&format!(
        r#"name="success_action_redirect" value="https://verify.example.com{}""#,
        rig.link()
    )));
    let csp = page
        .headers
        .iter()
        .find(|(n, _)| n == "content-security-policy")
        .unwrap();
    assert!(
        csp.1.contains("form-action 'self' https://docs.example"),
        "{}",
        csp.1
    );
    // Nothing to finish yet.
    let refused = rig.page(Some("action=finish_documents")).await;
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("upload at least one document"));
}

#[tokio::test]
async fn a_photo_s_typed_figures_and_finishing_make_a_document_report() {
    let rig = rig().await;
    let e = rig.upload("d1", &PNG, "e1");
    analyze_documents(&rig.analysis(), e).await;
    // Not before the photo's figures are typed.
    let refused = rig.page(Some("action=finish_documents")).await;
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("type the pay date"));
    let bad = rig
        .page(Some(
            "action=state_pay&document=d1&pay_date=2026-03-06&gross=100&net=200&frequency=biweekly",
        ))
        .await;
    assert_eq!(bad.status, 400);
    let typed = rig
        .page(Some("action=state_pay&document=d1&pay_date=2026-03-06&gross=2%2C500.00&net=1900&frequency=biweekly"))
        .await;
    assert_eq!(typed.status, 303);
    let stated = rig.stored().documents["d1"].stated.clone().unwrap();
    assert_eq!((stated.gross_cents, stated.net_cents), (250_000, 190_000));
    let done = rig.page(Some("action=finish_documents")).await;
    assert_eq!(done.status, 303);
    let v = rig.stored();
    assert_eq!(v.status, Status::Completed);
    let report = v.income_report.unwrap();
    assert_eq!(report.verification_method, VerificationMethod::Document);
    assert_eq!(report.needs_review, Some(true));
    let documents = report.documents.unwrap();
    assert_eq!(documents.len(), 1);
    assert_eq!(documents[0].name, "Document 1");
    // Typed figures wait on the landlord's acceptance: named, with the total they would make.
    assert!(documents[0].stated_by_tenant && !documents[0].counted);
    assert!(documents[0].awaiting_review);
    assert_eq!(documents[0].verdict, Verdict::Undetermined);
    assert_eq!(report.total_monthly_income, 0.0);
    assert_eq!(report.passes_3x_rule, Some(false));
    let awaiting = report.awaiting_review.clone().unwrap();
    assert_eq!(awaiting.documents, ["Document 1"]);
    assert_eq!(awaiting.total_monthly_income_if_accepted, 5416.67);
    assert_eq!(report.revision, 1);
}

#[tokio::test]
async fn finishing_waits_while_a_document_is_analysed() {
    let rig = rig().await;
    let mut deps = rig.analysis();
    deps.analyse = panics();
    let e = rig.upload("d1", &PNG, "e1");
    analyze_documents(&deps, e).await;
    let waiting = rig.page(Some("action=finish_documents")).await;
    assert_eq!(waiting.status, 400);
    assert!(waiting.body.contains("still being checked"));
    assert_eq!(rig.stored().status, Status::InProgress);
    let page = rig.page(None).await;
    assert!(page.body.contains("being checked; refresh this page"));
}

#[tokio::test]
async fn the_report_pdf_and_the_tenant_s_copy_show_each_verdict_in_plain_words() {
    let rig = rig().await;
    let e = rig.upload("d1", &PNG, "e1");
    analyze_documents(&rig.analysis(), e).await;
    let form =
        "action=state_pay&document=d1&pay_date=2026-03-06&gross=2500&net=1900&frequency=biweekly";
    assert_eq!(rig.page(Some(form)).await.status, 303);
    assert_eq!(rig.page(Some("action=finish_documents")).await.status, 303);
    let summary = "Document 1 (photo or scan): could not be checked: the document is a photo or a \
                   scan without text: its figures can't be checked; its pay date, gross and net \
                   pay were typed by the tenant; counted once the landlord accepts it.";
    let copy = rig.page(None).await;
    assert!(copy.body.contains("Your documents"), "{}", copy.body);
    let escaped = service::handlers::html::esc(summary);
    assert!(copy.body.contains(&escaped), "{}", copy.body);
    let v = rig.stored();
    let pdf = domain::report_pdf::report_pdf(&v, now());
    let path = crate::report_pdf::artifacts_dir().join("documents-report.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = crate::report_pdf::squeeze(&crate::report_pdf::pdf_text(&path));
    for expected in [
        "Documents (1)",
        "Needs review: a document shows signs of editing or inconsistencies",
        summary,
        "text layer unknown a PNG image: no text to read",
        "Verification method document",
        "Awaiting review Document 1 not counted until the landlord accepts them; income would \
         then be 5,416.67",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    // Every page as a PNG beside it, for a person to look at.
    let status = std::process::Command::new("pdftoppm")
        .args(["-png", "-r", "80"])
        .arg(&path)
        .arg(path.with_extension(""))
        .status()
        .expect("pdftoppm runs");
    assert!(status.success());
}

#[tokio::test]
async fn uploads_are_a_method_a_verification_without_document_is_not_offered() {
    let rig = rig_with(vec![VerificationMethod::Bank], vec![]).await;
    let page = rig.page(None).await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("Or upload documents"));
    let e = rig.upload("d1", &PNG, "e1");
    analyze_documents(&rig.analysis(), e).await;
    let typed =
        "action=state_pay&document=d1&pay_date=2026-03-06&gross=2500&net=1900&frequency=biweekly";
    rig.page(Some(typed)).await;
    // Finishing with documents is no way out of the landlord's methods.
    rig.page(Some("action=finish_documents")).await;
    assert_eq!(rig.stored().status, Status::InProgress);
}

#[tokio::test]
async fn documents_after_a_failed_bank_try_make_a_document_report_with_every_try() {
    use VerificationMethod::{Bank, Document};
    let failed = MethodAttempt {
        method: Bank,
        outcome: AttemptOutcome::Failed,
        at: now(),
    };
    let rig = rig_with(vec![Bank, Document], vec![failed]).await;
    assert!(rig.page(None).await.body.contains("Or upload documents"));
    let e = rig.upload("d1", &PNG, "e1");
    analyze_documents(&rig.analysis(), e).await;
    let typed =
        "action=state_pay&document=d1&pay_date=2026-03-06&gross=2500&net=1900&frequency=biweekly";
    assert_eq!(rig.page(Some(typed)).await.status, 303);
    assert_eq!(rig.page(Some("action=finish_documents")).await.status, 303);
    let report = rig.stored().income_report.unwrap();
    assert_eq!(report.verification_method, Document);
    assert_eq!(report.methods_used, vec![Document]);
    let tries: Vec<_> = report
        .attempts
        .iter()
        .map(|a| (a.method, a.outcome))
        .collect();
    assert_eq!(
        tries,
        vec![
            (Bank, AttemptOutcome::Failed),
            (Document, AttemptOutcome::Succeeded)
        ]
    );
}
