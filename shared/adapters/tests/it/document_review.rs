//! `POST /api/v1/verify/review` on the in-memory store: the landlord's review of a completed
//! verification's documents, kept once in the report, shown by GET /verify and the PDF; each
//! refusal with its code, every request metered.

use chrono::Duration;
use domain::Status;
use domain::report::IncomeReport;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::handlers::api::ApiDeps;
use service::handlers::get_report::get_report;
use service::handlers::get_verification::get_verification;
use service::handlers::review_documents::review_documents;
use service::http::{ApiRequest, ApiResponse};
use test_support::{ManualClock, MemoryStore};
use uuid::Uuid;

use crate::handlers_api::{ACCOUNT, created_id, deps_with, refusal, with_id};
use crate::report_pdf::{artifacts_dir, pdf_text, squeeze};
use crate::support::{body, now};

fn review_request(key: &str, id: Uuid, review: &Value) -> ApiRequest {
    ApiRequest::new(
        http::Method::POST,
        &format!("/api/v1/verify/review?verification_id={id}"),
    )
    .with_header("authorization", &format!("Bearer {key}"))
    .with_header("content-type", "application/json")
    .with_body(review.to_string())
}

async fn review(
    deps: &ApiDeps<MemoryStore, ManualClock>,
    key: &str,
    id: Uuid,
    body: Value,
) -> ApiResponse {
    review_documents(deps, review_request(key, id, &body)).await
}

async fn requests_today(store: &MemoryStore) -> u32 {
    let account = store.get_account(ACCOUNT).await.unwrap().unwrap();
    account.api_requests
}

/// Completes the stored verification with a report, from documents when `documents`.
fn complete(store: &MemoryStore, id: Uuid, documents: bool) {
    let mut v = store.verification(id).unwrap();
    let mut report = IncomeReport::empty_for_tests();
    if documents {
        report.documents = Some(vec![]);
        report.needs_review = Some(true);
    }
    v.status = Status::Completed;
    v.completed_at = Some(now());
    v.income_report = Some(report);
    store.insert_verification(&v);
}

fn accepted() -> Value {
    json!({"decision": "accepted", "note": "Stubs match the employer's letter."})
}

#[tokio::test]
async fn a_review_is_kept_once_in_the_report_and_each_refusal_has_its_code() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    let before = requests_today(&deps.store).await;

    let pending = review(&deps, key, id, accepted()).await;
    assert_eq!(refusal(&pending), (409, "report_not_ready".into()));
    complete(&deps.store, id, false);
    let from_a_bank = review(&deps, key, id, accepted()).await;
    assert_eq!(refusal(&from_a_bank), (409, "no_documents".into()));
    complete(&deps.store, id, true);
    let other_mode = review(&deps, &keys.live.secret, id, accepted()).await;
    assert_eq!(refusal(&other_mode), (404, "not_found".into()));
    let unknown = review(&deps, key, Uuid::new_v4(), accepted()).await;
    assert_eq!(refusal(&unknown), (404, "not_found".into()));
    let invalid = review(&deps, key, id, json!({"decision": "fine", "note": ""})).await;
    assert_eq!(refusal(&invalid), (400, "validation_error".into()));
    let fields: Vec<String> = body(&invalid)["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(fields, ["decision", "note"]);
    let not_json = review_documents(
        &deps,
        review_request(key, id, &json!(1)).with_header("content-type", "text/plain"),
    )
    .await;
    assert_eq!(refusal(&not_json), (415, "unsupported_media_type".into()));
    assert_eq!(
        requests_today(&deps.store).await,
        before + 6,
        "each refusal counted"
    );
    assert_eq!(
        deps.store
            .verification(id)
            .unwrap()
            .income_report
            .unwrap()
            .document_review,
        None,
        "no refusal wrote"
    );

    let first = review(&deps, key, id, accepted()).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let recorded = &body(&first)["data"]["document_review"];
    assert_eq!(recorded["decision"], "accepted");
    assert_eq!(recorded["note"], "Stubs match the employer's letter.");
    assert_eq!(recorded["reviewed_at"], "2026-03-10T12:00:00.000Z");
    assert!(first.header("x-ratelimit-remaining").is_some());

    deps.clock.advance(Duration::minutes(5));
    let second = review(
        &deps,
        key,
        id,
        json!({"decision": "rejected", "note": "Changed my mind"}),
    )
    .await;
    assert_eq!(refusal(&second), (409, "already_reviewed".into()));
    assert!(
        body(&second)["error"]
            .as_str()
            .unwrap()
            .contains("accepted, at 2026-03-10T12:00:00.000Z"),
        "{}",
        second.body
    );
    assert_eq!(requests_today(&deps.store).await, before + 8);

    let shown = get_verification(&deps, with_id(http::Method::GET, key, &id.to_string())).await;
    assert_eq!(
        body(&shown)["data"]["income_report"]["document_review"],
        *recorded,
        "the first review stands"
    );
}

