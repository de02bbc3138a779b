//! The one loopback webhook receiver: `make dev` prints each event it gets with its signature
//! check, the tests script its answers and read what it recorded, the bench slows it down and
//! counts how many requests it holds at once. Also the e-mail printer of `make dev`.

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// One request as the receiver got it.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Picks the status of the `n`th request (1-based).
pub type Respond = Arc<dyn Fn(usize, &Received) -> u16 + Send + Sync>;

/// Answers the scripted statuses in turn; the last one repeats (none: always 200).
pub fn scripted(statuses: Vec<u16>) -> Respond {
    Arc::new(move |n, _| {
        statuses
            .get(n - 1)
            .or(statuses.last())
            .copied()
            .unwrap_or(200)
    })
}

/// A webhook receiver on 127.0.0.1; it keeps listening as long as the runtime does.
pub struct Receiver {
    /// Where webhooks are sent: `http://127.0.0.1:<port><path>`.
    pub url: String,
    state: Arc<State>,
}

struct State {
    requests: Mutex<Vec<Received>>,
    /// How many requests were recorded: bumped with each, for `wait_for`.
    recorded: watch::Sender<usize>,
    answered: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    /// When non-zero, each request is held until this many were recorded (or `delay` passed).
    hold_until: AtomicUsize,
}

impl Receiver {
    /// Listens on 127.0.0.1:`port` (0: any free port) for `path`; each request is recorded, held
    /// for `delay`, then answered with the status `respond` picks.
    pub async fn start(
        port: u16,
        path: &str,
        delay: Duration,
        respond: Respond,
    ) -> std::io::Result<Receiver> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let url = format!("http://{}{path}", listener.local_addr()?);
        let state = Arc::new(State {
            requests: Mutex::default(),
            recorded: watch::Sender::new(0),
            answered: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            hold_until: AtomicUsize::new(0),
        });
        let shared = state.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (state, respond) = (shared.clone(), respond.clone());
                tokio::spawn(async move {
                    let service =
                        hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                            let (state, respond) = (state.clone(), respond.clone());
                            async move {
                                let status = state.answer(req, delay, &respond).await;
                                Ok::<_, Infallible>(
                                    hyper::Response::builder()
                                        .status(status)
                                        .body(Full::new(Bytes::from_static(b"ok")))
                                        .expect("a valid status"),
                                )
                            }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Receiver { url, state })
    }

    /// `http://127.0.0.1:<port>`: what `LOCAL_WEBHOOK_ORIGINS` lists for this receiver.
    pub fn origin(&self) -> String {
        let after_scheme = "http://".len();
        match self.url[after_scheme..].find('/') {
            Some(i) => self.url[..after_scheme + i].to_string(),
            None => self.url.clone(),
        }
    }

    /// Every request so far, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Waits until `n` requests were recorded (before any is answered), for at most `deadline`:
    /// woken by each request as it is recorded, no polling. False when the deadline passed first.
    pub async fn wait_for(&self, n: usize, deadline: Duration) -> bool {
        let mut recorded = self.state.recorded.subscribe();
        tokio::time::timeout(deadline, recorded.wait_for(|count| *count >= n))
            .await
            .is_ok_and(|seen| seen.is_ok())
    }

    /// Holds every request unanswered until `n` were recorded, `delay` being the longest hold: a
    /// sender that sends one at a time never gets there, one that sends them together does.
    pub fn hold_until(&self, n: usize) {
        self.state.hold_until.store(n, Ordering::SeqCst);
    }

    /// Requests answered since the last reset.
    pub fn answered(&self) -> usize {
        self.state.answered.load(Ordering::SeqCst)
    }

    /// The most requests held at the same time since the last reset.
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }

    /// Starts counting `answered` and `max_in_flight` afresh.
    pub fn reset(&self) {
        let state = &self.state;
        state.answered.store(0, Ordering::SeqCst);
        let now = state.in_flight.load(Ordering::SeqCst);
        state.max_in_flight.store(now, Ordering::SeqCst);
    }
}

impl State {
    async fn answer(
        &self,
        req: hyper::Request<Incoming>,
        delay: Duration,
        respond: &Respond,
    ) -> u16 {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let headers = req
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let body = req
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let received = Received {
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        let n = {
            let mut requests = self.requests.lock().unwrap();
            requests.push(received.clone());
            self.recorded.send_replace(requests.len());
            requests.len()
        };
        match self.hold_until.load(Ordering::SeqCst) {
            0 => tokio::time::sleep(delay).await,
            n => {
                let mut recorded = self.recorded.subscribe();
                let _ = tokio::time::timeout(delay, recorded.wait_for(|count| *count >= n)).await;
            }
        }
        let status = respond(n, &received);
        self.answered.fetch_add(1, Ordering::SeqCst);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        status
    }
}

/// `make dev`'s receiver on 127.0.0.1:`port`, `POST /webhooks`: verifies the Standard Webhooks
/// signature with `secret`, prints each event, answers 200 (or 401 for a bad signature).
pub async fn spawn_printing(port: u16, secret: String) -> std::io::Result<Receiver> {
    let respond: Respond = Arc::new(move |_, request: &Received| {
        let header = |name| request.header(name).unwrap_or("");
        let expected = domain::webhook::signature_header(
            &[&secret],
            header("webhook-id"),
            header("webhook-timestamp").parse().unwrap_or(0),
            &request.body,
        );
        let valid = header("webhook-signature")
            .split(' ')
            .any(|s| s == expected);
        println!("{}", describe(&request.body, valid));
        if valid { 200 } else { 401 }
    });
    Receiver::start(port, "/webhooks", Duration::ZERO, respond).await
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
            // The SMS moto's SNS recorded (the number is not shown).
            for sms in data["sns"]["SMS"].as_array().into_iter().flatten() {
                let id = sms["message_id"].as_str().unwrap_or_default().to_string();
                if seen.insert(id) {
                    println!("[sms] {}", sms["message"].as_str().unwrap_or(""));
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_printing_receiver_answers_by_signature() {
        let secret = domain::secrets::generate_webhook_secret();
        let receiver = spawn_printing(0, secret.clone()).await.unwrap();
        let body = r#"{"type":"verification.completed","data":{}}"#;
        let signed = domain::webhook::signature_header(&[&secret], "msg_1", 1, body);
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let send = |signature: String| {
            client
                .post(&receiver.url)
                .header("webhook-id", "msg_1")
                .header("webhook-timestamp", "1")
                .header("webhook-signature", signature)
                .body(body)
                .send()
        };
        assert_eq!(send(signed).await.unwrap().status(), 200);
        assert_eq!(send("v1,bad".into()).await.unwrap().status(), 401);
        assert_eq!(receiver.received().len(), 2);
        assert_eq!(
            receiver.origin(),
            receiver.url.trim_end_matches("/webhooks")
        );
    }
}
