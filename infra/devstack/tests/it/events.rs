//! Every sample event in `events/` goes through its function's handler (the same call its
//! `main.rs` makes) against a table seeded with the fixtures; the file name's leading number is the
//! status the function must answer.
//!
//! Each event that may change state gets its own table, queues and server (the GET events share
//! one), so events run a few at a time: the time goes on round trips to moto, which overlap. A failing event does not stop the others; the test then
//! fails naming every event that failed.

use crate::common;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use devstack::server::App;
use futures::StreamExt;
use lambda_http::Body;
use service::routes::Function;

/// Events in flight at once (per test). More does not help: moto answers from one Python process.
const EVENTS_AT_ONCE: usize = 4;

fn events_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events")
}

/// Runs one API Gateway event through the named HTTP function.
async fn invoke_http(app: &App, function: Function, event: &str) -> lambda_http::Response<Body> {
    let req =
        lambda_http::request::from_str(event).expect("event is an API Gateway HTTP API payload");
    let resp = service::http::serve(req, &app.origin, |r| {
        devstack::server::handle(app, function, r)
    })
    .await;
    resp.expect("infallible")
}

fn event_files(function: Function) -> Vec<PathBuf> {
    let dir = events_dir().join(function.name());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|_| panic!("{} exists", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{function} has sample events");
    files
}

/// The sample events of the functions `which` selects, as (function, file name, path).
fn events_of(which: impl Fn(Function) -> bool) -> Vec<(Function, String, PathBuf)> {
    Function::ALL
        .into_iter()
        .filter(|f| which(*f))
        .flat_map(|function| {
            event_files(function).into_iter().map(move |file| {
                let name = file.file_name().unwrap().to_string_lossy().to_string();
                (function, name, file)
            })
        })
        .collect()
}

/// Checks every event with `check`, `EVENTS_AT_ONCE` at a time, each in a task of its own (so a
/// panic fails that event only); fails listing every event that failed. Returns how many ran.
async fn check_all<F, Fut>(events: Vec<(Function, String, PathBuf)>, check: F) -> usize
where
    F: Fn(Function, String, PathBuf) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let outcomes: Vec<(String, Result<(), tokio::task::JoinError>)> = futures::stream::iter(events)
        .map(|(function, name, file)| {
            let label = format!("{function}/{name}");
            let task = tokio::spawn(check(function, name, file));
            async move { (label, task.await) }
        })
        .buffer_unordered(EVENTS_AT_ONCE)
        .collect()
        .await;
    let ran = outcomes.len();
    let failed: Vec<String> = outcomes
        .into_iter()
        .filter_map(|(label, outcome)| {
            let panic = outcome.err()?.into_panic();
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panicked".into());
            Some(format!("{label}: {why}"))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {ran} events failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    ran
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_http_event_gives_its_status() {
    // A GET never changes state, so the GET events share one seeded stack; every other event
    // gets a fresh one (a cancel, a resend or a review changes what the next event would see).
    let shared = Arc::new(seeded_env().await);
    let check = move |function, name, file| check_http_event(shared.clone(), function, name, file);
    let ran = check_all(events_of(|f| f.is_http()), check).await;
    assert!(ran >= 34, "ran {ran} events");
}

/// A stack of its own with the sample events' fixtures.
async fn seeded_env() -> common::TestEnv {
    let env = common::env_with(domain::plans::Plans::defaults()).await;
    devstack::stack::seed_fixtures(&env.store).await.unwrap();
    env
}

async fn check_http_event(
    shared: Arc<common::TestEnv>,
    function: Function,
    name: String,
    file: PathBuf,
) {
    let expected: u16 = name[..3].parse().expect("file name starts with the status");
    let event = std::fs::read_to_string(&file).unwrap();
    let method = serde_json::from_str::<serde_json::Value>(&event).unwrap()["requestContext"]
        ["http"]["method"]
        .as_str()
        .map(String::from);
    let own;
    let env = if method.as_deref() == Some("GET") {
        &*shared
    } else {
        own = seeded_env().await;
        if function == Function::ReviewDocuments && expected == 200 {
            common::report_from_documents(&own, devstack::stack::FIXTURE_COMPLETED).await;
        }
        &own
    };
    let resp = invoke_http(&env.app, function, &event).await;
    let body = match resp.body() {
        Body::Text(t) => t.clone(),
        // The report PDF: binary, which lambda_http hands API Gateway base64-encoded.
        Body::Binary(pdf)
            if name.starts_with("200")
                && (function == Function::GetReport || name.contains("report-pdf")) =>
        {
            assert_eq!(resp.status().as_u16(), 200, "{function}/{name}");
            assert_eq!(
                resp.headers()["content-type"],
                "application/pdf",
                "{function}/{name}"
            );
            assert!(pdf.starts_with(b"%PDF-"), "{function}/{name}: a PDF");
            assert_eq!(
                resp.headers().contains_key("x-ratelimit-remaining"),
                function == Function::GetReport,
                "{function}/{name}: the landlord's copy is metered like every API call"
            );
            return;
        }
        other => panic!("{function}/{name}: body is not text: {other:?}"),
    };
    assert_eq!(
        resp.status().as_u16(),
        expected,
        "{function}/{name}: {body}"
    );
    if function == Function::TenantPortal {
        if expected == 303 {
            assert!(
                resp.headers().contains_key("location"),
                "{function}/{name}: a redirect names where to"
            );
        } else {
            assert!(
                resp.headers()["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with("text/html"),
                "{function}/{name}: an HTML page"
            );
            assert!(
                body.contains("<h1>"),
                "{function}/{name}: a page of its own"
            );
        }
        return;
    }
    let json: serde_json::Value = serde_json::from_str(&body)
        .unwrap_or_else(|e| panic!("{function}/{name}: JSON body ({e}): {body}"));
    assert_eq!(json["success"], expected < 400, "{function}/{name}: {body}");
    assert_eq!(
        resp.headers()["content-type"],
        "application/json",
        "{function}/{name}"
    );
    if expected >= 400 {
        assert_eq!(
            json["request_id"], "Sample-Request-Id=",
            "{function}/{name}: API Gateway's request id is used"
        );
    }
    if name.starts_with("201") {
        // A household answers each member's link.
        let url = json["data"]["verification_url"]
            .as_str()
            .or(json["data"]["members"][0]["verification_url"].as_str())
            .unwrap_or_else(|| panic!("{function}/{name}: a verification_url: {body}"));
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "{function}/{name}: {url}"
        );
    }
}

/// Stream and queue events: the outcome word leading the file name is checked by its effect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_and_queue_event_has_its_effect() {
    let ran = check_all(events_of(|f| !f.is_http()), check_stream_or_queue_event).await;
    assert!(ran >= 20, "ran {ran} events");
}

/// E-mails moto's SES accepted from `sender` to `to`. Every fixture has the same tenant address and
/// events run at once, so each event's workers send from a sender of their own.
async fn sent_emails_from(sender: &str, to: &str) -> usize {
    common::sent_emails(to)
        .await
        .iter()
        .filter(|m| m["source"] == sender)
        .count()
}

async fn check_stream_or_queue_event(function: Function, name: String, file: PathBuf) {
    use aws_lambda_events::event::{dynamodb::Event, sqs::SqsEvent};
    use ports::WebhookSecrets;
    use ports::store::prelude::*;
    let outcome = name.split('-').next().unwrap().to_string();
    let env = common::env_with(domain::plans::Plans::defaults()).await;
    devstack::stack::seed_fixtures(&env.store).await.unwrap();
    let secrets = WebhookSecrets {
        current: Some(domain::secrets::generate_webhook_secret()),
        previous: None,
        previous_valid_until: None,
    };
    env.secrets
        .put_webhook_secrets(devstack::stack::DEMO_ACCOUNT, &secrets)
        .await
        .unwrap();
    let names = devstack::stack::Resources {
        sender: format!(
            "no-reply+{}@verify.local.test",
            uuid::Uuid::new_v4().simple()
        ),
        ..env.names.clone()
    };
    aws_sdk_sesv2::Client::new(&env.sdk)
        .create_email_identity()
        .email_identity(&names.sender)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{function}/{name}: sender identity: {e}"));
    let workers = devstack::Workers::new(
        &env.sdk,
        &names,
        &env.created,
        &env.base,
        vec![0],
        &env.webhook_origins,
    );
    let receiver = common::Receiver::start(vec![200], std::time::Duration::ZERO).await;
    // The "receiver down" sample names the discard port, where nothing listens.
    env.webhook_origins.allow("http://127.0.0.1:9").unwrap();
    // The sample points at the local stack's receiver; here it is this test's.
    let raw = std::fs::read_to_string(&file)
        .unwrap()
        .replace("http://127.0.0.1:3001/webhooks", &receiver.url);
    let fixture_email = "fixture.tenant+good@example.com";
    let mails_before = sent_emails_from(&names.sender, fixture_email).await;
    // Events run at once and share the fixture's number: reminders and invites are told apart.
    let texts = |reminders: bool| async move {
        (common::sent_sms(devstack::stack::FIXTURE_IN_PROGRESS_SMS)
            .await
            .iter())
        .filter(|t| t.starts_with("Reminder:") == reminders)
        .count()
    };
    let (reminders_before, invites_before) = (texts(true).await, texts(false).await);
    let expired_id: uuid::Uuid = devstack::stack::FIXTURE_EXPIRED.parse().unwrap();
    let stream_event = || -> Event {
        serde_json::from_str(&raw)
            .unwrap_or_else(|e| panic!("{function}/{name}: a DynamoDB stream event ({e})"))
    };
    let sqs_event = || -> SqsEvent {
        serde_json::from_str(&raw)
            .unwrap_or_else(|e| panic!("{function}/{name}: an SQS event ({e})"))
    };
    match function {
        Function::PublishEvents => {
            let response =
                service::handlers::publish_events::publish_events(&workers.outbox, stream_event())
                    .await;
            assert!(response.batch_item_failures.is_empty(), "{function}/{name}");
        }
        Function::ExpireVerifications => {
            let response = service::handlers::expire_verifications::expire_verifications(
                &workers.expiry,
                stream_event(),
            )
            .await;
            assert!(response.batch_item_failures.is_empty(), "{function}/{name}");
        }
        Function::RetryEvents => {
            let response =
                service::handlers::retry_events::retry_events(&workers.outbox, sqs_event()).await;
            assert!(response.batch_item_failures.is_empty(), "{function}/{name}");
        }
        Function::DeliverWebhook => {
            let event = sqs_event();
            // The queue carries references: the sample's event is stored first, to this test's
            // receiver, or to the target the sample is named for. An `erased` one is not stored.
            let url = match name.as_str() {
                n if n.contains("private-address") => "https://10.0.0.5/hook".to_string(),
                n if n.contains("receiver-down") => "http://127.0.0.1:9/hook".to_string(),
                _ => receiver.url.clone(),
            };
            for record in &event.records {
                let queued: domain::webhook::QueuedWebhook =
                    serde_json::from_str(record.body.as_deref().unwrap_or_default())
                        .unwrap_or_else(|e| panic!("{function}/{name}: a queued webhook ({e})"));
                if name.contains("erased") {
                    continue;
                }
                let message = domain::webhook::WebhookMessage {
                    webhook_id: queued.webhook_id.clone(),
                    account_id: queued.account_id.clone(),
                    url: url.clone(),
                    body: serde_json::json!({
                        "type": "verification.completed",
                        "timestamp": "2026-11-21T10:09:00.000Z",
                        "data": {"verification_id": devstack::stack::FIXTURE_COMPLETED, "status": "completed"},
                    })
                    .to_string(),
                };
                let stored =
                    domain::webhook_log::StoredWebhookEvent::of(&message, chrono::Utc::now());
                env.store.put_webhook_event(&stored.unwrap()).await.unwrap();
            }
            let ids: Vec<String> = event
                .records
                .iter()
                .filter_map(|r| r.message_id.clone())
                .collect();
            let response =
                service::handlers::deliver_webhook::deliver_webhooks(&workers.delivery, event)
                    .await;
            let failed: Vec<String> = response
                .batch_item_failures
                .iter()
                .map(|f| f.item_identifier.clone())
                .collect();
            match outcome.as_str() {
                "retried" => assert_eq!(failed, ids, "{function}/{name}"),
                _ => assert!(failed.is_empty(), "{function}/{name}"),
            }
        }
        Function::SendReminders => {
            let payload: service::handlers::reach_events::ReminderPayload =
                serde_json::from_str(&raw).unwrap_or_else(|e| {
                    panic!("{function}/{name}: a reminder schedule's input ({e})")
                });
            service::handlers::send_reminders::send_reminders(&workers.reach, payload)
                .await
                .unwrap_or_else(|e| panic!("{function}/{name}: {e}"));
        }
        Function::AnalyzeDocument => {
            // The object the sample names: a small PNG (a photo).
            let key = format!(
                "uploads/{}/sampledoc1",
                devstack::stack::FIXTURE_IN_PROGRESS
            );
            adapters::s3::s3_client(&env.sdk)
                .put_object()
                .bucket(&names.documents_bucket)
                .key(&key)
                .body(common::TINY_PNG.to_vec().into())
                .send()
                .await
                .unwrap_or_else(|e| panic!("{function}/{name}: put the sample object: {e}"));
            let response = service::handlers::analyze_document::analyze_documents(
                &workers.analysis,
                sqs_event(),
            )
            .await;
            assert!(response.batch_item_failures.is_empty(), "{function}/{name}");
            let in_progress = devstack::stack::FIXTURE_IN_PROGRESS.parse().unwrap();
            let documents = env
                .store
                .get_verification(in_progress)
                .await
                .unwrap()
                .unwrap()
                .documents;
            let analysed = documents.get("sampledoc1").map(|d| d.state)
                == Some(domain::documents::record::DocumentState::Analysed);
            assert_eq!(analysed, outcome == "analysed", "{function}/{name}");
        }
        http => unreachable!("{http} is an HTTP function"),
    }
    let queued = common::queue_depth(&env, &env.created.webhook_queue_url).await;
    let mails = sent_emails_from(&names.sender, fixture_email).await - mails_before;
    let expired = env
        .store
        .get_verification(expired_id)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("{function}/{name}: the expired fixture is kept"))
        .status;
    match outcome.as_str() {
        "sent" => assert_eq!((mails, queued), (1, 0), "{function}/{name}"),
        // The e-mail, the SMS and the webhook.
        "reached" => {
            assert_eq!((mails, queued), (1, 1), "{function}/{name}");
            assert_eq!(texts(true).await - reminders_before, 1, "{function}/{name}");
        }
        // An invite SMS, and nothing else.
        "texted" => {
            assert_eq!((mails, queued), (0, 0), "{function}/{name}");
            assert_eq!(texts(false).await - invites_before, 1, "{function}/{name}");
        }
        // The pending fixture's two reminder schedules, in this stack's group.
        "scheduled" => {
            assert_eq!((mails, queued), (0, 0), "{function}/{name}");
            let listed = aws_sdk_scheduler::Client::new(&env.sdk)
                .list_schedules()
                .group_name(&names.schedule_group)
                .send()
                .await
                .unwrap();
            let pending = devstack::stack::FIXTURE_PENDING.replace('-', "");
            let mine = (listed.schedules().iter())
                .filter(|s| s.name().is_some_and(|n| n.contains(&pending)))
                .count();
            assert_eq!(mine, 2, "{function}/{name}");
        }
        "queued" => assert_eq!((mails, queued), (0, 1), "{function}/{name}"),
        "ignored" => {
            assert_eq!((mails, queued), (0, 0), "{function}/{name}");
            assert_eq!(expired, domain::Status::Pending, "{function}/{name}");
        }
        "expired" => assert_eq!(expired, domain::Status::Expired, "{function}/{name}"),
        // The completed fixture's erasure marker, put again at the end of the default retention.
        "armed" => {
            let completed = devstack::stack::FIXTURE_COMPLETED.parse().unwrap();
            let marker = service::table_schema::keys::erasure_marker(completed);
            let ttl = common::stored_item(&env, marker)
                .await
                .and_then(|m| m.get("ttl")?.as_n().ok()?.parse::<i64>().ok())
                .unwrap_or_else(|| panic!("{function}/{name}: the erasure marker is armed"));
            let year = chrono::Utc::now() + chrono::Duration::days(364);
            assert!(ttl > year.timestamp(), "{function}/{name}");
        }
        "delivered" => {
            let got = receiver.received();
            assert_eq!(got.len(), 1, "{function}/{name}");
            assert!(
                got[0]
                    .header("webhook-signature")
                    .is_some_and(|s| s.starts_with("v1,")),
                "{function}/{name}: signed"
            );
        }
        "analysed" => assert_eq!((mails, queued), (0, 0), "{function}/{name}"),
        "retried" | "dropped" => {
            assert!(receiver.received().is_empty(), "{function}/{name}")
        }
        other => panic!("{function}/{name}: unknown outcome {other}"),
    }
}

#[test]
fn every_events_folder_belongs_to_a_function() {
    let functions = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../functions");
    for entry in std::fs::read_dir(events_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            Function::from_name(&name).is_some() && functions.join(&name).is_dir(),
            "events/{name} has no function"
        );
    }
}
