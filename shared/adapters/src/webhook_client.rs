//! The HTTP client of webhook deliveries: https only (plain http only to the listed local
//! origins), redirects not followed, every resolved address checked, so a name that points (or
//! re-points) at an internal address is never connected to. Built once per cold start.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use domain::webhook::{
    LocalWebhookOrigins, WebhookMessage, check_url, is_forbidden_ip, signature_header,
};
use domain::webhook_log::NetworkErrorClass;
use ports::webhooks::{Attempt, WebhookSender};

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
}

/// The class of a failed request, for the delivery log: read off reqwest's flags and the text of
/// the error chain (hyper names its resolver failures "dns error"; rustls its handshake ones).
fn error_class(e: &reqwest::Error) -> NetworkErrorClass {
    if e.is_timeout() {
        return NetworkErrorClass::Timeout;
    }
    let mut chain = String::new();
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return NetworkErrorClass::Timeout;
        }
        chain.push_str(&err.to_string().to_ascii_lowercase());
        chain.push(' ');
        source = err.source();
    }
    if chain.contains("dns error")
        || chain.contains("failed to lookup")
        || chain.contains("no addresses")
    {
        NetworkErrorClass::Dns
    } else if chain.contains("certificate") || chain.contains("tls") || chain.contains("handshake")
    {
        NetworkErrorClass::Tls
    } else if e.is_connect() {
        NetworkErrorClass::Connect
    } else {
        NetworkErrorClass::Other
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

impl WebhookSender for WebhookClient {
    /// One attempt. The response body is never read.
    async fn send(&self, message: &WebhookMessage, secrets: &[&str], timestamp: i64) -> Attempt {
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
            Err(e) => Attempt::Unreachable(error_class(&e)),
        }
    }
}
