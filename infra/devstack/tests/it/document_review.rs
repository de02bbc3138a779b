//! `POST /api/v1/verify/review` against moto through the typed client: a review of a completed
//! verification's documents is kept once in its report and shown by GET /verify and the PDF;
//! each refusal has its code; of concurrent reviews the conditional write keeps exactly one.

use crate::common;

use chrono::Utc;
use common::{TestEnv, env};
use domain::report::IncomeReport;
use domain::{Transition, Verification};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use serde_json::{Value, json};
use uuid::Uuid;

/// A test verification, through the API, and its stored state.
async fn created(env: &TestEnv) -> Verification {
    let created = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "review+good@example.com", "tenant_name": "Rae Review"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let id: Uuid = created.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    env.store.get_verification(id).await.unwrap().unwrap()
}

/// Starts and completes `v` with a report, from documents when `documents`.
async fn completed(env: &TestEnv, v: &Verification, documents: bool) -> Uuid {
    let now = Utc::now();
    let TransitionOutcome::Applied(started) = env
        .store
        .transition(v, &Transition::Start, now)
        .await
        .unwrap()
    else {
        panic!("start applies")
    };
    let mut report = IncomeReport::empty_for_tests();
    if documents {
        report.documents = Some(vec![]);
        report.needs_review = Some(true);
    }
    let done = Transition::Complete {
        report: Box::new(report),
    };
    let outcome = env.store.transition(&started, &done, now).await.unwrap();
    assert!(matches!(outcome, TransitionOutcome::Applied(_)));
    v.verification_id
}

