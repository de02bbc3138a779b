//! Accounts and their allowances: the subscription, the account item, API keys, plans, the
//! windows the allowances count in, and the per-owner counters.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use super::{Mode, Status, ts};

/// Subscription state of an account (mirrors what a billing system would report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubscriptionStatus {
    Active,
    Trialing,
    PastDue,
    Canceled,
}

impl SubscriptionStatus {
    pub const ALL: [SubscriptionStatus; 4] = [
        SubscriptionStatus::Active,
        SubscriptionStatus::Trialing,
        SubscriptionStatus::PastDue,
        SubscriptionStatus::Canceled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SubscriptionStatus::Active => "active",
            SubscriptionStatus::Trialing => "trialing",
            SubscriptionStatus::PastDue => "past_due",
            SubscriptionStatus::Canceled => "canceled",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Only these states may call the API.
    pub fn allows_api(self) -> bool {
        matches!(
            self,
            SubscriptionStatus::Active | SubscriptionStatus::Trialing
        )
    }
}

/// An API user (landlord, property manager).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub account_id: String,
    pub name: String,
    pub plan: String,
    pub subscription_status: SubscriptionStatus,
    #[serde(with = "ts")]
    pub current_period_end: DateTime<Utc>,
    #[serde(with = "ts")]
    pub created_at: DateTime<Utc>,
    /// The API-allowance window (UTC day, `YYYY-MM-DD`) the counter below belongs to. Not stored
    /// under these names: the store keeps the day's count its own way (DynamoDB: one attribute
    /// per day, `adapters::dynamo::api_day`).
    #[serde(skip)]
    pub api_window: Option<String>,
    #[serde(skip)]
    pub api_requests: u32,
    /// The UTC month (`yyyymm`, 0 for none) the SMS count below belongs to; stored its own
    /// way, as the API count (DynamoDB: one attribute per month, `adapters::dynamo::sms_month`).
    #[serde(skip)]
    pub sms_month: u32,
    /// Live SMS claimed in `sms_month` (`domain::sms::sms_used`).
    #[serde(skip)]
    pub sms_sent: u32,
    /// Key ids revoked for this account; checked in the same write that meters a request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revoked_keys: Vec<String>,
    /// SHA-256 of each key that names this account (`domain::secrets`), with the key's mode: the
    /// metering write authenticates such a key by finding its hash here (no key lookup).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub api_keys: std::collections::BTreeMap<String, Mode>,
    /// Each key's burst state by key id (`metering::burst_step`): the Unix time, in
    /// milliseconds, its bucket is empty again. Stored its own way, beside the API count.
    #[serde(skip)]
    pub key_bursts: std::collections::BTreeMap<String, i64>,
}

impl Account {
    /// A new account: active, its first period 30 days long, nothing counted and no key yet.
    pub fn opened(account_id: &str, name: &str, plan: &str, now: DateTime<Utc>) -> Account {
        Account {
            account_id: account_id.into(),
            name: name.into(),
            plan: plan.into(),
            subscription_status: SubscriptionStatus::Active,
            current_period_end: now + chrono::Duration::days(30),
            created_at: now,
            api_window: None,
            api_requests: 0,
            sms_month: 0,
            sms_sent: 0,
            revoked_keys: vec![],
            api_keys: Default::default(),
            key_bursts: Default::default(),
        }
    }
}

/// What the table knows about an API key. Only the hash of the secret is stored.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyRecord {
    pub key_id: String,
    pub key_hash: String,
    pub account_id: String,
    pub mode: Mode,
    /// The first characters of the key, enough for a person to recognise it in a list.
    pub display_prefix: String,
    #[serde(with = "ts")]
    pub created_at: DateTime<Utc>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A plan's allowances (design §3). Plans come from configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub name: String,
    pub verifications_per_month: u32,
    pub api_requests_per_day: u32,
    pub api_access: bool,
    /// SMS to tenants per UTC month (live verifications only); a plan that names none texts
    /// nobody.
    #[serde(default)]
    pub sms_per_month: u32,
    /// How fast one API key may call (`metering::burst_step`); the defaults when a plan names none.
    #[serde(default)]
    pub key_burst: KeyBurst,
}

/// One API key's burst bound: `requests` at once, then `per_second` on average, so one client's
/// loop can't spend the account's day in a second nor crowd out its other keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyBurst {
    pub requests: u32,
    pub per_second: u32,
}

impl Default for KeyBurst {
    fn default() -> Self {
        KeyBurst {
            requests: 20,
            per_second: 5,
        }
    }
}

/// The API-request window is the UTC calendar day.
pub fn api_window(now: DateTime<Utc>) -> String {
    now.format("%Y-%m-%d").to_string()
}

/// When the current API-request window ends (next UTC midnight).
pub fn api_window_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    let tomorrow = now.date_naive() + Duration::days(1);
    Utc.from_utc_datetime(&tomorrow.and_hms_opt(0, 0, 0).expect("midnight exists"))
}

/// Verification allowances count by calendar month, UTC (`YYYY-MM`).
pub fn usage_month(now: DateTime<Utc>) -> String {
    now.format("%Y-%m").to_string()
}

/// First instant of the next UTC month.
pub fn next_month_start(now: DateTime<Utc>) -> DateTime<Utc> {
    let (y, m) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    let first = NaiveDate::from_ymd_opt(y, m, 1).expect("valid date");
    Utc.from_utc_datetime(&first.and_hms_opt(0, 0, 0).expect("midnight exists"))
}

/// Per-owner counters, kept as items updated in the same transactions as the verifications.
///
/// The open statuses share ONE counter, `open` (pending + in_progress): a move between them
/// (the tenant's start or consent) moves no counter, and a move out of either moves `open`
/// whatever it came from, so a cancel is one write that need not know which open status it
/// ends. The list tells pending from in_progress with a count of the in-progress index range.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnerStats {
    #[serde(default)]
    pub total: u64,
    /// Verifications stored pending or in_progress (including those past expiry that no sweeper
    /// has moved yet).
    #[serde(default)]
    pub open: u64,
    #[serde(default)]
    pub completed: u64,
    #[serde(default)]
    pub expired: u64,
    #[serde(default)]
    pub failed: u64,
}

impl OwnerStats {
    /// The counter a verification in `status` is counted in.
    pub fn counter_of(status: Status) -> &'static str {
        match status {
            Status::Pending | Status::InProgress => "open",
            closed => closed.as_str(),
        }
    }

    /// The counter of a closed status; every open status answers the shared `open`.
    pub fn count(&self, status: Status) -> u64 {
        match status {
            Status::Pending | Status::InProgress => self.open,
            Status::Completed => self.completed,
            Status::Expired => self.expired,
            Status::Failed => self.failed,
        }
    }
}

/// Per-owner, per-month counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonthStats {
    #[serde(default)]
    pub created: u64,
    #[serde(default)]
    pub completed: u64,
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use super::*;
    use crate::format_ts;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn windows_and_months() {
        let now = at("2026-12-31T23:59:59.999Z");
        assert_eq!(api_window(now), "2026-12-31");
        assert_eq!(format_ts(api_window_reset(now)), "2027-01-01T00:00:00.000Z");
        assert_eq!(usage_month(now), "2026-12");
        assert_eq!(format_ts(next_month_start(now)), "2027-01-01T00:00:00.000Z");
    }
}
