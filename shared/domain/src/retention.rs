//! How long a closed verification keeps its personal data, and what its erasure leaves.
//!
//! Each account has a retention period (`RetentionDays`, 365 days unless the operator set
//! another). A verification's personal and financial data is erased that long after it closed
//! (completed, failed, expired or cancelled), or at once when the landlord asks
//! (`DELETE /api/v1/verify/data`). The erasure keeps ids, status, timestamps and counters, and
//! stamps `erased_at`.

use chrono::{DateTime, Duration, Utc};

use super::Verification;

/// The retention of an account the operator never set one for.
pub const DEFAULT_RETENTION_DAYS: u32 = 365;
/// The shortest retention an operator may set: a landlord has a month to read a closed report.
pub const MIN_RETENTION_DAYS: u32 = 30;
/// The longest retention an operator may set (seven years).
pub const MAX_RETENTION_DAYS: u32 = 2555;

/// An account's retention period, in days, within `MIN_RETENTION_DAYS ..= MAX_RETENTION_DAYS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionDays(u32);

impl RetentionDays {
    pub const DEFAULT: RetentionDays = RetentionDays(DEFAULT_RETENTION_DAYS);

    /// The period, when it is within the bounds.
    pub fn new(days: u32) -> Option<Self> {
        (MIN_RETENTION_DAYS..=MAX_RETENTION_DAYS)
            .contains(&days)
            .then_some(RetentionDays(days))
    }

    /// A stored period; one outside the bounds (never written by the admin tool) reads as the
    /// nearest bound, so a bad value can neither keep data forever nor erase it early.
    pub fn stored(days: Option<u32>) -> Self {
        match days {
            None => Self::DEFAULT,
            Some(d) => RetentionDays(d.clamp(MIN_RETENTION_DAYS, MAX_RETENTION_DAYS)),
        }
    }

    pub fn days(self) -> u32 {
        self.0
    }

    /// When the personal data of a verification that closed at `closed_at` is erased.
    pub fn erasure_due(self, closed_at: DateTime<Utc>) -> DateTime<Utc> {
        closed_at + Duration::days(i64::from(self.0))
    }
}

/// When the verification closed: completed, failed, or expired (a cancel stores `expired_at`
/// too). None while it is open, or when the stored status says closed but no time was kept.
pub fn closed_at(v: &Verification) -> Option<DateTime<Utc>> {
    if v.status.is_open() {
        return None;
    }
    v.completed_at.or(v.failed_at).or(v.expired_at)
}

/// How long a closed verification's tenant page and PDF copy stay, unless the stack sets another.
pub const DEFAULT_LINK_DAYS_AFTER_CLOSE: u32 = 30;
/// The longest window the stack may set: a year, past the shortest retention anyway.
pub const MAX_LINK_DAYS_AFTER_CLOSE: u32 = 365;

/// How long after a verification closed its tenant link still opens the page and the PDF copy;
/// past it the link answers a closed page holding no data. Apart from the account's retention:
/// the landlord keeps the report, the tenant's link does not live as long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkWindow(u32);

impl LinkWindow {
    pub const DEFAULT: LinkWindow = LinkWindow(DEFAULT_LINK_DAYS_AFTER_CLOSE);

    /// A window of `days` after the close (0: the link closes with the verification).
    pub fn days(days: u32) -> Self {
        LinkWindow(days)
    }

    /// Whether the verification's link has ended at `now`: it closed (as stored, or its expiry
    /// passed before the sweep recorded it) at least the window before. Never while it is open.
    pub fn ended(self, v: &Verification, now: DateTime<Utc>) -> bool {
        let closed = match closed_at(v) {
            Some(at) => Some(at),
            None if v.effective_status(now).is_open() => None,
            None => Some(v.expires_at),
        };
        closed.is_some_and(|at| now >= at + Duration::days(i64::from(self.0)))
    }
}

/// The stored attributes the erasure removes: the tenant's name, phone, address and rent figures,
/// the report, the note, the link-token hashes, the provider's tokens and the held income. `tenant_email`,
/// `message_links` and `documents` (what was read from the uploads: names, employers, figures)
/// are kept, emptied (`erase`). A unit test holds this list and `erase` together.
pub const ERASED_ATTRIBUTES: [&str; 13] = [
    "tenant_name",
    "tenant_phone",
    "property_address",
    "monthly_rent",
    "rent_subsidy_monthly",
    "income_report",
    "tenant_note",
    "provider_user",
    "provider_link_token",
    "token_hashes",
    "recent_token_hashes",
    "sms_phone",
    "held_income",
];

