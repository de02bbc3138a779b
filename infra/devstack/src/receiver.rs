//! What a person watches in `make dev`: a webhook receiver that checks signatures and prints each
//! event with its verification result, and the tenant e-mails moto's SES accepted, with their link.

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::Value;
use tokio::net::TcpListener;

/// Serves `POST /webhooks` on 127.0.0.1:`port`, verifying the Standard Webhooks signature.
/// Returns its origin, the one non-public webhook target the local stack lists.
pub async fn spawn(port: u16, secret: String) -> std::io::Result<String> {
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    let origin = format!("http://{}", listener.local_addr()?);
    let secret = Arc::new(secret);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let secret = secret.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                    let secret = secret.clone();
                    async move {
                        let header = |name: &str| {
                            req.headers()
                                .get(name)
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or("")
                                .to_string()
                        };
                        let (id, ts, sig) = (
                            header("webhook-id"),
                            header("webhook-timestamp"),
                            header("webhook-signature"),
                        );
                        let body = req
                            .into_body()
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        let body = String::from_utf8_lossy(&body).into_owned();
                        let expected = shared::domain::webhook::signature_header(
                            &[&secret],
                            &id,
                            ts.parse().unwrap_or(0),
                            &body,
                        );
                        let valid = sig.split(' ').any(|s| s == expected);
                        println!("{}", describe(&body, valid));
                        let status = if valid { 200 } else { 401 };
                        Ok::<_, Infallible>(
                            hyper::Response::builder()
                                .status(status)
                                .body(Full::new(Bytes::new()))
                                .unwrap(),
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(origin)
}

fn describe(body: &str, valid: bool) -> String {
    let event: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let data = &event["data"];
    let mut line = format!(
        "[webhook] {} {} status={} signature={}",
        event["type"].as_str().unwrap_or("?"),
        data["verification_id"].as_str().unwrap_or("?"),
        data["status"].as_str().unwrap_or("?"),
        if valid { "valid" } else { "INVALID" }
    );
    let report = &data["income_report"];
    if report.is_object() {
        line.push_str(&format!(
            " income={}/month ratio={} passes_3x={} confidence={}",
            report["total_monthly_income"],
            report["rent_to_income_ratio"],
            report["passes_3x_rule"],
            report["confidence_score"]
        ));
    }
    line
}

/// Prints each e-mail moto's SES accepted (subject and tenant link), polling once a second.
pub async fn print_emails(moto_endpoint: String) {
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let mut seen = HashSet::new();
    loop {
        if let Ok(resp) = client
            .get(format!("{moto_endpoint}/moto-api/data.json"))
            .send()
            .await
            && let Ok(text) = resp.text().await
            && let Ok(data) = serde_json::from_str::<Value>(&text)
        {
            for message in data["ses"]["Message"].as_array().into_iter().flatten() {
                let id = message["id"].as_str().unwrap_or_default().to_string();
                if !seen.insert(id) {
                    continue;
                }
                let body = message["body"].as_str().unwrap_or_default();
                let link = body
                    .find("/t/")
                    .and_then(|i| body[..i].rfind("http").map(|start| (start, i)))
                    .map(|(start, _)| {
                        body[start..]
                            .chars()
                            .take_while(|c| !matches!(c, '"' | '<' | ' '))
                            .collect::<String>()
                    })
                    .unwrap_or_default();
                println!(
                    "[e-mail] \"{}\"  tenant link: {link}",
                    message["subject"].as_str().unwrap_or("")
                );
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}
