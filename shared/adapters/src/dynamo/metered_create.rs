//! Writes that carry their own metering: the count of the request on the account's usage item
//! and the operation's writes (a create, a household create, a cancel) in ONE transaction, after
//! one read of the account and its usage (`usage`). The usage as the count left it is read beside
//! it (a transaction returns no item). A refusal is told by the items as the conditions saw them,
//! returned with the cancellation: by the usage (nothing counted), or by the operation's own
//! items, after which the request alone is counted (another round trip).

use aws_sdk_dynamodb::types::{
    CancellationReason, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Datelike, Duration, NaiveTime, Utc};

use super::api_day::account_from_item;
use super::items::{Item, from_item, s};
use super::live_month::{MonthCheck, live_created_attribute};
use super::metering::{Allowed, LiveCreates, UsageCount, burst_moved, judged, refused_item};
use super::usage::merged;
use super::{DynamoStore, Expr, unavailable};
use domain::metering::{MeterOutcome, MeterRefusal, PresentedKey, count_one};
use domain::plans::Plans;
use domain::{Mode, Verification, usage_month};
use ports::{
    CountedRefusal, CreateRefusal, IdempotencyClaim, Metered, MeteredCancel, MeteredCreate,
    MeteredHousehold, StoreError, VerificationRefusal,
};
use service::table_schema::{self as schema, keys};

/// The usage attribute a metered write marks with a value of its own (the verification id), so
/// the read beside the transaction knows whether it saw the count.
const LAST_METERED_WRITE: &str = "api_last_metered_create";

