//! A Plaid on loopback serving recorded answers (shared/adapters/tests/fixtures/plaid/), scripted per path:
//! each path answers its replies in turn, the last one repeating. It records the paths asked.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;

pub const USER_CREATE: &str =
    include_str!("../../../../shared/adapters/tests/fixtures/plaid/user_create.json");
pub const LINK_TOKEN_CREATE: &str =
    include_str!("../../../../shared/adapters/tests/fixtures/plaid/link_token_create.json");
pub const BANK_INCOME: &str =
    include_str!("../../../../shared/adapters/tests/fixtures/plaid/bank_income_get.json");
pub const PRODUCT_NOT_READY: &str =
    include_str!("../../../../shared/adapters/tests/fixtures/plaid/error_product_not_ready.json");
pub const INTERNAL_SERVER_ERROR: &str = include_str!(
    "../../../../shared/adapters/tests/fixtures/plaid/error_internal_server_error.json"
);
pub const USER_REMOVE: &str =
    include_str!("../../../../shared/adapters/tests/fixtures/plaid/user_remove.json");
/// The link token of `LINK_TOKEN_CREATE`.
pub const LINK_TOKEN: &str = "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176";

type Script = HashMap<String, Vec<(u16, String)>>;

pub struct FakePlaid {
    pub base_url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

impl FakePlaid {
    pub async fn start(script: Vec<(&str, Vec<(u16, &str)>)>) -> FakePlaid {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let script: Arc<Script> = Arc::new(
            script
                .into_iter()
                .map(|(path, replies)| {
                    let replies = replies
                        .into_iter()
                        .map(|(s, b)| (s, b.to_string()))
                        .collect();
                    (path.to_string(), replies)
                })
                .collect(),
        );
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = asked.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (script, log) = (script.clone(), log.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(
                        move |req: hyper::Request<hyper::body::Incoming>| {
                            let (script, log) = (script.clone(), log.clone());
                            async move {
                                let path = req.uri().path().to_string();
                                let _ = req.into_body().collect().await;
                                let n = {
                                    let mut log = log.lock().unwrap();
                                    log.push(path.clone());
                                    log.iter().filter(|p| **p == path).count()
                                };
                                let (status, body) = script
                                    .get(&path)
                                    .and_then(|r| r.get(n - 1).or(r.last()))
                                    .cloned()
                                    .unwrap_or((404, r#"{"error_type":"INVALID_REQUEST","error_code":"NOT_FOUND","request_id":"nf"}"#.into()));
                                Ok::<_, std::convert::Infallible>(
                                    hyper::Response::builder()
                                        .status(status)
                                        .header("content-type", "application/json")
                                        .body(Full::new(Bytes::from(body)))
                                        .unwrap(),
                                )
                            }
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        FakePlaid { base_url, asked }
    }

    /// The paths asked so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }

    pub fn count(&self, path: &str) -> usize {
        self.asked().iter().filter(|p| *p == path).count()
    }

    pub fn provider(&self) -> adapters::plaid::PlaidIncomeProvider {
        adapters::plaid::PlaidIncomeProvider::new(adapters::plaid::PlaidConfig {
            base_url: self.base_url.clone(),
            client_id: "5f7c1a2b3c4d5e6f7a8b9c0d".into(),
            secret: "b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8".into(),
            timeout: std::time::Duration::from_secs(5),
        })
        .unwrap()
    }
}
