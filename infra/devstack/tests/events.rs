//! Every sample event in `events/` goes through its function's handler (the same call its
//! `main.rs` makes) against a table seeded with the fixtures; the file name's leading number is the
//! status the function must answer.

mod common;

use std::path::{Path, PathBuf};

use devstack::server::App;
use lambda_http::Body;
use shared::routes::Function;

fn events_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events")
}

/// Runs one API Gateway event through the named HTTP function.
async fn invoke_http(app: &App, function: Function, event: &str) -> lambda_http::Response<Body> {
    let req =
        lambda_http::request::from_str(event).expect("event is an API Gateway HTTP API payload");
    let resp = shared::http::serve(req, |r| devstack::server::handle(app, function, r)).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_http_event_gives_its_status() {
    let mut ran = 0;
    for function in Function::ALL.into_iter().filter(|f| f.is_http()) {
        for file in event_files(function) {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let expected: u16 = name[..3].parse().expect("file name starts with the status");
            // A fresh table per event: cancel events change state.
            let env = common::env_with(shared::config::Plans::defaults()).await;
            devstack::stack::seed_fixtures(&env.store).await.unwrap();
            let event = std::fs::read_to_string(&file).unwrap();
            let resp = invoke_http(&env.app, function, &event).await;
            let body = match resp.body() {
                Body::Text(t) => t.clone(),
                // The report PDF: binary, which lambda_http hands API Gateway base64-encoded.
                Body::Binary(pdf)
                    if name.starts_with("200")
                        && (function == Function::GetReport || name.contains("report-pdf")) =>
                {
                    assert_eq!(resp.status().as_u16(), 200, "{function}/{name}");
                    assert_eq!(resp.headers()["content-type"], "application/pdf");
                    assert!(pdf.starts_with(b"%PDF-"), "{name}: a PDF");
                    assert_eq!(
                        resp.headers().contains_key("x-ratelimit-remaining"),
                        function == Function::GetReport,
                        "{name}: the landlord's copy is metered like every API call"
                    );
                    ran += 1;
                    continue;
                }
                other => panic!("{name}: body is not text: {other:?}"),
            };
            assert_eq!(
                resp.status().as_u16(),
                expected,
                "{function}/{name}: {body}"
            );
            if function == Function::TenantPortal {
                if expected == 303 {
                    assert!(resp.headers().contains_key("location"));
                } else {
                    assert!(
                        resp.headers()["content-type"]
                            .to_str()
                            .unwrap()
                            .starts_with("text/html")
                    );
                    assert!(body.contains("<h1>"), "{name}: a page of its own");
                }
                ran += 1;
                continue;
            }
            let json: serde_json::Value = serde_json::from_str(&body).expect("JSON body");
            assert_eq!(json["success"], expected < 400, "{function}/{name}: {body}");
            assert_eq!(resp.headers()["content-type"], "application/json");
            if expected >= 400 {
                assert_eq!(
                    json["request_id"], "Sample-Request-Id=",
                    "API Gateway's request id is used"
                );
            }
            if name.starts_with("201") {
                // A household answers each member's link.
                let url = json["data"]["verification_url"]
                    .as_str()
                    .or(json["data"]["members"][0]["verification_url"].as_str())
                    .unwrap();
                assert!(url.starts_with("http://127.0.0.1:"), "{url}");
            }
            ran += 1;
        }
    }
    assert!(ran >= 34, "ran {ran} events");
}

/// Stream and queue events: the outcome word leading the file name is checked by its effect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_and_queue_event_has_its_effect() {
    use aws_lambda_events::event::{dynamodb::Event, sqs::SqsEvent};
    use shared::ports::WebhookSecrets;
    use shared::ports::store::prelude::*;
    let mut ran = 0;
    for function in Function::ALL.into_iter().filter(|f| !f.is_http()) {
        for file in event_files(function) {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let outcome = name.split('-').next().unwrap().to_string();
            let env = common::env_with(shared::config::Plans::defaults()).await;
            devstack::stack::seed_fixtures(&env.store).await.unwrap();
            let secrets = WebhookSecrets {
                current: Some(shared::domain::secrets::generate_webhook_secret()),
                previous: None,
                previous_valid_until: None,
            };
            env.store
                .put_webhook_secrets(devstack::stack::DEMO_ACCOUNT, &secrets)
                .await
                .unwrap();
            let workers = devstack::Workers::new(
                &env.sdk,
                &env.names,
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
            let mails_before = common::sent_emails(fixture_email).await.len();
            let expired_id: uuid::Uuid = devstack::stack::FIXTURE_EXPIRED.parse().unwrap();
            match function {
                Function::PublishEvents => {
                    let event: Event = serde_json::from_str(&raw).expect("a DynamoDB stream event");
                    let response =
                        shared::handlers::publish_events::publish_events(&workers.outbox, event)
                            .await;
                    assert!(response.batch_item_failures.is_empty(), "{name}");
                }
                Function::ExpireVerifications => {
                    let event: Event = serde_json::from_str(&raw).expect("a DynamoDB stream event");
                    let response = shared::handlers::expire_verifications::expire_verifications(
                        &workers.expiry,
                        event,
                    )
                    .await;
                    assert!(response.batch_item_failures.is_empty(), "{name}");
                }
                Function::RetryEvents => {
                    let event: SqsEvent = serde_json::from_str(&raw).expect("an SQS event");
                    let response =
                        shared::handlers::retry_events::retry_events(&workers.outbox, event).await;
                    assert!(response.batch_item_failures.is_empty(), "{name}");
                }
                Function::DeliverWebhook => {
                    let event: SqsEvent = serde_json::from_str(&raw).expect("an SQS event");
                    let ids: Vec<String> = event
                        .records
                        .iter()
                        .filter_map(|r| r.message_id.clone())
                        .collect();
                    let response = shared::handlers::deliver_webhook::deliver_webhooks(
                        &workers.delivery,
                        event,
                    )
                    .await;
                    let failed: Vec<String> = response
                        .batch_item_failures
                        .iter()
                        .map(|f| f.item_identifier.clone())
                        .collect();
                    match outcome.as_str() {
                        "retried" => assert_eq!(failed, ids, "{name}"),
                        _ => assert!(failed.is_empty(), "{name}"),
                    }
                }
                Function::SendReminders => {
                    let payload: shared::handlers::reach_events::ReminderPayload =
                        serde_json::from_str(&raw).expect("a reminder schedule's input");
                    shared::handlers::send_reminders::send_reminders(&workers.reach, payload)
                        .await
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                }
                http => unreachable!("{http} is an HTTP function"),
            }
            let queued = common::queue_depth(&env, &env.created.webhook_queue_url).await;
            let mails = common::sent_emails(fixture_email).await.len() - mails_before;
            let expired = env
                .store
                .get_verification(expired_id)
                .await
                .unwrap()
                .unwrap()
                .status;
            match outcome.as_str() {
                "sent" => assert_eq!((mails, queued), (1, 0), "{name}"),
                "queued" => assert_eq!((mails, queued), (0, 1), "{name}"),
                "ignored" => {
                    assert_eq!((mails, queued), (0, 0), "{name}");
                    assert_eq!(expired, shared::domain::Status::Pending, "{name}");
                }
                "expired" => assert_eq!(expired, shared::domain::Status::Expired, "{name}"),
                "delivered" => {
                    let got = receiver.received();
                    assert_eq!(got.len(), 1, "{name}");
                    assert!(
                        got[0]
                            .header("webhook-signature")
                            .unwrap()
                            .starts_with("v1,")
                    );
                }
                "retried" | "dropped" => assert!(receiver.received().is_empty(), "{name}"),
                other => panic!("{name}: unknown outcome {other}"),
            }
            ran += 1;
        }
    }
    assert!(ran >= 17, "ran {ran} events");
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
