//! The daily API allowance as a rule: what one metered request means for an account. The store
//! applies it atomically (DynamoDB as a condition expression, the in-memory store under a lock);
//! this is the one statement of the rule that both read their answer from.

use chrono::{DateTime, Utc};

use crate::{Account, KeyBurst, Mode, Plan, api_window};

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
    /// The key's burst is spent (`burst_step`); it may call again after this many milliseconds.
    BurstExceeded(Account, u64),
}

/// What a request does to the account's counter, or why it is refused.
// One decision lives for one request, on the stack, and is matched at once: boxing the refusal
// would cost an allocation on every refusal and save nothing.
#[allow(clippy::large_enum_variant)]
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
    let today = account.api_window.as_deref() == Some(api_window(now).as_str());
    if today && account.api_requests >= limit {
        return MeterDecision::Refuse(MeterRefusal::LimitExceeded(account));
    }
    let burst = plan.map(|p| p.key_burst).unwrap_or_default();
    let stored = account.key_bursts.get(&key.key_id).copied();
    if let Err(wait_ms) = burst_step(stored, now.timestamp_millis(), burst) {
        return MeterDecision::Refuse(MeterRefusal::BurstExceeded(account, wait_ms));
    }
    if today {
        MeterDecision::Count
    } else {
        MeterDecision::StartWindow
    }
}

/// One request's move of its key's burst state (a generic cell rate: the state is the time the
/// key's bucket is empty again, so one number per key bounds both the burst and the rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BurstStep {
    /// The stored state was none or not after now: the write starts it from now. Otherwise the
    /// write moves the stored state on by `interval_ms`, while it stays within the burst.
    pub from_now: bool,
    /// The state after this request (Unix milliseconds).
    pub next_ms: i64,
    /// The time one request takes from the bucket.
    pub interval_ms: i64,
    /// How far ahead of now the state may be before a request: (burst - 1) intervals.
    pub tolerance_ms: i64,
}

/// Whether a request of a key whose burst state is `stored` may be made at `now_ms`, and what it
/// leaves, or how many milliseconds until it may (never 0).
pub fn burst_step(stored: Option<i64>, now_ms: i64, burst: KeyBurst) -> Result<BurstStep, u64> {
    let interval_ms = (1000 / i64::from(burst.per_second.max(1))).max(1);
    let tolerance_ms = interval_ms * (i64::from(burst.requests.max(1)) - 1);
    let busy = stored.filter(|&at| at > now_ms);
    let base = busy.unwrap_or(now_ms);
    let ahead = base - now_ms;
    if ahead > tolerance_ms {
        return Err((ahead - tolerance_ms) as u64);
    }
    Ok(BurstStep {
        from_now: busy.is_none(),
        next_ms: base + interval_ms,
        interval_ms,
        tolerance_ms,
    })
}

/// The key's burst state after one more request of it at `now` (allowed by `burst_step`).
pub fn spend_burst(account: &mut Account, key: &PresentedKey, now: DateTime<Utc>, plan: &Plan) {
    let stored = account.key_bursts.get(&key.key_id).copied();
    if let Ok(step) = burst_step(stored, now.timestamp_millis(), plan.key_burst) {
        account.key_bursts.insert(key.key_id.clone(), step.next_ms);
    }
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
            key_bursts: Default::default(),
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
            key_burst: Default::default(),
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

    #[test]
    fn a_spent_burst_refuses_the_key_alone_after_the_days_own_limit() {
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap();
        let plan = pro(true);
        let mut a = account(Some("2026-03-02"), 0);
        a.api_keys.insert("hash-of-k".into(), Mode::Live);
        // Twenty at once (the default), then one every 200 ms.
        a.key_bursts
            .insert("k".into(), now.timestamp_millis() + 20 * 200);
        let refused = classify_meter(Some(a.clone()), Some(&plan), &presented("k"), now);
        assert!(matches!(
            refused,
            MeterDecision::Refuse(MeterRefusal::BurstExceeded(_, 200))
        ));
        // Another key of the account is not held back by it.
        a.api_keys.insert("hash-of-j".into(), Mode::Live);
        let other = classify_meter(Some(a.clone()), Some(&plan), &presented("j"), now);
        assert_eq!(other, MeterDecision::Count);
        // The day's allowance spent is told first: it lasts longer.
        a.api_requests = 2;
        assert!(matches!(
            classify_meter(Some(a), Some(&plan), &presented("k"), now),
            MeterDecision::Refuse(MeterRefusal::LimitExceeded(_))
        ));
    }

    mod burst {
        use proptest::prelude::*;

        use super::super::{KeyBurst, burst_step};

        /// Requests of one key at the given gaps (ms), through the rule, each allowed one moving
        /// the state as the store's write does: the times of those allowed and the waits told.
        fn run(burst: KeyBurst, gaps: &[u16]) -> (Vec<i64>, Vec<(i64, u64)>) {
            let (mut state, mut now) = (None, 1_700_000_000_000_i64);
            let (mut allowed, mut refused) = (vec![], vec![]);
            for gap in gaps {
                now += i64::from(*gap);
                match burst_step(state, now, burst) {
                    Ok(step) => {
                        state = Some(step.next_ms);
                        allowed.push(now);
                    }
                    Err(wait) => refused.push((now, wait)),
                }
            }
            (allowed, refused)
        }

        fn bursts() -> impl Strategy<Value = KeyBurst> {
            (1u32..40, 1u32..50).prop_map(|(requests, per_second)| KeyBurst {
                requests,
                per_second,
            })
        }

        proptest! {
            /// In any span of time, a key gets at most its burst plus what the rate refills.
            #[test]
            fn no_span_holds_more_than_the_burst_and_the_refill(
                burst in bursts(),
                gaps in proptest::collection::vec(0u16..400, 1..300),
            ) {
                let (allowed, _) = run(burst, &gaps);
                let interval = (1000 / i64::from(burst.per_second)).max(1);
                for (i, start) in allowed.iter().enumerate() {
                    for (j, end) in allowed.iter().enumerate().skip(i) {
                        let in_span = (j - i + 1) as i64;
                        let most = i64::from(burst.requests) + (end - start) / interval;
                        prop_assert!(in_span <= most, "{in_span} requests in {} ms", end - start);
                    }
                }
            }

            /// A key that keeps to its rate is never refused, and a refused one told to wait
            /// is allowed once it has waited (nothing else in between).
            #[test]
            fn the_rate_always_passes_and_the_wait_told_is_enough(
                burst in bursts(),
                gaps in proptest::collection::vec(0u16..400, 1..200),
            ) {
                let interval = (1000 / i64::from(burst.per_second)).max(1);
                let steady: Vec<u16> = gaps.iter().map(|_| interval as u16).collect();
                let (allowed, _) = run(burst, &steady);
                prop_assert_eq!(allowed.len(), steady.len());
                let mut state = None;
                let mut now = 1_700_000_000_000_i64;
                for gap in &gaps {
                    now += i64::from(*gap);
                    match burst_step(state, now, burst) {
                        Ok(step) => state = Some(step.next_ms),
                        Err(wait) => {
                            prop_assert!(wait > 0);
                            let later = now + wait as i64;
                            prop_assert!(burst_step(state, later, burst).is_ok());
                            prop_assert!(burst_step(state, later - 1, burst).is_err());
                        }
                    }
                }
            }
        }
    }
}
