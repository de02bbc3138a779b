//! The daily API allowance's counter on the account item: one attribute per UTC day
//! (`api_requests_<yyyymmdd>`). Counting the first request of a day is then the same write as
//! counting any other (`ADD` starts a missing attribute at zero, and the condition reads the
//! day's attribute), so no request waits for a window reset or a read first.
//!
//! Each count removes the counters of the days before it (`EARLIER_DAYS` of them), so the item
//! keeps one counter. An account quiet for longer than that keeps its last counter (one attribute
//! of about 25 bytes) beside the new one; `account_from_item` reads the latest only, as the
//! domain's `Account::api_window` and `Account::api_requests` (never stored under those names).

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::items::{Item, from_item, n, to_item};
use domain::Account;
use ports::StoreError;

const DAY_PREFIX: &str = "api_requests_";
/// How many days before today a count clears: a month of quiet.
const EARLIER_DAYS: i64 = 31;

/// The account attribute counting the API requests of `now`'s UTC day.
pub(super) fn day_attribute(now: DateTime<Utc>) -> String {
    format!("{DAY_PREFIX}{}", now.format("%Y%m%d"))
}

/// The counters a count at `now` removes: those of the `EARLIER_DAYS` days before it.
pub(super) fn earlier_day_attributes(now: DateTime<Utc>) -> Vec<String> {
    (1..=EARLIER_DAYS)
        .map(|days| day_attribute(now - Duration::days(days)))
        .collect()
}

/// The day a counter attribute belongs to.
fn day_of(attribute: &str) -> Option<NaiveDate> {
    let digits = attribute.strip_prefix(DAY_PREFIX)?;
    NaiveDate::parse_from_str(digits, "%Y%m%d").ok()
}

/// An account as its items (`usage`): the account item, and the usage item when it counted
/// anything.
pub fn account_items(account: &Account) -> Result<(Item, Option<Item>), StoreError> {
    Ok(super::usage::split(
        account_attributes(account)?,
        &account.account_id,
    ))
}

/// The account of a stored item, its usage's counters merged in (`usage::merged`): its window
/// and count are the latest day's counter.
pub(super) fn account_from_item(item: Item) -> Result<Account, StoreError> {
    let latest = item
        .keys()
        .filter_map(|attribute| Some((day_of(attribute)?, attribute.clone())))
        .max();
    let count = latest.as_ref().and_then(|(_, attribute)| {
        let value = item.get(attribute)?.as_n().ok()?;
        value.parse::<u32>().ok()
    });
    let sms = super::sms_month::sms_count_of(&item);
    let key_bursts = super::usage::key_bursts_of(&item).collect();
    let mut account: Account = from_item(item)?;
    account.key_bursts = key_bursts;
    if let Some((month, sent)) = sms {
        (account.sms_month, account.sms_sent) = (month, sent);
    }
    if let Some((day, _)) = latest {
        account.api_window = Some(day.format("%Y-%m-%d").to_string());
        account.api_requests = count.unwrap_or(0);
    }
    Ok(account)
}

/// The account as a count at `now` judges it: a counter of a later day (an instance whose clock
/// ran ahead wrote it) is left out, so the window is today's when today has a counter.
pub(super) fn account_at(mut item: Item, now: DateTime<Utc>) -> Result<Account, StoreError> {
    let today = now.date_naive();
    item.retain(|attribute, _| day_of(attribute).is_none_or(|day| day <= today));
    account_from_item(item)
}

/// The stored attributes of an account: its count on its day's attribute, each key's burst on
/// its own.
pub(super) fn account_attributes(account: &Account) -> Result<Item, StoreError> {
    let mut item = to_item(account)?;
    for (key_id, at) in &account.key_bursts {
        item.insert(super::usage::burst_attribute(key_id), n(*at));
    }
    if let Some(window) = &account.api_window {
        let day = NaiveDate::parse_from_str(window, "%Y-%m-%d")
            .map_err(|e| StoreError::Corrupt(format!("API window: {e}")))?;
        item.insert(
            format!("{DAY_PREFIX}{}", day.format("%Y%m%d")),
            n(account.api_requests),
        );
    }
    Ok(item)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn account(window: Option<&str>, requests: u32) -> Account {
        let t = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let mut a = test_support::active_account("acct", "pro", t);
        a.api_window = window.map(str::to_string);
        a.api_requests = requests;
        a
    }

    #[test]
    fn the_count_is_stored_on_its_days_attribute_and_read_back() {
        let a = account(Some("2026-03-09"), 7);
        let item = account_attributes(&a).unwrap();
        assert_eq!(item.get("api_requests_20260309"), Some(&n(7)));
        assert!(!item.contains_key("api_window") && !item.contains_key("api_requests"));
        assert_eq!(account_from_item(item).unwrap(), a);
        // No window yet: no counter at all.
        let fresh = account(None, 0);
        let item = account_attributes(&fresh).unwrap();
        assert!(!item.keys().any(|k| k.starts_with(DAY_PREFIX)));
        assert_eq!(account_from_item(item).unwrap(), fresh);
    }

    #[test]
    fn the_latest_day_wins_over_a_stale_counter() {
        let mut item = account_attributes(&account(None, 0)).unwrap();
        item.insert("api_requests_20260101".into(), n(90));
        item.insert("api_requests_20260309".into(), n(4));
        item.insert("api_requests_nonsense".into(), n(1));
        let read = account_from_item(item).unwrap();
        assert_eq!(
            (read.api_window.as_deref(), read.api_requests),
            (Some("2026-03-09"), 4)
        );
    }

    #[test]
    fn a_count_is_judged_on_todays_counter_not_a_later_days() {
        let mut item = account_attributes(&account(Some("2026-03-09"), 5)).unwrap();
        item.insert("api_requests_20260310".into(), n(1));
        let now = Utc.with_ymd_and_hms(2026, 3, 9, 23, 59, 59).unwrap();
        let read = account_at(item.clone(), now).unwrap();
        assert_eq!(
            (read.api_window.as_deref(), read.api_requests),
            (Some("2026-03-09"), 5)
        );
        assert_eq!(account_from_item(item).unwrap().api_requests, 1);
    }

    #[test]
    fn a_count_clears_the_month_of_days_before_it_and_not_its_own() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let earlier = earlier_day_attributes(now);
        assert_eq!(earlier.len(), 31);
        assert_eq!(earlier[0], "api_requests_20260228");
        assert_eq!(earlier[30], "api_requests_20260129");
        assert!(!earlier.contains(&day_attribute(now)));
    }
}
