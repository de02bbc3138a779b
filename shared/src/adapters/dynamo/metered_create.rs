//! Writes that carry their own metering: the count of the request on the account and the
//! operation's writes (a create, a household create, a cancel) in ONE transaction, so such an API request costs one
//! DynamoDB round trip. The account as the count left it is read beside it (a transaction returns
//! no item); a refusal by the account is told by the account as the condition saw it, returned
//! with the cancellation, so a refused request costs one round trip too.

use aws_sdk_dynamodb::types::{
    CancellationReason, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Datelike, Duration, NaiveTime, Utc};

use super::api_day::{account_at, account_from_item};
use super::items::{n, s};
use super::live_month::{MonthCheck, live_created_attribute};
use super::metering::{CountActions, LiveCreates, count_actions, count_condition};
use super::schema::{self, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::config::Plans;
use crate::domain::metering::{
    MeterDecision, MeterOutcome, PresentedKey, classify_meter, count_one,
};
use crate::domain::{Account, Mode, usage_month};
use crate::ports::{MeteredCancel, MeteredCreate, MeteredHousehold, StoreError};

/// The account attribute a metered write marks with a value of its own (the verification id), so
/// the read beside the transaction knows whether it saw the count.
const LAST_METERED_WRITE: &str = "api_last_metered_create";

impl DynamoStore {
    pub(super) async fn metered_create(
        &self,
        create: &MeteredCreate<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredCreate {
            key,
            now,
            plans,
            verification: v,
            idempotency,
        } = *create;
        let marker = v.verification_id.to_string();
        let Some(count) =
            self.count_update(key, now, plans, &marker, live(v.mode, v.created_at, 1))?
        else {
            return Ok(None);
        };
        let mut items = vec![count];
        items.extend(self.create_items(v, idempotency, MonthCheck::OnAccount)?);
        self.transact_counted(items, (key, now, plans), &marker)
            .await
    }

    pub(super) async fn metered_household(
        &self,
        create: &MeteredHousehold<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredHousehold {
            key,
            now,
            plans,
            household,
            members,
            idempotency,
        } = *create;
        let marker = household.household_id.to_string();
        let count = members.len() as u64;
        let Some(count) = self.count_update(
            key,
            now,
            plans,
            &marker,
            live(household.mode, household.created_at, count),
        )?
        else {
            return Ok(None);
        };
        let mut items = vec![count];
        items.extend(self.household_items(
            household,
            members,
            idempotency,
            MonthCheck::OnAccount,
        )?);
        self.transact_counted(items, (key, now, plans), &marker)
            .await
    }

    pub(super) async fn metered_cancel(
        &self,
        cancel: &MeteredCancel<'_>,
    ) -> Result<Option<Account>, StoreError> {
        let MeteredCancel {
            key,
            now,
            plans,
            verification_id,
        } = *cancel;
        let marker = verification_id.to_string();
        let Some(count) = self.count_update(key, now, plans, &marker, None)? else {
            return Ok(None);
        };
        let mut items = vec![count];
        items.extend(self.cancel_open_items(verification_id, &key.account_id, key.mode, now)?);
        self.transact_counted(items, (key, now, plans), &marker)
            .await
    }

    /// The count of one request of `key` in the current window, for a transaction (None when no
    /// plan with API access allows it), marking the account with `marker`. With `live`, the
    /// account's count of the live month moves too, within the plan's monthly allowance (the
    /// month item's count moves in the same transaction: `live_month`).
    pub(super) fn count_update(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
        marker: &str,
        live: Option<(String, String, u64)>,
    ) -> Result<Option<TransactWriteItem>, StoreError> {
        let previous = live.as_ref().map(|(_, previous, _)| previous.as_str());
        let live = live.as_ref().map(|(attribute, _, count)| LiveCreates {
            attribute,
            count: *count,
        });
        // A plan whose monthly allowance is below the creates can never allow them.
        let api_plans: Vec<_> = plans
            .iter()
            .filter(|p| {
                p.api_access
                    && live
                        .as_ref()
                        .is_none_or(|l| u64::from(p.verifications_per_month) >= l.count)
            })
            .collect();
        if api_plans.is_empty() {
            return Ok(None);
        }
        let mut expr = Expr::default();
        let condition = count_condition(&mut expr, key, now, &api_plans, live.as_ref());
        let CountActions { add, mut remove } = count_actions(&mut expr, now);
        let last = expr.name(LAST_METERED_WRITE);
        let marker = expr.value("marker", s(marker));
        let mut update = format!("ADD {add}");
        if let Some(live) = &live {
            let by = expr.value("live_count", n(live.count));
            update = format!("{update}, #live_month {by}");
        }
        if let Some(previous) = previous {
            // Last month's count is no longer checked: keep the account item from growing.
            remove.push(expr.name(previous));
        }
        update = format!(
            "{update} SET {last} = {marker} REMOVE {}",
            remove.join(", ")
        );
        let account = keys::account(&key.account_id);
        let count = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(&account.0))
            .key(schema::SK, s(&account.1))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            // A refusal carries the account as the condition saw it: it tells why (`refusal`).
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        Ok(Some(TransactWriteItem::builder().update(count).build()))
    }

    /// Runs the transaction (its first item `count_update`'s) with the account read beside it:
    /// the account after the count when it was written; `StoreError::MeterRefused` when the
    /// account refused the request (`refusal`); None when any other condition refused. Nothing is
    /// written or counted unless all held.
    pub(super) async fn transact_counted(
        &self,
        items: Vec<TransactWriteItem>,
        meter: (&PresentedKey, DateTime<Utc>, &Plans),
        marker: &str,
    ) -> Result<Option<Account>, StoreError> {
        let (key, now, plans) = meter;
        let read = self
            .get_item(&keys::account(&key.account_id))
            .consistent_read(true)
            .send();
        let (written, read) = futures::join!(self.transact_with_reasons(items), read);
        if let Err(reasons) = written? {
            return match refusal(reasons.first(), key, now, plans)? {
                Some(outcome) => Err(StoreError::MeterRefused(Box::new(outcome))),
                // The window, the monthly allowance or the operation's own conditions: the caller
                // goes the usual way, which tells why.
                None => Ok(None),
            };
        }
        let item = read.map_err(unavailable)?.item.unwrap_or_default();
        let saw_the_count = item
            .get(LAST_METERED_WRITE)
            .and_then(|m| m.as_s().ok())
            .is_some_and(|m| m == marker);
        let mut after = account_from_item(item)?;
        if !saw_the_count {
            count_one(&mut after, now);
        }
        Ok(Some(after))
    }
}