#[tokio::test]
async fn of_two_reviews_at_once_exactly_one_is_kept() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    complete(&deps.store, id, true);
    let rejected = json!({"decision": "rejected", "note": "Net pay edited."});
    let (a, b) = futures::join!(
        review(&deps, key, id, accepted()),
        review(&deps, key, id, rejected)
    );
    let mut statuses = [a.status, b.status];
    statuses.sort();
    assert_eq!(statuses, [200, 409]);
    let winner = if a.status == 200 { &a } else { &b };
    let kept = deps.store.verification(id).unwrap().income_report.unwrap();
    assert_eq!(
        kept.document_review.unwrap().note,
        body(winner)["data"]["document_review"]["note"]
    );
}

#[tokio::test]
async fn the_pdf_shows_the_review_with_its_note() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    complete(&deps.store, id, true);
    let note = json!({"decision": "rejected", "note": "Net pay on stub 2 was edited."});
    assert_eq!(review(&deps, key, id, note).await.status, 200);
    let pdf = get_report(
        &deps,
        ApiRequest::new(
            http::Method::GET,
            &format!("/api/v1/verify/report?verification_id={id}"),
        )
        .with_header("authorization", &format!("Bearer {key}")),
    )
    .await;
    assert_eq!(pdf.status, 200);
    let path = artifacts_dir().join("report-document-review.pdf");
    std::fs::write(&path, pdf.binary.expect("a binary body")).unwrap();
    let text = squeeze(&pdf_text(&path));
    assert!(
        text.contains("Landlord's review rejected on 2026-03-10 12:00:00 UTC"),
        "{text}"
    );
    assert!(text.contains("Net pay on stub 2 was edited."), "{text}");
}

#[tokio::test]
async fn a_recorded_review_makes_one_reviewed_webhook_with_the_review() {
    use service::handlers::outbox_work::reviewed_webhook_message;
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    complete(&deps.store, id, true);
    assert_eq!(review(&deps, key, id, accepted()).await.status, 200);
    let reviewed = deps.store.verification(id).unwrap();
    assert_eq!(reviewed_webhook_message(&reviewed), None, "no webhook_url");
    let mut hooked = reviewed.clone();
    hooked.webhook_url = Some("https://hooks.example.com/tiv".into());
    let message = reviewed_webhook_message(&hooked).expect("a message");
    assert_eq!(message.webhook_id, format!("msg_{}_reviewed", id.simple()));
    let sent: Value = serde_json::from_str(&message.body).unwrap();
    assert_eq!(sent["type"], "verification.reviewed");
    assert_eq!(sent["timestamp"], "2026-03-10T12:00:00.000Z");
    assert_eq!(
        sent["data"]["income_report"]["document_review"]["decision"],
        "accepted"
    );
    let mut unreviewed = hooked;
    unreviewed.income_report.as_mut().unwrap().document_review = None;
    assert_eq!(reviewed_webhook_message(&unreviewed), None);
}

