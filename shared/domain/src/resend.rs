//! Resending the tenant's invite (POST /api/v1/verify/resend): at most `MAX_RESENDS_PER_DAY` per
//! verification per UTC day, counted on the verification itself (day + count) by one conditional
//! write, so concurrent resends at the limit cannot exceed it. Each resend bumps `invite_round`;
//! the outbox turns the new round into a new e-mail with a new link (earlier links stay valid).

use chrono::{DateTime, Duration, Utc};

use crate::{Status, Verification};

/// Resends allowed per verification per UTC day.
pub const MAX_RESENDS_PER_DAY: u32 = 3;

/// The UTC day of `now`, as stored (`YYYY-MM-DD`).
pub fn utc_day(now: DateTime<Utc>) -> String {
    now.format("%Y-%m-%d").to_string()
}

/// Seconds from `now` to the next UTC midnight (at least 1): the `Retry-After` of a refused resend.
pub fn seconds_to_next_utc_midnight(now: DateTime<Utc>) -> u64 {
    let midnight = (now.date_naive() + Duration::days(1))
        .and_hms_opt(0, 0, 0)
        .expect("midnight exists")
        .and_utc();
    (midnight - now).num_seconds().max(1) as u64
}

/// Resends already counted on `now`'s UTC day.
pub fn resends_today(v: &Verification, now: DateTime<Utc>) -> u32 {
    if v.resend_day.as_deref() == Some(utc_day(now).as_str()) {
        v.resends_on_day
    } else {
        0
    }
}

/// Whether the invite of `v` can be resent at `now` (pending or in progress, not past expiry).
pub fn resendable(v: &Verification, now: DateTime<Utc>) -> bool {
    matches!(
        v.effective_status(now),
        Status::Pending | Status::InProgress
    )
}

/// The verification after one more resend at `now` (what the conditional write stores).
pub fn record(v: &Verification, now: DateTime<Utc>) -> Verification {
    let mut next = v.clone();
    next.resends_on_day = resends_today(v, now) + 1;
    next.resend_day = Some(utc_day(now));
    next.invite_round = v.invite_round + 1;
    next.last_resent_at = Some(now);
    next
}

/// The verification as a resend at `now` left it, from a read made beside that resend's write:
/// `place` is the resend's own place in the day's count when the read saw it (the read may show
/// later resends too), None when the read was made before the write. Then the count is the read's
/// plus one, which falls short only if another resend of the same verification was written between
/// that read and this write (the stored count, and so the limit, stay exact).
pub fn as_placed(read: &Verification, place: Option<u32>, now: DateTime<Utc>) -> Verification {
    let Some(place) = place else {
        return record(read, now);
    };
    let mut mine = read.clone();
    let later = resends_today(read, now).saturating_sub(place);
    mine.invite_round = read.invite_round.saturating_sub(later);
    mine.resends_on_day = place;
    mine.resend_day = Some(utc_day(now));
    mine.last_resent_at = Some(now);
    mine
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, NewVerificationInput, VERIFICATION_LIFETIME};

    #[test]
    fn the_count_restarts_each_utc_day_and_retry_after_reaches_midnight() {
        let now = DateTime::parse_from_rfc3339("2026-11-22T23:59:30Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(seconds_to_next_utc_midnight(now), 30);
        let v = Verification::new_pending(
            "a",
            Mode::Test,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                ..Default::default()
            },
            now,
            VERIFICATION_LIFETIME,
        );
        let once = record(&v, now);
        let twice = record(&once, now);
        assert_eq!((twice.invite_round, resends_today(&twice, now)), (2, 2));
        let tomorrow = now + Duration::seconds(31);
        assert_eq!(resends_today(&twice, tomorrow), 0);
        let next_day = record(&twice, tomorrow);
        assert_eq!((next_day.invite_round, next_day.resends_on_day), (3, 1));
        assert_eq!(next_day.resend_day.as_deref(), Some("2026-11-23"));
        assert!(resendable(&v, now));
        assert!(!resendable(&v, now + VERIFICATION_LIFETIME));
    }

    #[test]
    fn a_resend_read_back_after_later_ones_shows_its_own_place() {
        let now = DateTime::parse_from_rfc3339("2026-11-22T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let v = Verification::new_pending(
            "a",
            Mode::Test,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                ..Default::default()
            },
            now,
            VERIFICATION_LIFETIME,
        );
        // Read after three resends today, this one the first of them.
        let read = record(&record(&record(&v, now), now), now);
        let mine = as_placed(&read, Some(1), now);
        assert_eq!((mine.invite_round, resends_today(&mine, now)), (1, 1));
        // Read before the write: that state's next resend.
        let before = as_placed(&v, None, now);
        assert_eq!((before.invite_round, resends_today(&before, now)), (1, 1));
    }
}