impl DynamoStore {
    pub(super) async fn metered_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        let MeteredCreate {
            key,
            now,
            plans,
            verification: v,
            idempotency,
        } = *create;
        let marker = v.verification_id.to_string();
        let live = live(v.mode, v.created_at, 1);
        let items = self.create_items(v, idempotency, MonthCheck::ByCount)?;
        // After the count: the verification, then its idempotency record (`create_items`).
        let why = |reasons: &[CancellationReason]| create_refusal(reasons, 2, idempotency);
        self.transact_counted(items, (key, now, plans), &marker, live, why)
            .await
    }

    pub(super) async fn metered_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        let MeteredHousehold {
            key,
            now,
            plans,
            household,
            members,
            idempotency,
        } = *create;
        let marker = household.household_id.to_string();
        let live = live(household.mode, household.created_at, members.len() as u64);
        let items = self.household_items(household, members, idempotency, MonthCheck::ByCount)?;
        // After the count: the household, then its idempotency record (`household_items`).
        let why = |reasons: &[CancellationReason]| create_refusal(reasons, 2, idempotency);
        self.transact_counted(items, (key, now, plans), &marker, live, why)
            .await
    }

    pub(super) async fn metered_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> Result<Metered<(), VerificationRefusal>, StoreError> {
        let MeteredCancel {
            key,
            now,
            plans,
            verification_id,
        } = *cancel;
        let marker = verification_id.to_string();
        let items = self.cancel_open_items(verification_id, &key.account_id, key.mode, now)?;
        let why = |reasons: &[CancellationReason]| {
            let Some(seen) = seen_own_verification(reasons, 1, key)? else {
                return Ok(None);
            };
            Ok(Some(match seen {
                Some(v) => VerificationRefusal::Closed(Box::new(v)),
                None => VerificationRefusal::NotFound,
            }))
        };
        self.transact_counted(items, (key, now, plans), &marker, None, why)
            .await
    }

    /// The count of one request of `key` as the rule `allowed` it, for a transaction, marking
    /// the usage item with `marker`; with `live`, the usage's count of the live month moves too,
    /// within the plan's monthly allowance (the one count of the live month: `live_month`). A
    /// refusal carries the usage item as the condition saw it. Also says which way it took the
    /// key's burst state (`UsageCount::burst_from_now`).
    fn count_update(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        allowed: &Allowed<'_>,
        marker: &str,
        live: Option<&LiveCreates>,
    ) -> Result<(TransactWriteItem, bool), StoreError> {
        let mut expr = Expr::default();
        let mut count = UsageCount::new(&mut expr, key, now, allowed, live);
        let last = expr.name(LAST_METERED_WRITE);
        let marker = expr.value("marker", s(marker));
        count.also_set(format!("{last} = {marker}"));
        let usage = keys::usage(&key.account_id);
        let update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(&usage.0))
            .key(schema::SK, s(&usage.1))
            .update_expression(count.expression())
            .condition_expression(&count.condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        let item = TransactWriteItem::builder().update(update).build();
        Ok((item, count.burst_from_now))
    }

    /// Counts the request of `key` and writes the operation's `items` in ONE transaction, the
    /// count first: the account and its usage are read, the rule judges them, and the count's
    /// condition holds the usage to what it allowed; the usage is read again beside the
    /// transaction. Done: the account after the count. Refused: by the account (the rule on the
    /// usage as the count's condition saw it), or else for what `why` reads off the reasons (the
    /// items as the operation's conditions saw them), and then the request alone is counted
    /// (`refused_alone`). A count refused because a concurrent request of the key moved its
    /// burst is built again. Nothing is written unless all held.
    pub(super) async fn transact_counted<R: CountedRefusal>(
        &self,
        items: Vec<TransactWriteItem>,
        meter: (&PresentedKey, DateTime<Utc>, &Plans),
        marker: &str,
        live: Option<LiveCreates>,
        why: impl FnOnce(&[CancellationReason]) -> Result<Option<R>, StoreError>,
    ) -> Result<Metered<(), R>, StoreError> {
        let (key, now, plans) = meter;
        let Some((account_item, mut usage)) = self.account_and_usage(&key.account_id).await? else {
            return Ok(Metered::AccountRefused(MeterRefusal::UnknownAccount));
        };
        let mut why = Some(why);
        for _ in 0..4 {
            let allowed = match judged(&account_item, &usage, key, now, plans)? {
                Ok(allowed) => allowed,
                Err(refusal) => return Ok(Metered::AccountRefused(refusal)),
            };
            let (count, burst_from_now) =
                self.count_update(key, now, &allowed, marker, live.as_ref())?;
            let all = std::iter::once(count)
                .chain(items.iter().cloned())
                .collect();
            let read = self
                .get_item(&keys::usage(&key.account_id))
                .consistent_read(true)
                .send();
            let (written, read) = futures::join!(self.transact_with_reasons(all), read);
            let read = read.map(|out| out.item.unwrap_or_default());
            let reasons = match written? {
                Ok(()) => {
                    let read = read.map_err(unavailable)?;
                    // The read may come before the transaction: the marker tells.
                    let saw_the_count = read
                        .get(LAST_METERED_WRITE)
                        .and_then(|m| m.as_s().ok())
                        .is_some_and(|m| m == marker);
                    let mut account = account_from_item(merged(&account_item, &read))?;
                    if !saw_the_count {
                        count_one(&mut account, now);
                    }
                    return Ok(Metered::Done(account, ()));
                }
                Err(reasons) => reasons,
            };
            if let Some(seen) = refused_item(&reasons, 0) {
                let seen = seen.cloned().unwrap_or_default();
                if let Err(refusal) = judged(&account_item, &seen, key, now, plans)? {
                    return Ok(Metered::AccountRefused(refusal));
                }
                if burst_moved(&seen, key, now, burst_from_now) {
                    usage = seen;
                    continue;
                }
            }
            let why = why
                .take()
                .expect("`why` is read once, then the loop returns");
            let Some(why) = why(&reasons)? else {
                return Err(StoreError::Unavailable(format!(
                    "metered write refused for no known reason: {:?}",
                    reasons.iter().map(|r| r.code()).collect::<Vec<_>>()
                )));
            };
            // Read beside the refused transaction: the usage as it is now.
            let read = read.map_err(unavailable)?;
            if !why.counts_the_request() {
                let account = account_from_item(merged(&account_item, &read))?;
                return Ok(Metered::Refused(account, why));
            }
            return self
                .refused_alone((&account_item, read), key, now, plans, why)
                .await;
        }
        Err(StoreError::Unavailable(
            "metered write kept meeting concurrent counts".into(),
        ))
    }

    /// A refused operation's request, counted alone as `meter_api_request` counts one, on the
    /// account and its usage as read.
    pub(super) async fn refused_alone<T, R>(
        &self,
        (account_item, usage): (&Item, Item),
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
        why: R,
    ) -> Result<Metered<T, R>, StoreError> {
        Ok(
            match self
                .count_alone(account_item, usage, key, now, plans)
                .await?
            {
                MeterOutcome::Allowed(account) => Metered::Refused(account, why),
                MeterOutcome::Refused(refusal) => Metered::AccountRefused(refusal),
            },
        )
    }
}

/// Whether the item is the key's own (its account and mode).
pub(super) fn owned(v: &Verification, key: &PresentedKey) -> bool {
    v.account_id == key.account_id && v.mode == key.mode
}

/// What the verification item `i` of a refused metered transaction saw (returned with
/// `ReturnValuesOnConditionCheckFailure::AllOld`): None when that item did not refuse; Some(None)
/// when it saw no verification of the key's account and mode.
pub(super) fn seen_own_verification(
    reasons: &[CancellationReason],
    i: usize,
    key: &PresentedKey,
) -> Result<Option<Option<Verification>>, StoreError> {
    let Some(seen) = refused_item(reasons, i) else {
        return Ok(None);
    };
    let seen: Option<Verification> = seen.cloned().map(from_item).transpose()?;
    Ok(Some(seen.filter(|v| owned(v, key))))
}

