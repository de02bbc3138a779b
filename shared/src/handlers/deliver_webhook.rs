//! `deliver-webhook`: POSTs queued webhooks with Standard Webhooks headers, concurrently per batch.
//!
//! Rules: https only (http only to the exact local origins the local stack lists); private,
//! loopback, link-local, metadata and IPv4-embedding IPv6 addresses refused before sending and
//! again after DNS resolution (the connection goes to the checked addresses); 10 s timeout; redirects not followed; response bodies not read. A failed
//! message is made visible again after a growing delay (about three days in all) and reported as a
//! batch item failure; after the queue's last receive it lands in the DLQ. 410 Gone stops retries.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::domain::webhook::{LocalWebhookOrigins, check_url, is_forbidden_ip, signature_header};
use crate::handlers::publish_events::WebhookMessage;
use crate::ports::{Clock, Queue, Store, WebhookSecrets};

/// Back-off before each retry, indexed by the attempt that failed (the last value repeats).
/// 13 attempts span about 2.9 days; the queue's maxReceiveCount (13) then moves the message to
/// the DLQ.
pub const DEFAULT_BACKOFF: [u32; 12] = [
    30, 120, 600, 1800, 3600, 10_800, 21_600, 43_200, 43_200, 43_200, 43_200, 43_200,
];
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Resolves host names and refuses any answer that contains a forbidden address, so a name that
/// points (or re-points) at an internal address is never connected to.
struct CheckedResolver;

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err("host name has no addresses".into());
            }
            if addrs.iter().any(|a| is_forbidden_ip(a.ip())) {
                return Err(Box::new(ForbiddenAddress) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[derive(Debug)]
struct ForbiddenAddress;

impl std::fmt::Display for ForbiddenAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("host resolves to a forbidden address")
    }
}

impl std::error::Error for ForbiddenAddress {}

/// The HTTP client for webhooks, built once per cold start.
#[derive(Clone)]
pub struct WebhookClient {
    /// https only, every resolved address checked.
    http: reqwest::Client,
    /// Plain http for the listed local origins (loopback IP literals, so nothing is resolved);
    /// built on first use, which a deployed stack never has.
    local_http: Arc<OnceLock<reqwest::Client>>,
    local: LocalWebhookOrigins,
    timeout: Duration,
}

/// How one delivery attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    Delivered(u16),
    /// 410: the receiver asks us to stop.
    Gone,
    /// The URL or its addresses are not allowed: retrying cannot help.
    Refused,
    /// Anything else: try again later.
    Failed(Option<u16>),
}

impl WebhookClient {
    /// `local` lists the only non-public receivers it may call (empty in a deployed stack).
    pub fn new(timeout: Duration, local: LocalWebhookOrigins) -> Self {
        WebhookClient {
            http: Self::build(timeout, true),
            local_http: Arc::default(),
            local,
            timeout,
        }
    }

    fn build(timeout: Duration, https_only: bool) -> reqwest::Client {
        reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .https_only(https_only)
            .no_proxy()
            .dns_resolver(Arc::new(CheckedResolver))
            .user_agent("TenantIncomeVerification-Webhooks/1.0")
            .build()
            .expect("webhook client builds")
    }

    /// One attempt. The response body is never read.
    pub async fn post(
        &self,
        message: &WebhookMessage,
        secrets: &[&str],
        timestamp: i64,
    ) -> Attempt {
        let Ok(url) = check_url(&message.url, &self.local) else {
            return Attempt::Refused;
        };
        let http = if self.local.allows(&url) {
            self.local_http
                .get_or_init(|| Self::build(self.timeout, false))
        } else {
            &self.http
        };
        let result = http
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &message.webhook_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header(
                "webhook-signature",
                signature_header(secrets, &message.webhook_id, timestamp, &message.body),
            )
            .body(message.body.clone())
            .send()
            .await;
        match result {
            Ok(resp) if resp.status().is_success() => Attempt::Delivered(resp.status().as_u16()),
            Ok(resp) if resp.status().as_u16() == 410 => Attempt::Gone,
            Ok(resp) => Attempt::Failed(Some(resp.status().as_u16())),
            Err(e) if is_forbidden(&e) => Attempt::Refused,
            Err(_) => Attempt::Failed(None),
        }
    }
}

