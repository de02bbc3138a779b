//! The webhook history of a verification: every outgoing event as it was first queued (so it can
//! be queued again, byte for byte, under the same `webhook-id`), and every delivery attempt
//! (`deliver-webhook` records each one). Both are kept `WEBHOOK_HISTORY_DAYS` by the table's TTL.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::domain::format_ts;
use crate::domain::webhook::WebhookMessage;

/// How long events and delivery attempts are kept (by TTL).
pub const WEBHOOK_HISTORY_DAYS: i64 = 30;

/// When an event or attempt stored at `at` is deleted by TTL (epoch seconds).
pub fn history_ttl(at: DateTime<Utc>) -> i64 {
    (at + Duration::days(WEBHOOK_HISTORY_DAYS)).timestamp()
}

/// An outgoing webhook event, stored when it is first queued. Its `Debug` (derived) shows the
/// message's redacted `Debug`: the body holds the tenant's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredWebhookEvent {
    pub message: WebhookMessage,
    /// The event's `type` (`verification.completed`, ...).
    pub event_type: String,
    pub verification_id: Uuid,
    #[serde(with = "crate::domain::ts")]
    pub stored_at: DateTime<Utc>,
    /// How many times the API user asked for it again.
    #[serde(default)]
    pub redeliveries: u32,
}

impl StoredWebhookEvent {
    /// The event a queued message carries, read from its body (`{type, timestamp, data}` with
    /// `data.verification_id`); None when the body is not such an event.
    pub fn of(message: &WebhookMessage, now: DateTime<Utc>) -> Option<Self> {
        let (event_type, verification_id) = event_meta(message)?;
        Some(StoredWebhookEvent {
            message: message.clone(),
            event_type,
            verification_id,
            stored_at: now,
            redeliveries: 0,
        })
    }
}

/// The `type` and `data.verification_id` of a webhook message's body.
pub fn event_meta(message: &WebhookMessage) -> Option<(String, Uuid)> {
    let body: Value = serde_json::from_str(&message.body).ok()?;
    let event_type = body.get("type")?.as_str()?.to_string();
    let id = body.get("data")?.get("verification_id")?.as_str()?;
    Some((event_type, Uuid::parse_str(id).ok()?))
}

/// Why an attempt got no HTTP answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkErrorClass {
    /// No answer within the timeout.
    Timeout,
    /// The host name did not resolve.
    Dns,
    /// The TCP connection failed (refused, reset, unreachable).
    Connect,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// The URL or the addresses it resolves to are not allowed (private, loopback, not https).
    RefusedTarget,
    /// No signing secret for the account (an operator's set-up error; nothing was sent).
    NoSecret,
    /// Anything else (the connection broke mid-request).
    Other,
}

/// How one attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// 2xx.
    Delivered,
    /// Not delivered; retried later unless it was the final attempt.
    Failed,
    /// 410 Gone: the receiver asked us to stop; not retried.
    Gone,
    /// The target is not allowed; not retried.
    Refused,
}

/// One delivery attempt, as the log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    pub event_id: String,
    pub event_type: String,
    pub verification_id: Uuid,
    /// 1 for the first attempt of a queued message (a redelivery starts again at 1).
    pub attempt: u32,
    #[serde(with = "crate::domain::ts")]
    pub attempted_at: DateTime<Utc>,
    pub outcome: AttemptOutcome,
    #[serde(default)]
    pub http_status: Option<u16>,
    #[serde(default)]
    pub error: Option<NetworkErrorClass>,
    pub duration_ms: u64,
    /// True when this failed attempt was the last: the message goes to the dead-letter queue.
    #[serde(default)]
    pub final_attempt: bool,
}

impl DeliveryAttempt {
    /// The API's view of an attempt (GET /api/v1/webhooks/deliveries).
    pub fn view(&self) -> Value {
        json!({
            "event_id": self.event_id,
            "event_type": self.event_type,
            "attempt": self.attempt,
            "attempted_at": format_ts(self.attempted_at),
            "outcome": self.outcome,
            "http_status": self.http_status,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "final_attempt": self.final_attempt,
        })
    }
}

/// The most attempts read in one go to answer a page of the log together with its total, before
/// the request is known to be allowed: a verification's log rarely holds more (a handful of
/// events, a few attempts each); a longer one is listed page and count after authentication.
pub const SHORT_LOG_ATTEMPTS: u32 = 50;

/// A page of a verification's delivery attempts, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryPage {
    pub items: Vec<DeliveryAttempt>,
    /// All attempts kept for the verification.
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_reads_its_type_and_verification_from_its_body() {
        let id = Uuid::new_v4();
        let message = WebhookMessage {
            webhook_id: "msg_x".into(),
            account_id: "a".into(),
            url: "https://hooks.example.com/x".into(),
            body: json!({"type": "verification.completed", "timestamp": "t", "data": {"verification_id": id}})
                .to_string(),
        };
        let now = Utc::now();
        let event = StoredWebhookEvent::of(&message, now).unwrap();
        assert_eq!(event.event_type, "verification.completed");
        assert_eq!(event.verification_id, id);
        let debug = format!("{event:?}");
        assert!(!debug.contains("hooks.example.com/x"), "{debug}");
        let unreadable = WebhookMessage {
            body: "{}".into(),
            ..message
        };
        assert!(StoredWebhookEvent::of(&unreadable, now).is_none());
        assert_eq!(
            history_ttl(now) - now.timestamp(),
            WEBHOOK_HISTORY_DAYS * 86_400
        );
    }
}
