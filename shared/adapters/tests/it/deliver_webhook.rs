//! `deliver-webhook` on the in-memory store: the queue carries a reference (`QueuedWebhook`), and
//! each attempt reads the stored event's body. Found: those bytes are signed and sent under the
//! event's id. Gone (erased): dropped and acknowledged, nothing sent. The store down: a batch item
//! failure, retried later, nothing sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adapters::webhook_client::WebhookClient;
use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use domain::secrets::generate_webhook_secret;
use domain::webhook::{LocalWebhookOrigins, QueuedWebhook, WebhookMessage, signature_header};
use domain::webhook_log::StoredWebhookEvent;
use ports::store::prelude::*;
use ports::{Queue, StoreError, SystemClock, WebhookSecrets};
use serde_json::json;
use service::handlers::deliver_webhook::{DeliveryDeps, deliver_webhooks};
use test_support::{ArmedFaults, FaultyStore, MemoryStore, StoreOp};
use uuid::Uuid;

use crate::support::now;

const ACCOUNT: &str = "acct_deliver";

/// One request as the receiver read it: its headers (lower-case names) and body.
#[derive(Clone, Debug)]
struct Received {
    headers: Vec<(String, String)>,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        let found = self.headers.iter().find(|(n, _)| n == name);
        found.map(|(_, v)| v.as_str()).unwrap_or_default()
    }
}

/// A loopback receiver answering 200 to every POST, on its own thread.
fn receiver() -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let got = Arc::new(Mutex::new(Vec::new()));
    let seen = got.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut headers = Vec::new();
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                let Some((name, value)) = line.trim_end().split_once(": ") else {
                    break;
                };
                headers.push((name.to_ascii_lowercase(), value.to_string()));
            }
            let length = headers
                .iter()
                .find(|(n, _)| n == "content-length")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body = String::from_utf8(body).unwrap();
            seen.lock().unwrap().push(Received { headers, body });
            let mut stream = stream;
            let answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            stream.write_all(answer.as_bytes()).unwrap();
        }
    });
    (origin, got)
}

/// The webhook queue: what was made visible again for a retry.
#[derive(Clone, Default)]
struct Retries(Arc<Mutex<Vec<String>>>);

impl Queue for Retries {
    async fn send(&self, _body: &str) -> Result<(), StoreError> {
        Ok(())
    }
    async fn retry_later(&self, receipt: &str, _delay: u32) -> Result<(), StoreError> {
        self.0.lock().unwrap().push(receipt.to_string());
        Ok(())
    }
}

struct Rig {
    store: MemoryStore,
    faults: ArmedFaults,
    deps: DeliveryDeps<
        FaultyStore<MemoryStore, ArmedFaults>,
        FaultyStore<MemoryStore, ArmedFaults>,
        Retries,
        SystemClock,
        WebhookClient,
    >,
    origin: String,
    received: Arc<Mutex<Vec<Received>>>,
    secret: String,
}

async fn rig() -> Rig {
    let (origin, received) = receiver();
    let store = MemoryStore::new();
    let secret = generate_webhook_secret();
    let secrets = WebhookSecrets {
        current: Some(secret.clone()),
        previous: None,
        previous_valid_until: None,
    };
    store.put_webhook_secrets(ACCOUNT, &secrets).await.unwrap();
    let faults = ArmedFaults::default();
    let local = LocalWebhookOrigins::default();
    local.allow(&origin).unwrap();
    let deps = DeliveryDeps {
        store: FaultyStore {
            inner: store.clone(),
            faults: faults.clone(),
        },
        // The in-memory fake of the secrets' store (Secrets Manager in the adapters).
        secrets: FaultyStore {
            inner: store.clone(),
            faults: faults.clone(),
        },
        queue: Retries::default(),
        clock: SystemClock,
        client: WebhookClient::new(Duration::from_secs(5), local),
        backoff: vec![30],
        max_attempts: 13,
    };
    Rig {
        store,
        faults,
        deps,
        origin,
        received,
        secret,
    }
}

/// A verification's `completed` event, to the rig's receiver.
fn event(rig: &Rig) -> WebhookMessage {
    let id = Uuid::new_v4();
    WebhookMessage {
        webhook_id: format!("msg_{}_completed", id.simple()),
        account_id: ACCOUNT.into(),
        url: format!("{}/hooks", rig.origin),
        body: json!({
            "type": "verification.completed",
            "timestamp": "2026-11-25T10:00:00.000Z",
            "data": {"verification_id": id, "tenant_name": "Jane Doe"},
        })
        .to_string(),
    }
}

/// One SQS record carrying the event's reference.
fn batch(message: &WebhookMessage) -> SqsEvent {
    let mut record = SqsMessage::default();
    record.message_id = Some("m1".into());
    record.receipt_handle = Some("r1".into());
    record.body = Some(serde_json::to_string(&QueuedWebhook::of(message)).unwrap());
    let mut event = SqsEvent::default();
    event.records.push(record);
    event
}

#[tokio::test]
async fn a_queued_reference_sends_the_stored_body_signed_under_its_id() {
    let rig = rig().await;
    let message = event(&rig);
    let stored = StoredWebhookEvent::of(&message, now()).unwrap();
    assert!(rig.store.put_webhook_event(&stored).await.unwrap());
    let queued = batch(&message);
    let on_queue = queued.records[0].body.clone().unwrap();
    assert!(
        !on_queue.contains("Jane"),
        "the queue holds no body: {on_queue}"
    );

    let response = deliver_webhooks(&rig.deps, queued).await;
    assert!(response.batch_item_failures.is_empty());
    let got = rig.received.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body, message.body, "the stored bytes, unchanged");
    assert_eq!(got[0].header("webhook-id"), message.webhook_id);
    let timestamp: i64 = got[0].header("webhook-timestamp").parse().unwrap();
    let expected = signature_header(
        &[&rig.secret],
        &message.webhook_id,
        timestamp,
        &message.body,
    );
    assert_eq!(got[0].header("webhook-signature"), expected);
}

#[tokio::test]
async fn an_event_erased_before_delivery_is_dropped_and_never_sent() {
    let rig = rig().await;
    // Queued, but its stored event is gone (deleted by an erasure) before the attempt.
    let message = event(&rig);
    let response = deliver_webhooks(&rig.deps, batch(&message)).await;
    assert!(
        response.batch_item_failures.is_empty(),
        "acknowledged, not retried"
    );
    assert!(rig.deps.queue.0.lock().unwrap().is_empty());
    assert!(rig.received.lock().unwrap().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn a_stored_event_that_cannot_be_read_is_retried_and_sent_once_readable() {
    let rig = rig().await;
    let message = event(&rig);
    let stored = StoredWebhookEvent::of(&message, now()).unwrap();
    rig.store.put_webhook_event(&stored).await.unwrap();
    rig.faults.down(StoreOp::GetWebhookEvent);
    let response = deliver_webhooks(&rig.deps, batch(&message)).await;
    let failed: Vec<_> = response.batch_item_failures.iter().collect();
    assert_eq!(failed.len(), 1, "a batch item failure: retried");
    assert_eq!(failed[0].item_identifier, "m1");
    assert_eq!(*rig.deps.queue.0.lock().unwrap(), vec!["r1".to_string()]);
    assert!(rig.received.lock().unwrap().is_empty(), "nothing was sent");

    rig.faults.restore(StoreOp::GetWebhookEvent);
    let response = deliver_webhooks(&rig.deps, batch(&message)).await;
    assert!(response.batch_item_failures.is_empty());
    let got = rig.received.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body, message.body);
}
