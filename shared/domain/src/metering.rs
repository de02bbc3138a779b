//! The daily API allowance as a rule: what one metered request means for an account. The store
//! applies it atomically (DynamoDB as a condition expression, the in-memory store under a lock);
//! this is the one statement of the rule that both read their answer from.

use chrono::{DateTime, Utc};

use crate::{Account, Mode, Plan, api_window};

/// The key a request presents, as authentication knows it (never the secret itself).
#[derive(Clone, PartialEq)]
pub struct PresentedKey {
    pub key_id: String,
    pub key_hash: String,
    pub account_id: String,
    /// The key names its account (`domain::secrets`): it is valid only while that account lists
    /// its hash with this mode, which the metering write checks.
    pub mode: Mode,
}

/// Result of metering one API request against the account's allowance.
#[derive(Debug, Clone, PartialEq)]
pub enum MeterOutcome {
    /// Counted; the account as it is after the increment.
    Allowed(Account),
    /// Not counted.
    Refused(MeterRefusal),
}

/// Why the account refused a request; nothing was counted.
#[derive(Debug, Clone, PartialEq)]
pub enum MeterRefusal {
    /// No such account, or the key is not listed there with its mode.
    UnknownAccount,
    KeyRevoked,
    NoApiAccess(Account),
    SubscriptionInactive(Account),
    /// Over the allowance; not counted.
    LimitExceeded(Account),
}

/// What a request does to the account's counter, or why it is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum MeterDecision {
    /// Same window, under the plan's allowance: add one.
    Count,
    /// First request of a new window: the counter restarts at one.
    StartWindow,
    /// Not counted.
    Refuse(MeterRefusal),
}

/// Decides one request of `key` on `account` (None: no such account) at `now`. `plan` is the
/// account's plan as configured (None: a plan the configuration does not know).
pub fn classify_meter(
    account: Option<Account>,
    plan: Option<&Plan>,
    key: &PresentedKey,
    now: DateTime<Utc>,
) -> MeterDecision {
    let Some(account) = account else {
        return MeterDecision::Refuse(MeterRefusal::UnknownAccount);
    };
    if account.api_keys.get(&key.key_hash) != Some(&key.mode) {
        return MeterDecision::Refuse(MeterRefusal::UnknownAccount);
    }
    if account.revoked_keys.contains(&key.key_id) {
        return MeterDecision::Refuse(MeterRefusal::KeyRevoked);
    }
    let limit = match plan {
        Some(plan) if plan.api_access => plan.api_requests_per_day,
        _ => return MeterDecision::Refuse(MeterRefusal::NoApiAccess(account)),
    };
    if !account.subscription_status.allows_api() {
        return MeterDecision::Refuse(MeterRefusal::SubscriptionInactive(account));
    }
    if account.api_window.as_deref() != Some(api_window(now).as_str()) {
        return MeterDecision::StartWindow;
    }
    if account.api_requests < limit {
        return MeterDecision::Count;
    }
    MeterDecision::Refuse(MeterRefusal::LimitExceeded(account))
}

/// The account after one more request counted at `now` (the first of a new window starts it at
/// one).
pub fn count_one(account: &mut Account, now: DateTime<Utc>) {
    let window = api_window(now);
    if account.api_window.as_deref() == Some(window.as_str()) {
        account.api_requests += 1;
    } else {
        account.api_window = Some(window);
        account.api_requests = 1;
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::SubscriptionStatus;

    fn account(window: Option<&str>, requests: u32) -> Account {
        let t = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        Account {
            account_id: "acct".into(),
            name: "A".into(),
            plan: "pro".into(),
            subscription_status: SubscriptionStatus::Active,
            current_period_end: t,
            created_at: t,
            api_window: window.map(str::to_string),
            api_requests: requests,
            sms_month: 0,
            sms_sent: 0,
            revoked_keys: vec!["old".into()],
            api_keys: ["k", "old"]
                .map(|k| (format!("hash-of-{k}"), Mode::Live))
                .into(),
        }
    }

    fn presented(key_id: &str) -> PresentedKey {
        PresentedKey {
            key_id: key_id.into(),
            key_hash: format!("hash-of-{key_id}"),
            account_id: "acct".into(),
            mode: Mode::Live,
        }
    }

    #[test]
    fn a_key_naming_its_account_counts_only_while_listed_there_with_its_mode() {
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap();
        let plan = pro(true);
        let mut listed = account(Some("2026-03-02"), 0);
        listed.api_keys.insert("hash-of-k".into(), Mode::Live);
        let unknown = MeterDecision::Refuse(MeterRefusal::UnknownAccount);
        let named = presented("k");
        assert_eq!(
            classify_meter(Some(listed.clone()), Some(&plan), &named, now),
            MeterDecision::Count
        );
        // Not listed (a forged key naming this account), or listed for the other mode.
        let stranger = presented("other");
        assert_eq!(
            classify_meter(Some(listed.clone()), Some(&plan), &stranger, now),
            unknown
        );
        let test_mode = PresentedKey {
            mode: Mode::Test,
            ..named.clone()
        };
        assert_eq!(
            classify_meter(Some(listed.clone()), Some(&plan), &test_mode, now),
            unknown
        );
        // Listed but revoked.
        listed.api_keys.insert("hash-of-old".into(), Mode::Live);
        assert_eq!(
            classify_meter(Some(listed), Some(&plan), &presented("old"), now),
            MeterDecision::Refuse(MeterRefusal::KeyRevoked)
        );
    }

    fn pro(api_access: bool) -> Plan {
        Plan {
            name: "pro".into(),
            verifications_per_month: 50,
            api_requests_per_day: 2,
            api_access,
            sms_per_month: 0,
        }
    }

    #[test]
    fn the_rule_in_order() {
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap();
        let plan = pro(true);
        let decide = |a: Option<Account>, p: Option<&Plan>, key: &str| {
            classify_meter(a, p, &presented(key), now)
        };
        let unknown = MeterDecision::Refuse(MeterRefusal::UnknownAccount);
        assert_eq!(decide(None, Some(&plan), "k"), unknown);
        let today = Some("2026-03-02");
        let revoked = MeterDecision::Refuse(MeterRefusal::KeyRevoked);
        assert_eq!(decide(Some(account(today, 0)), Some(&plan), "old"), revoked);
        let no_access = MeterDecision::Refuse(MeterRefusal::NoApiAccess(account(today, 0)));
        assert_eq!(
            decide(Some(account(today, 0)), Some(&pro(false)), "k"),
            no_access
        );
        assert_eq!(decide(Some(account(today, 0)), None, "k"), no_access);
        let mut past_due = account(today, 0);
        past_due.subscription_status = SubscriptionStatus::PastDue;
        assert!(matches!(
            decide(Some(past_due), Some(&plan), "k"),
            MeterDecision::Refuse(MeterRefusal::SubscriptionInactive(_))
        ));
        let yesterday = Some("2026-03-01");
        assert_eq!(
            decide(Some(account(yesterday, 9)), Some(&plan), "k"),
            MeterDecision::StartWindow
        );
        assert_eq!(
            decide(Some(account(None, 0)), Some(&plan), "k"),
            MeterDecision::StartWindow
        );
        assert_eq!(
            decide(Some(account(today, 1)), Some(&plan), "k"),
            MeterDecision::Count
        );
        assert!(matches!(
            decide(Some(account(today, 2)), Some(&plan), "k"),
            MeterDecision::Refuse(MeterRefusal::LimitExceeded(_))
        ));
    }
}