/// Why the account refused a metered write, from the count's cancellation reason: by the domain's
/// rule on the account as the condition saw it (no item: no such account). None when the account
/// allowed it (another item refused), or refused only for what the usual way settles (the first
/// request of a window, the monthly allowance).
fn refusal(
    count: Option<&CancellationReason>,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &Plans,
) -> Result<Option<MeterOutcome>, StoreError> {
    let Some(reason) = count.filter(|r| r.code() == Some("ConditionalCheckFailed")) else {
        return Ok(None);
    };
    let account = (reason.item().cloned())
        .map(|i| account_at(i, now))
        .transpose()?;
    let plan = account.as_ref().and_then(|a| plans.get(&a.plan));
    Ok(match classify_meter(account, plan, key, now) {
        MeterDecision::Refuse(outcome) => Some(outcome),
        MeterDecision::Count | MeterDecision::StartWindow => None,
    })
}

/// The live creates of a write made at `at`, for `count_update`: the account's attribute of their
/// month, the previous month's, and how many (None for test mode, which has no monthly allowance).
fn live(mode: Mode, at: DateTime<Utc>, count: u64) -> Option<(String, String, u64)> {
    let first_of_month = at.date_naive().with_day(1)?;
    let previous =
        usage_month(first_of_month.and_time(NaiveTime::MIN).and_utc() - Duration::days(1));
    (mode == Mode::Live).then(|| {
        (
            live_created_attribute(&usage_month(at)),
            live_created_attribute(&previous),
            count,
        )
    })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::adapters::dynamo::items::account_item;
    use crate::adapters::testing::active_account;
    use crate::domain::{Plan, SubscriptionStatus, api_window};

    fn plans() -> Plans {
        Plans::new(vec![Plan {
            name: "tiny".into(),
            verifications_per_month: 10,
            api_requests_per_day: 2,
            api_access: true,
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
            names_account: true,
        }
    }

    /// The account as a refused count's cancellation reason carries it, this window's requests
    /// already `used`.
    fn account(used: u32) -> Account {
        let mut a = active_account("acct", "tiny", now());
        a.api_keys.insert(key().key_hash, Mode::Test);
        a.api_window = Some(api_window(now()));
        a.api_requests = used;
        a
    }

    fn failed(account: Option<&Account>) -> CancellationReason {
        let item = account.map(|a| account_item(a).unwrap());
        CancellationReason::builder()
            .code("ConditionalCheckFailed")
            .set_item(item)
            .build()
    }

    fn why(reason: &CancellationReason) -> Option<MeterOutcome> {
        refusal(Some(reason), &key(), now(), &plans()).unwrap()
    }

    #[test]
    fn the_accounts_refusal_is_read_off_the_item_its_condition_saw() {
        assert_eq!(why(&failed(None)), Some(MeterOutcome::UnknownAccount));
        let mut revoked = account(0);
        revoked.revoked_keys.push(key().key_id);
        assert_eq!(why(&failed(Some(&revoked))), Some(MeterOutcome::KeyRevoked));
        let mut inactive = account(0);
        inactive.subscription_status = SubscriptionStatus::Canceled;
        assert!(matches!(
            why(&failed(Some(&inactive))),
            Some(MeterOutcome::SubscriptionInactive(_))
        ));
        assert!(matches!(
            why(&failed(Some(&account(2)))),
            Some(MeterOutcome::LimitExceeded(a)) if a.api_requests == 2
        ));
    }

    #[test]
    fn what_the_usual_way_settles_is_not_a_refusal() {
        // Under the allowance (another clause refused, e.g. the monthly allowance), a new window,
        // and a count whose own condition held (another item of the transaction refused).
        assert_eq!(why(&failed(Some(&account(1)))), None);
        let mut yesterday = account(2);
        yesterday.api_window = Some("2026-03-09".into());
        assert_eq!(why(&failed(Some(&yesterday))), None);
        let held = CancellationReason::builder().code("None").build();
        assert_eq!(why(&held), None);
        assert_eq!(refusal(None, &key(), now(), &plans()).unwrap(), None);
    }
}