fn rejected() -> Value {
    json!({"decision": "rejected", "note": "Net pay on the March stub was edited.\nAsked for originals."})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_is_kept_in_the_report_shown_and_printed_and_each_refusal_has_its_code() {
    let env = env().await;
    let v = created(&env).await;
    let id = v.verification_id;
    let pending = env.review_documents(&env.test_key, id, rejected()).await;
    assert_eq!(pending.status, 409, "{}", pending.raw);
    assert_eq!(pending.body["code"], "report_not_ready");
    assert!(pending.header("x-ratelimit-remaining").is_some(), "counted");
    completed(&env, &v, true).await;

    let other_account = env
        .review_documents(&env.other_test_key, id, rejected())
        .await;
    assert_eq!(
        (other_account.status, other_account.body["code"].clone()),
        (404, json!("not_found"))
    );
    let other_mode = env.review_documents(&env.live_key, id, rejected()).await;
    assert_eq!(other_mode.status, 404, "{}", other_mode.raw);
    let invalid = env
        .review_documents(
            &env.test_key,
            id,
            json!({"decision": "rejected", "note": "a\u{1b}b"}),
        )
        .await;
    assert_eq!(invalid.status, 400, "{}", invalid.raw);
    assert_eq!(invalid.body["details"][0]["field"], "note");
    assert_eq!(invalid.body["details"][0]["code"], "invalid");
    assert_eq!(invalid.body["success"], false);

    let done = env.review_documents(&env.test_key, id, rejected()).await;
    assert_eq!(done.status, 200, "{}", done.raw);
    let review = done.body["data"]["document_review"].clone();
    assert_eq!(review["decision"], "rejected");
    let again = env
        .review_documents(
            &env.test_key,
            id,
            json!({"decision": "accepted", "note": "Fine after all"}),
        )
        .await;
    assert_eq!(again.status, 409, "{}", again.raw);
    assert_eq!(again.body["code"], "already_reviewed");

    let got = env.get_verification(&env.test_key, id).await;
    assert_eq!(got.body["data"]["income_report"]["document_review"], review);
    let pdf = common::landlord_pdf(&env, &env.test_key, &id.to_string()).await;
    let text = common::pdf_text(&pdf, &common::artifacts_dir().join("devstack-review.pdf"));
    assert!(text.contains("Landlord's review rejected on"), "{text}");
    assert!(
        text.contains("Net pay on the March stub was edited. Asked for originals."),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_from_a_bank_or_erased_has_no_documents_to_review() {
    let env = env().await;
    let v = created(&env).await;
    let id = completed(&env, &v, false).await;
    let from_a_bank = env.review_documents(&env.test_key, id, rejected()).await;
    assert_eq!(from_a_bank.status, 409, "{}", from_a_bank.raw);
    assert_eq!(from_a_bank.body["code"], "no_documents");

    let v = created(&env).await;
    let id = completed(&env, &v, true).await;
    let erased = env
        .call(
            "DELETE",
            &format!("/api/v1/verify/data?verification_id={id}"),
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(erased.status, 200, "{}", erased.raw);
    let after = env.review_documents(&env.test_key, id, rejected()).await;
    assert_eq!(after.body["code"], "no_documents", "{}", after.raw);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_concurrent_reviews_the_condition_keeps_exactly_one() {
    let env = env().await;
    let v = created(&env).await;
    let id = completed(&env, &v, true).await;
    let before = requests_today(&env).await;
    let reviews = (0..4).map(|i| {
        let decision = if i % 2 == 0 { "accepted" } else { "rejected" };
        let body = json!({"decision": decision, "note": format!("reviewer {i}")});
        env.review_documents(&env.test_key, id, body)
    });
    let replies = futures::future::join_all(reviews).await;
    let won: Vec<_> = replies.iter().filter(|r| r.status == 200).collect();
    assert_eq!(
        won.len(),
        1,
        "{:?}",
        replies.iter().map(|r| &r.raw).collect::<Vec<_>>()
    );
    for lost in replies.iter().filter(|r| r.status != 200) {
        assert_eq!(
            (lost.status, lost.body["code"].clone()),
            (409, json!("already_reviewed"))
        );
    }
    let stored = env.store.get_verification(id).await.unwrap().unwrap();
    let kept = stored.income_report.unwrap().document_review.unwrap();
    assert_eq!(
        json!(kept.note),
        won[0].body["data"]["document_review"]["note"]
    );
    assert_eq!(
        requests_today(&env).await,
        before + 4,
        "every review counted"
    );
}

async fn requests_today(env: &TestEnv) -> u32 {
    let account = env.store.get_account(devstack::stack::DEMO_ACCOUNT).await;
    account.unwrap().unwrap().api_requests
}

/// With a `webhook_url`: the review goes out as `verification.reviewed`, once, and the erasure
/// takes the stored event (its body holds the report and the note) with the report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_goes_out_as_a_webhook_and_its_event_goes_with_an_erasure() {
    use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
    let env = env().await;
    let secrets = ports::WebhookSecrets {
        current: Some(domain::secrets::generate_webhook_secret()),
        previous: None,
        previous_valid_until: None,
    };
    let account = devstack::stack::DEMO_ACCOUNT;
    env.secrets
        .put_webhook_secrets(account, &secrets)
        .await
        .unwrap();
    let receiver = common::Receiver::start(vec![200], std::time::Duration::ZERO).await;
    let workers = env.workers();
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    let created = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "hooked+good@example.com", "webhook_url": receiver.url}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let id: Uuid = created.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let v = env.store.get_verification(id).await.unwrap().unwrap();
    completed(&env, &v, true).await;
    let done = env.review_documents(&env.test_key, id, rejected()).await;
    assert_eq!(done.status, 200, "{}", done.raw);
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    while pump
        .pump_once(&workers.outbox, &workers.expiry)
        .await
        .unwrap()
        > 0
    {}
    let queue = &env.created.webhook_queue_url;
    while pump_sqs_once(&sqs, queue, &workers.delivery, 0)
        .await
        .unwrap()
        > 0
    {}
    let reviewed: Vec<Value> = receiver
        .received()
        .iter()
        .map(|r| serde_json::from_str::<Value>(&r.body).unwrap())
        .filter(|b| b["type"] == "verification.reviewed")
        .collect();
    assert_eq!(reviewed.len(), 1, "one event for the one review");
    assert_eq!(
        reviewed[0]["data"]["income_report"]["document_review"],
        done.body["data"]["document_review"]
    );
    let event =
        service::table_schema::keys::webhook_event(&format!("msg_{}_reviewed", id.simple()));
    assert!(
        common::stored_item(&env, event.clone()).await.is_some(),
        "stored"
    );
    let path = format!("/api/v1/verify/data?verification_id={id}");
    let erased = env.call("DELETE", &path, Some(&env.test_key), None).await;
    assert_eq!(erased.status, 200, "{}", erased.raw);
    assert!(
        common::stored_item(&env, event).await.is_none(),
        "the erasure took the reviewed event"
    );
}
