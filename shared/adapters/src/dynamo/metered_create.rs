//! Writes that carry their own metering: the count of the request on the account and the
//! operation's writes (a create, a household create, a cancel) in ONE transaction, so such an API
//! request costs one DynamoDB round trip. The account as the count left it is read beside it (a
//! transaction returns no item). A refusal is told by the items as the conditions saw them,
//! returned with the cancellation: by the account (one round trip, nothing counted), or by the
//! operation's own items, after which the request alone is counted (a second round trip).

use aws_sdk_dynamodb::types::{
    CancellationReason, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Datelike, Duration, NaiveTime, Utc};

use super::api_day::account_from_item;
use super::items::{from_item, n, s};
use super::live_month::{MonthCheck, live_created_attribute};
use super::metering::{
    CountActions, LiveCreates, count_actions, count_condition, refused_item, refused_meter,
};
use super::{DynamoStore, Expr, unavailable};
use domain::metering::{MeterOutcome, PresentedKey, count_one};
use domain::plans::Plans;
use domain::{Mode, Verification, usage_month};
use ports::{
    CountedRefusal, CreateRefusal, IdempotencyClaim, MeterStore, Metered, MeteredCancel,
    MeteredCreate, MeteredHousehold, StoreError, VerificationRefusal,
};
use service::table_schema::{self as schema, keys};