/// Completes the stored verification as a tenant finishing with one photo whose figures they
/// typed: a report whose income awaits the landlord's acceptance.
fn complete_with_typed_figures(store: &MemoryStore, id: Uuid) {
    use domain::documents::record::{DocumentRecord, DocumentState, StatedPay};
    use domain::documents::{Analysis, Check, CheckResult, DocumentKind, Fields, Verdict, names};
    let mut v = store.verification(id).unwrap();
    let mut photo = DocumentRecord::arrived(1, "e1", 1_000, now());
    photo.state = DocumentState::Analysed;
    photo.analysis = Some(Analysis {
        kind: DocumentKind::Photo,
        verdict: Verdict::Undetermined,
        reason: Some("a photo".into()),
        pages: 1,
        fields: Fields::None,
        checks: vec![Check::new(names::TEXT_LAYER, CheckResult::Unknown, "a PNG")],
    });
    photo.stated = Some(StatedPay {
        pay_date: now().date_naive() - Duration::days(4),
        gross_cents: 250_000,
        net_cents: 190_000,
        pay_frequency: domain::income::PayFrequency::Biweekly,
    });
    v.documents.insert("d1".into(), photo);
    v.status = Status::Completed;
    v.completed_at = Some(now());
    v.income_report = Some(domain::documents::finish::document_report(
        &v,
        now().date_naive(),
    ));
    store.insert_verification(&v);
}

#[tokio::test]
async fn an_acceptance_counts_what_awaited_it_and_the_webhook_carries_the_new_figures() {
    use service::handlers::outbox_work::reviewed_webhook_message;
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    complete_with_typed_figures(&deps.store, id);
    let before = deps.store.verification(id).unwrap().income_report.unwrap();
    assert_eq!((before.total_monthly_income, before.revision), (0.0, 1));
    let awaiting = before
        .awaiting_review
        .expect("typed figures await the review");
    assert_eq!(awaiting.documents, ["Document 1"]);
    assert_eq!(awaiting.total_monthly_income_if_accepted, 5416.67);

    assert_eq!(review(&deps, key, id, accepted()).await.status, 200);
    let mut reviewed = deps.store.verification(id).unwrap();
    let after = reviewed.income_report.clone().unwrap();
    assert_eq!((after.total_monthly_income, after.revision), (5416.67, 2));
    assert_eq!(after.awaiting_review, None);
    let document = &after.documents.as_ref().unwrap()[0];
    assert!(document.counted && !document.awaiting_review);
    assert!(after.document_review.is_some());

    reviewed.webhook_url = Some("https://hooks.example.com/tiv".into());
    let message = reviewed_webhook_message(&reviewed).expect("a message");
    let sent: Value = serde_json::from_str(&message.body).unwrap();
    assert_eq!(
        sent["data"]["income_report"]["total_monthly_income"],
        5416.67
    );
    assert_eq!(sent["data"]["income_report"]["revision"], 2);
    let shown = get_verification(&deps, with_id(http::Method::GET, key, &id.to_string())).await;
    assert_eq!(body(&shown)["data"]["income_report"]["revision"], 2);
}

#[tokio::test]
async fn a_rejection_keeps_the_figures_and_the_revision() {
    let (deps, keys) = deps_with(MemoryStore::new(), "pro").await;
    let key = &keys.test.secret;
    let id = created_id(&deps, key).await;
    complete_with_typed_figures(&deps.store, id);
    let rejected = json!({"decision": "rejected", "note": "The photo is not legible."});
    assert_eq!(review(&deps, key, id, rejected).await.status, 200);
    let after = deps.store.verification(id).unwrap().income_report.unwrap();
    assert_eq!((after.total_monthly_income, after.revision), (0.0, 1));
    assert!(after.awaiting_review.is_some());
    assert_eq!(after.document_review.unwrap().decision.as_str(), "rejected");
}
