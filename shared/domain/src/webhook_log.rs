//! The webhook history of a verification or a household (`WebhookSubject`): every outgoing event as
//! it was first queued (so it can be queued again, byte for byte, under the same `webhook-id`), and
//! every delivery attempt (`deliver-webhook` records each one). Both are kept
//! `WEBHOOK_HISTORY_DAYS` by the table's TTL.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::format_ts;
use crate::webhook::WebhookMessage;

/// How long events and delivery attempts are kept (by TTL).
pub const WEBHOOK_HISTORY_DAYS: i64 = 30;

/// When an event or attempt stored at `at` is deleted by TTL (epoch seconds).
pub fn history_ttl(at: DateTime<Utc>) -> i64 {
    (at + Duration::days(WEBHOOK_HISTORY_DAYS)).timestamp()
}

/// What a webhook event is about: a verification (every `verification.*` event), or a household
/// (`household.completed`, whose body names no verification). Its history is kept under it.
/// Stored flat, as the item's `verification_id` or `household_id` attribute (the one-write
/// redelivery's condition reads it there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "SubjectFields", into = "SubjectFields")]
pub enum WebhookSubject {
    Verification(Uuid),
    Household(Uuid),
}

/// The webhook-id suffix of a household's event (`msg_<household id, 32 hex>_household_completed`).
pub const HOUSEHOLD_EVENT_SUFFIX: &str = "household_completed";

/// The webhook id (and stored event's id) of a household's `household.completed`: one per
/// household, so the erasure finds it by the household id alone.
pub fn household_event_id(household_id: Uuid) -> String {
    format!("msg_{}_{HOUSEHOLD_EVENT_SUFFIX}", household_id.simple())
}

impl WebhookSubject {
    /// The subject an event id of ours names (`msg_<id, 32 hex>_<event>`): a household's for the
    /// household suffix, else a verification's. None for any other id.
    pub fn of_event_id(event_id: &str) -> Option<Self> {
        let rest = event_id.strip_prefix("msg_")?;
        let id = Uuid::try_parse(rest.get(..32)?).ok()?;
        let suffix = rest.get(32..)?.strip_prefix('_')?;
        Some(if suffix == HOUSEHOLD_EVENT_SUFFIX {
            WebhookSubject::Household(id)
        } else {
            WebhookSubject::Verification(id)
        })
    }
}

impl std::fmt::Display for WebhookSubject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WebhookSubject::Verification(id) => write!(f, "verification {id}"),
            WebhookSubject::Household(id) => write!(f, "household {id}"),
        }
    }
}

/// A subject as stored: exactly one of the two ids.
#[derive(Serialize, Deserialize)]
struct SubjectFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verification_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    household_id: Option<Uuid>,
}

impl TryFrom<SubjectFields> for WebhookSubject {
    type Error = &'static str;
    fn try_from(fields: SubjectFields) -> Result<Self, Self::Error> {
        match (fields.verification_id, fields.household_id) {
            (Some(id), None) => Ok(WebhookSubject::Verification(id)),
            (None, Some(id)) => Ok(WebhookSubject::Household(id)),
            _ => Err("a webhook subject is one verification_id or one household_id"),
        }
    }
}

impl From<WebhookSubject> for SubjectFields {
    fn from(subject: WebhookSubject) -> Self {
        match subject {
            WebhookSubject::Verification(id) => SubjectFields {
                verification_id: Some(id),
                household_id: None,
            },
            WebhookSubject::Household(id) => SubjectFields {
                verification_id: None,
                household_id: Some(id),
            },
        }
    }
}

/// An outgoing webhook event, stored when it is first queued. Its `Debug` (derived) shows the
/// message's redacted `Debug`: the body holds the tenant's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredWebhookEvent {
    pub message: WebhookMessage,
    /// The event's `type` (`verification.completed`, ...).
    pub event_type: String,
    #[serde(flatten)]
    pub subject: WebhookSubject,
    #[serde(with = "crate::ts")]
    pub stored_at: DateTime<Utc>,
    /// How many times the API user asked for it again.
    #[serde(default)]
    pub redeliveries: u32,
}

impl StoredWebhookEvent {
    /// The event a queued message carries, read from its body (`{type, timestamp, data}` with
    /// `data.verification_id` or `data.household_id`); None when the body is not such an event.
    pub fn of(message: &WebhookMessage, now: DateTime<Utc>) -> Option<Self> {
        let (event_type, subject) = event_meta(message)?;
        Some(StoredWebhookEvent {
            message: message.clone(),
            event_type,
            subject,
            stored_at: now,
            redeliveries: 0,
        })
    }
}