/// The account attribute a metered write marks with a value of its own (the verification id), so
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
        let Some(count) = self.count_update(key, now, plans, &marker, live)? else {
            return self
                .refused_alone(key, now, plans, CreateRefusal::LimitReached)
                .await;
        };
        let mut items = vec![count];
        items.extend(self.create_items(v, idempotency, MonthCheck::ByCount)?);
        // After the count: the verification, then its idempotency record (`create_items`).
        let why = |reasons: &[CancellationReason]| create_refusal(reasons, 2, idempotency);
        self.transact_counted(items, (key, now, plans), &marker, why)
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
        let Some(count) = self.count_update(key, now, plans, &marker, live)? else {
            return self
                .refused_alone(key, now, plans, CreateRefusal::LimitReached)
                .await;
        };
        let mut items = vec![count];
        items.extend(self.household_items(household, members, idempotency, MonthCheck::ByCount)?);
        // After the count: the household, then its idempotency record (`household_items`).
        let why = |reasons: &[CancellationReason]| create_refusal(reasons, 2, idempotency);
        self.transact_counted(items, (key, now, plans), &marker, why)
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
        let count = self.count_update(key, now, plans, &marker, None)?;
        let Some(count) = count else {
            return self.no_api_plan(key, now, plans).await;
        };
        let mut items = vec![count];
        items.extend(self.cancel_open_items(verification_id, &key.account_id, key.mode, now)?);
        let why = |reasons: &[CancellationReason]| {
            let Some(seen) = seen_own_verification(reasons, 1, key)? else {
                return Ok(None);
            };
            Ok(Some(match seen {
                Some(v) => VerificationRefusal::Closed(Box::new(v)),
                None => VerificationRefusal::NotFound,
            }))
        };
        self.transact_counted(items, (key, now, plans), &marker, why)
            .await
    }

    /// The count of one request of `key` in the current window, for a transaction (None when no
    /// plan with API access allows it), marking the account with `marker`. With `live`, the
    /// account's count of the live month moves too, within the plan's monthly allowance (the
    /// one count of the live month: `live_month`). A refusal carries the account as the condition
    /// saw it, which tells why.
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
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        Ok(Some(TransactWriteItem::builder().update(count).build()))
    }

    /// Runs the transaction (its first item `count_update`'s) with the account read beside it.
    /// Done: the account after the count. Refused: by the account (the rule on the account as its
    /// condition saw it), or else for what `why` reads off the reasons (the items as the
    /// operation's conditions saw them), and then the request alone is counted
    /// (`refused_alone`). Nothing else is written unless all held.
    pub(super) async fn transact_counted<R: CountedRefusal>(
        &self,
        items: Vec<TransactWriteItem>,
        meter: (&PresentedKey, DateTime<Utc>, &Plans),
        marker: &str,
        why: impl FnOnce(&[CancellationReason]) -> Result<Option<R>, StoreError>,
    ) -> Result<Metered<(), R>, StoreError> {
        let (key, now, plans) = meter;
        let read = self
            .get_item(&keys::account(&key.account_id))
            .consistent_read(true)
            .send();
        let (written, read) = futures::join!(self.transact_with_reasons(items), read);
        if let Err(reasons) = written? {
            if let Some(seen) = refused_item(&reasons, 0)
                && let Some(refusal) = refused_meter(seen, key, now, plans)?
            {
                return Ok(Metered::AccountRefused(refusal));
            }
            let Some(why) = why(&reasons)? else {
                return Err(StoreError::Unavailable(format!(
                    "metered write refused for no known reason: {:?}",
                    reasons.iter().map(|r| r.code()).collect::<Vec<_>>()
                )));
            };
            if !why.counts_the_request() {
                let item = read.map_err(unavailable)?.item.unwrap_or_default();
                return Ok(Metered::Refused(account_from_item(item)?, why));
            }
            return self.refused_alone(key, now, plans, why).await;
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
        Ok(Metered::Done(after, ()))
    }

    /// A refused operation's request, counted alone as `meter_api_request` counts one.
    pub(super) async fn refused_alone<T, R>(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
        why: R,
    ) -> Result<Metered<T, R>, StoreError> {
        Ok(match self.meter_api_request(key, now, plans).await? {
            MeterOutcome::Allowed(account) => Metered::Refused(account, why),
            MeterOutcome::Refused(refusal) => Metered::AccountRefused(refusal),
        })
    }

    /// No plan has API access: the rule refuses (`meter_api_request` says why), never counts.
    pub(super) async fn no_api_plan<T, R>(
        &self,
        key: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<Metered<T, R>, StoreError> {
        match self.meter_api_request(key, now, plans).await? {
            MeterOutcome::Refused(refusal) => Ok(Metered::AccountRefused(refusal)),
            MeterOutcome::Allowed(_) => Err(StoreError::Unavailable(
                "a request counted without a plan with API access".into(),
            )),
        }
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
    use crate::dynamo::account_item;
    use domain::metering::MeterRefusal;
    use domain::{Account, Plan, SubscriptionStatus, api_window};
    use test_support::active_account;

    fn plans() -> Plans {
        Plans::new(vec![Plan {
            name: "tiny".into(),
            verifications_per_month: 10,
            api_requests_per_day: 2,
            api_access: true,
            sms_per_month: 0,
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

    /// The account's refusal, as `transact_counted` reads it off the count's reason.
    fn why(reason: &CancellationReason) -> Option<MeterRefusal> {
        let reasons = [reason.clone()];
        let seen = refused_item(&reasons, 0)?;
        refused_meter(seen, &key(), now(), &plans()).unwrap()
    }

    #[test]
    fn the_accounts_refusal_is_read_off_the_item_its_condition_saw() {
        assert_eq!(why(&failed(None)), Some(MeterRefusal::UnknownAccount));
        let mut revoked = account(0);
        revoked.revoked_keys.push(key().key_id);
        assert_eq!(why(&failed(Some(&revoked))), Some(MeterRefusal::KeyRevoked));
        let mut inactive = account(0);
        inactive.subscription_status = SubscriptionStatus::Canceled;
        assert!(matches!(
            why(&failed(Some(&inactive))),
            Some(MeterRefusal::SubscriptionInactive(_))
        ));
        assert!(matches!(
            why(&failed(Some(&account(2)))),
            Some(MeterRefusal::LimitExceeded(a)) if a.api_requests == 2
        ));
    }

    #[test]
    fn what_the_account_allows_is_not_its_refusal() {
        // Under the allowance (another clause refused, e.g. the monthly allowance), a new window,
        // and a count whose own condition held (another item of the transaction refused).
        assert_eq!(why(&failed(Some(&account(1)))), None);
        let mut yesterday = account(2);
        yesterday.api_window = Some("2026-03-09".into());
        assert_eq!(why(&failed(Some(&yesterday))), None);
        let held = CancellationReason::builder().code("None").build();
        assert_eq!(why(&held), None);
    }
}
