//! The landlord's webhook receiver, as `deliver-webhook` sees it: one signed POST per attempt and
//! how it ended. The HTTP client (address checks, timeouts) is the adapter's.

use std::future::Future;

use domain::webhook::WebhookMessage;
use domain::webhook_log::NetworkErrorClass;

/// How one delivery attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    Delivered(u16),
    /// 410: the receiver asks us to stop.
    Gone,
    /// The URL or its addresses are not allowed: retrying cannot help.
    Refused,
    /// The receiver answered with another status: try again later.
    Failed(Option<u16>),
    /// No HTTP answer (timeout, DNS, connection, TLS): try again later.
    Unreachable(NetworkErrorClass),
}

/// Posts a webhook, signed with each of `secrets`, as of `timestamp` (Unix seconds).
pub trait WebhookSender: Send + Sync {
    fn send(
        &self,
        message: &WebhookMessage,
        secrets: &[&str],
        timestamp: i64,
    ) -> impl Future<Output = Attempt> + Send;
}