fn is_forbidden(e: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<ForbiddenAddress>() {
            return true;
        }
        source = err.source();
    }
    false
}

pub struct DeliveryDeps<S, Q, C> {
    pub store: S,
    pub queue: Q,
    pub clock: C,
    pub client: WebhookClient,
    pub backoff: Vec<u32>,
}

fn receive_count(m: &SqsMessage) -> usize {
    m.attributes
        .get("ApproximateReceiveCount")
        .and_then(|c| c.parse().ok())
        .unwrap_or(1)
}

async fn deliver_one<S: Store, Q: Queue, C: Clock>(
    deps: &DeliveryDeps<S, Q, C>,
    record: &SqsMessage,
    secrets: &HashMap<String, WebhookSecrets>,
) -> bool {
    let Some(message) = record
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str::<WebhookMessage>(b).ok())
    else {
        // A message that cannot be read will not become readable: drop it, loudly.
        tracing::error!(message_id = ?record.message_id, "unreadable webhook message dropped");
        return true;
    };
    let now = deps.clock.now();
    let signing = secrets
        .get(&message.account_id)
        .map(|s| s.signing(now))
        .unwrap_or_default();
    let attempt = if signing.is_empty() {
        tracing::error!(account_id = %message.account_id, "account has no webhook secret; rotate one with the admin tool");
        Attempt::Failed(None)
    } else {
        deps.client.post(&message, &signing, now.timestamp()).await
    };
    let count = receive_count(record);
    match attempt {
        Attempt::Delivered(status) => {
            tracing::info!(webhook_id = %message.webhook_id, status, attempt = count, "webhook delivered");
            true
        }
        Attempt::Gone => {
            tracing::warn!(webhook_id = %message.webhook_id, "receiver answered 410; not retried");
            true
        }
        Attempt::Refused => {
            tracing::warn!(webhook_id = %message.webhook_id, "webhook URL not allowed; dropped");
            true
        }
        Attempt::Failed(status) => {
            let delay = deps
                .backoff
                .get(count.saturating_sub(1))
                .or(deps.backoff.last())
                .copied()
                .unwrap_or(60);
            tracing::warn!(webhook_id = %message.webhook_id, status = ?status, attempt = count, retry_in = delay, "webhook failed");
            if let Some(receipt) = &record.receipt_handle
                && let Err(e) = deps.queue.retry_later(receipt, delay).await
            {
                tracing::error!(error = %e, "could not set the retry delay");
            }
            false
        }
    }
}

/// Delivers a batch concurrently; only the failed messages are reported (and retried).
pub async fn deliver_webhooks<S: Store, Q: Queue, C: Clock>(
    deps: &DeliveryDeps<S, Q, C>,
    event: SqsEvent,
) -> SqsBatchResponse {
    // Each account's secrets are read once per batch.
    let mut secrets = HashMap::new();
    for record in &event.records {
        let Some(message) = record
            .body
            .as_deref()
            .and_then(|b| serde_json::from_str::<WebhookMessage>(b).ok())
        else {
            continue;
        };
        if secrets.contains_key(&message.account_id) {
            continue;
        }
        match deps.store.get_webhook_secrets(&message.account_id).await {
            Ok(s) => {
                secrets.insert(message.account_id, s);
            }
            Err(e) => tracing::error!(error = %e, "could not read webhook secrets"),
        }
    }
    let outcomes =
        futures::future::join_all(event.records.iter().map(|r| deliver_one(deps, r, &secrets)))
            .await;
    let mut response = SqsBatchResponse::default();
    for (record, ok) in event.records.iter().zip(outcomes) {
        if !ok && let Some(id) = &record.message_id {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = id.clone();
            response.batch_item_failures.push(failure);
        }
    }
    response
}
