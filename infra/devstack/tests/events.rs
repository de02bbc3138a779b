//! Every sample event in `events/` goes through its function's handler (the same call its
//! `main.rs` makes) against a table seeded with the fixtures; the file name's leading number is the
//! status the function must answer.

mod common;

use std::path::{Path, PathBuf};

use devstack::server::App;
use lambda_http::Body;
use shared::api;

fn events_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events")
}

/// Runs one API Gateway event through the named HTTP function.
async fn invoke_http(app: &App, function: &str, event: &str) -> lambda_http::Response<Body> {
    let req =
        lambda_http::request::from_str(event).expect("event is an API Gateway HTTP API payload");
    let deps = &app.api;
    let resp = match function {
        "create-verification" => {
            shared::http::serve(req, |r| api::create_verification(deps, r)).await
        }
        "get-verification" => shared::http::serve(req, |r| api::get_verification(deps, r)).await,
        "cancel-verification" => {
            shared::http::serve(req, |r| api::cancel_verification(deps, r)).await
        }
        "list-verifications" => {
            shared::http::serve(req, |r| api::list_verifications(deps, r)).await
        }
        "get-usage" => shared::http::serve(req, |r| api::get_usage(deps, r)).await,
        other => panic!("no HTTP function named {other}"),
    };
    resp.expect("infallible")
}

const HTTP_FUNCTIONS: [&str; 5] = [
    "create-verification",
    "get-verification",
    "cancel-verification",
    "list-verifications",
    "get-usage",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_http_event_gives_its_status() {
    let mut ran = 0;
    for function in HTTP_FUNCTIONS {
        let dir = events_dir().join(function);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|_| panic!("{} exists", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{function} has sample events");
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let expected: u16 = name[..3].parse().expect("file name starts with the status");
            // A fresh table per event: cancel events change state.
            let env = common::env_with(shared::config::Plans::defaults()).await;
            devstack::stack::seed_fixtures(&env.store).await.unwrap();
            let event = std::fs::read_to_string(&file).unwrap();
            let resp = invoke_http(&env.app, function, &event).await;
            let body = match resp.body() {
                Body::Text(t) => t.clone(),
                other => panic!("{name}: body is not text: {other:?}"),
            };
            assert_eq!(
                resp.status().as_u16(),
                expected,
                "{function}/{name}: {body}"
            );
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
                let url = json["data"]["verification_url"].as_str().unwrap();
                assert!(url.starts_with("http://127.0.0.1:"), "{url}");
            }
            ran += 1;
        }
    }
    assert!(ran >= 25, "ran {ran} events");
}

#[test]
fn every_events_folder_belongs_to_a_function() {
    let functions = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../functions");
    for entry in std::fs::read_dir(events_dir()).unwrap() {
        let name = entry.unwrap().file_name();
        assert!(
            functions.join(&name).is_dir(),
            "events/{} has no function",
            name.to_string_lossy()
        );
    }
}