/// The one event type stored after its subject's erasure: it tells of the erasure, and its body
/// shows the verification as erased.
pub const ERASED_EVENT_TYPE: &str = "verification.erased";

impl StoredWebhookEvent {
    /// Whether the event may be stored once its subject is erased: only `verification.erased`.
    pub fn outlives_erasure(&self) -> bool {
        self.event_type == ERASED_EVENT_TYPE
    }
}

/// The `type` and the subject of a webhook message's body: `data.verification_id`, else (a
/// household's event) `data.household_id`. A member's event names both; it is the verification's.
pub fn event_meta(message: &WebhookMessage) -> Option<(String, WebhookSubject)> {
    let body: Value = serde_json::from_str(&message.body).ok()?;
    let event_type = body.get("type")?.as_str()?.to_string();
    let data = body.get("data")?;
    let id = |field: &str| {
        data.get(field)
            .and_then(Value::as_str)
            .and_then(|id| Uuid::parse_str(id).ok())
    };
    let subject = match (id("verification_id"), id("household_id")) {
        (Some(v), _) => WebhookSubject::Verification(v),
        (None, Some(h)) => WebhookSubject::Household(h),
        (None, None) => return None,
    };
    Some((event_type, subject))
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
    #[serde(flatten)]
    pub subject: WebhookSubject,
    /// 1 for the first attempt of a queued message (a redelivery starts again at 1).
    pub attempt: u32,
    #[serde(with = "crate::ts")]
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
/// events, a few attempts each; a household's, one event); a longer one is listed page and count after authentication.
pub const SHORT_LOG_ATTEMPTS: u32 = 50;

/// A page of a subject's delivery attempts, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryPage {
    pub items: Vec<DeliveryAttempt>,
    /// All attempts kept for the subject.
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
        assert_eq!(event.subject, WebhookSubject::Verification(id));
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

    #[test]
    fn a_household_event_is_the_households_and_a_members_event_the_verifications() {
        let (household, member) = (Uuid::new_v4(), Uuid::new_v4());
        let message = |data: Value| WebhookMessage {
            webhook_id: household_event_id(household),
            account_id: "a".into(),
            url: "https://hooks.example.com/x".into(),
            body: json!({"type": "household.completed", "timestamp": "t", "data": data})
                .to_string(),
        };
        let decided = message(json!({"household_id": household, "status": "decided"}));
        let (event_type, subject) = event_meta(&decided).unwrap();
        assert_eq!(
            (event_type.as_str(), subject),
            ("household.completed", WebhookSubject::Household(household))
        );
        let of_member = message(json!({"household_id": household, "verification_id": member}));
        assert_eq!(
            event_meta(&of_member).unwrap().1,
            WebhookSubject::Verification(member)
        );
        assert_eq!(
            WebhookSubject::of_event_id(&decided.webhook_id),
            Some(WebhookSubject::Household(household))
        );
        assert_eq!(
            WebhookSubject::of_event_id(&format!("msg_{}_reminder_sent_72h", member.simple())),
            Some(WebhookSubject::Verification(member))
        );
        for not_ours in ["msg_x", "evt_1", &format!("msg_{}", member.simple())] {
            assert_eq!(WebhookSubject::of_event_id(not_ours), None, "{not_ours}");
        }
    }

    #[test]
    fn the_subject_is_stored_flat_as_one_of_the_two_ids() {
        let id = Uuid::new_v4();
        let event = StoredWebhookEvent {
            message: WebhookMessage {
                webhook_id: household_event_id(id),
                account_id: "a".into(),
                url: "https://hooks.example.com/x".into(),
                body: "{}".into(),
            },
            event_type: "household.completed".into(),
            subject: WebhookSubject::Household(id),
            // Whole seconds: the stored timestamp keeps no more.
            stored_at: "2026-11-25T05:00:00Z".parse().unwrap(),
            redeliveries: 2,
        };
        let stored = serde_json::to_value(&event).unwrap();
        assert_eq!(stored["household_id"], json!(id));
        assert!(stored.get("verification_id").is_none(), "{stored}");
        let read: StoredWebhookEvent = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(read, event);
        let mut both = stored;
        both["verification_id"] = json!(id);
        assert!(serde_json::from_value::<StoredWebhookEvent>(both).is_err());
    }
}