/// The verification after its erasure at `now`: what `ERASED_ATTRIBUTES` names removed, the
/// e-mail, the messages' link hashes and the documents' entries emptied, `erased_at` set. Ids, status, timestamps,
/// counters, the landlord's webhook URL and income multiple stay.
pub fn erase(v: &Verification, now: DateTime<Utc>) -> Verification {
    let mut erased = v.clone();
    erased.tenant_email = String::new();
    erased.tenant_name = None;
    erased.tenant_phone = None;
    erased.property_address = None;
    erased.monthly_rent = None;
    erased.rent_subsidy_monthly = None;
    erased.income_report = None;
    erased.tenant_note = None;
    erased.provider_user = None;
    erased.provider_link_token = None;
    erased.token_hashes.clear();
    erased.recent_token_hashes.clear();
    erased.message_links.clear();
    erased.documents.clear();
    erased.sms_phone = None;
    erased.held_income = None;
    erased.erased_at = Some(now);
    erased
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, NewVerificationInput, Transition, VERIFICATION_LIFETIME};

    fn closed(now: DateTime<Utc>) -> Verification {
        let v = Verification::new_pending(
            "a",
            Mode::Test,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                tenant_name: Some("Jane".into()),
                tenant_phone: Some("+15550109999".into()),
                property_address: Some("1 Main St".into()),
                monthly_rent: Some(1400.0),
                rent_subsidy_monthly: Some(400.0),
                sms_phone: Some("+15550109999".into()),
                ..Default::default()
            },
            now,
            VERIFICATION_LIFETIME,
        );
        let mut v = Transition::Consent {
            version: "v1".into(),
            provider_user: Some("user-token".into()),
            methods: vec![],
        }
        .apply(&v, now);
        v.provider_link_token = Some("link".into());
        v.token_hashes = vec!["h1".into()];
        v.recent_token_hashes = vec!["h2".into()];
        v.message_links.insert("invite_email".into(), "h3".into());
        v.tenant_note = Some("note".into());
        let record = crate::documents::record::DocumentRecord::arrived(1, "etag", 10, now);
        v.documents.insert("d1".into(), record);
        let income = crate::income::ProviderIncome::empty(Default::default(), now.date_naive());
        v.held_income = Some(income.clone());
        let report = crate::report::build_report(&income, v.monthly_rent);
        Transition::Complete {
            report: Box::new(report),
        }
        .apply(&v, now)
    }

    #[test]
    fn the_erasure_removes_exactly_the_listed_attributes() {
        let now = Utc::now();
        let v = closed(now);
        let before = serde_json::to_value(&v).unwrap();
        let after = serde_json::to_value(erase(&v, now)).unwrap();
        let (before, after) = (before.as_object().unwrap(), after.as_object().unwrap());
        let mut removed: Vec<&str> = before
            .keys()
            .filter(|k| !after.contains_key(*k))
            .map(String::as_str)
            .collect();
        removed.sort_unstable();
        let mut listed = ERASED_ATTRIBUTES.to_vec();
        listed.sort_unstable();
        assert_eq!(removed, listed);
        assert_eq!(after["tenant_email"], "");
        assert_eq!(after["message_links"], serde_json::json!({}));
        assert_ne!(before["documents"], serde_json::json!({}));
        assert_eq!(after["documents"], serde_json::json!({}));
        assert!(after.contains_key("erased_at"));
        for kept in [
            "verification_id",
            "status",
            "created_at",
            "completed_at",
            "consented_at",
        ] {
            assert_eq!(before[kept], after[kept], "{kept}");
        }
    }

    #[test]
    fn the_period_is_bounded_and_counts_from_the_close() {
        assert_eq!(RetentionDays::new(29), None);
        assert_eq!(RetentionDays::new(2556), None);
        assert_eq!(RetentionDays::new(30).unwrap().days(), 30);
        assert_eq!(RetentionDays::stored(None), RetentionDays::DEFAULT);
        assert_eq!(RetentionDays::stored(Some(1)).days(), MIN_RETENTION_DAYS);
        let now = Utc::now();
        let v = closed(now);
        assert_eq!(closed_at(&v), Some(now));
        assert_eq!(
            RetentionDays::DEFAULT.erasure_due(now),
            now + Duration::days(365)
        );
        let open = Verification {
            status: crate::Status::Pending,
            ..v
        };
        assert_eq!(closed_at(&open), None);
    }

    mod link_window {
        use super::*;
        use crate::Status;
        use proptest::prelude::*;

        fn at(minutes: i64) -> DateTime<Utc> {
            DateTime::from_timestamp(1_780_000_000, 0).unwrap() + Duration::minutes(minutes)
        }

        proptest! {
            /// A closed verification's link ends exactly `days` after it closed, whichever way it
            /// closed, and stays ended; an open one's never ends before its expiry.
            #[test]
            fn a_link_ends_the_window_after_the_close_and_never_while_open(
                days in 0u32..400,
                closed_after in 0i64..20_000,
                looked in -100_000i64..1_000_000,
                how in 0usize..4,
            ) {
                let created = at(0);
                let mut v = closed(created);
                let closed_time = created + Duration::minutes(closed_after);
                v.completed_at = None;
                v.failed_at = None;
                v.expired_at = None;
                v.cancelled_at = None;
                match how {
                    0 => { v.status = Status::Completed; v.completed_at = Some(closed_time) }
                    1 => { v.status = Status::Failed; v.failed_at = Some(closed_time) }
                    // A cancel is stored `expired`, with both times.
                    2 => {
                        v.status = Status::Expired;
                        v.expired_at = Some(closed_time);
                        v.cancelled_at = Some(closed_time);
                    }
                    _ => { v.status = Status::Expired; v.expired_at = Some(closed_time) }
                }
                let window = LinkWindow::days(days);
                let now = closed_time + Duration::minutes(looked);
                let due = closed_time + Duration::days(i64::from(days));
                prop_assert_eq!(window.ended(&v, now), now >= due);
                // Ended stays ended.
                if window.ended(&v, now) {
                    prop_assert!(window.ended(&v, now + Duration::minutes(closed_after + 1)));
                }
                // Open at the same times: ended only once past its expiry and the window.
                let mut open = v.clone();
                open.status = Status::InProgress;
                open.completed_at = None;
                open.failed_at = None;
                open.expired_at = None;
                open.cancelled_at = None;
                open.expires_at = closed_time;
                prop_assert_eq!(window.ended(&open, now), now >= due);
                // Before its expiry it is open: never ended.
                open.expires_at = now + Duration::minutes(1);
                prop_assert!(!window.ended(&open, now));
            }
        }

        #[test]
        fn the_default_window_is_thirty_days() {
            assert_eq!(LinkWindow::DEFAULT, LinkWindow::days(30));
        }
    }
}