/// Why a metered create was refused: the idempotency record at `idempotency_at` (when claimed)
/// as its condition saw it, else the monthly allowance (the count refused though the rule allows
/// the request).
fn create_refusal(
    reasons: &[CancellationReason],
    idempotency_at: usize,
    idempotency: Option<&IdempotencyClaim>,
) -> Result<Option<CreateRefusal>, StoreError> {
    if idempotency.is_some()
        && let Some(Some(record)) = refused_item(reasons, idempotency_at)
    {
        let record = from_item(record.clone())?;
        return Ok(Some(CreateRefusal::IdempotencyConflict(record)));
    }
    Ok(refused_item(reasons, 0).map(|_| CreateRefusal::LimitReached))
}

/// The live creates of a write made at `at`, for `count_update`: the usage attribute of their
/// month, the previous month's, and how many (None for test mode, which has no monthly allowance).
fn live(mode: Mode, at: DateTime<Utc>, count: u64) -> Option<LiveCreates> {
    let first_of_month = at.date_naive().with_day(1)?;
    let previous =
        usage_month(first_of_month.and_time(NaiveTime::MIN).and_utc() - Duration::days(1));
    (mode == Mode::Live).then(|| LiveCreates {
        attribute: live_created_attribute(&usage_month(at)),
        previous: live_created_attribute(&previous),
        count,
    })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::dynamo::account_items;
    use domain::{Account, Plan, SubscriptionStatus, api_window};
    use test_support::active_account;

    fn plans() -> Plans {
        Plans::new(vec![Plan {
            name: "tiny".into(),
            verifications_per_month: 10,
            api_requests_per_day: 2,
            api_access: true,
            sms_per_month: 0,
            key_burst: Default::default(),
        }])
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap()
    }

    fn key() -> PresentedKey {
        PresentedKey {
            key_id: "key_1".into(),
            key_hash: "hash_1".into(),
            account_id: "acct".into(),
            mode: Mode::Test,
        }
    }

    /// The account, this window's requests already `used`.
    fn account(used: u32) -> Account {
        let mut a = active_account("acct", "tiny", now());
        a.api_keys.insert(key().key_hash, Mode::Test);
        a.api_window = Some(api_window(now()));
        a.api_requests = used;
        a
    }

    /// The rule's refusal of one more request, on the account's two items as stored.
    fn why(account: &Account) -> Option<MeterRefusal> {
        let (item, usage) = account_items(account).unwrap();
        let plans = plans();
        judged(&item, &usage.unwrap_or_default(), &key(), now(), &plans)
            .unwrap()
            .err()
    }

    #[test]
    fn the_accounts_refusal_is_read_off_its_two_items() {
        let mut revoked = account(0);
        revoked.revoked_keys.push(key().key_id);
        assert_eq!(why(&revoked), Some(MeterRefusal::KeyRevoked));
        let mut inactive = account(0);
        inactive.subscription_status = SubscriptionStatus::Canceled;
        assert!(matches!(
            why(&inactive),
            Some(MeterRefusal::SubscriptionInactive(_))
        ));
        assert!(matches!(
            why(&account(2)),
            Some(MeterRefusal::LimitExceeded(a)) if a.api_requests == 2
        ));
        // The key's burst spent: 20 at once, the next one waits for its interval (200 ms).
        let mut busy = account(0);
        let ahead = 20 * 200;
        busy.key_bursts
            .insert(key().key_id, now().timestamp_millis() + ahead);
        assert!(matches!(
            why(&busy),
            Some(MeterRefusal::BurstExceeded(_, 200))
        ));
        // Under the allowance (another clause refused, e.g. the monthly allowance), and a new
        // window: allowed.
        assert_eq!(why(&account(1)), None);
        let mut yesterday = account(2);
        yesterday.api_window = Some("2026-03-09".into());
        assert_eq!(why(&yesterday), None);
    }

    #[test]
    fn a_count_refused_on_a_burst_another_request_moved_is_built_again() {
        let at = |ms: i64| -> Item {
            let mut a = account(0);
            a.key_bursts.insert(key().key_id, ms);
            account_items(&a).unwrap().1.unwrap()
        };
        let now_ms = now().timestamp_millis();
        // Taken from now, but another request left it ahead: moved.
        assert!(burst_moved(&at(now_ms + 200), &key(), now(), true));
        // Taken from now, and it still is (the refusal was the condition's own): not moved.
        assert!(!burst_moved(&at(now_ms - 5), &key(), now(), true));
        assert!(!burst_moved(&Item::new(), &key(), now(), true));
        // Taken as ahead, and it fell back (no request since): moved; still ahead: not.
        assert!(burst_moved(&Item::new(), &key(), now(), false));
        assert!(!burst_moved(&at(now_ms + 400), &key(), now(), false));
    }
}
