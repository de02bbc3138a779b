//! The API allowance of a request: the account and its usage read (`usage`), judged by the
//! domain's rule (the key listed and not revoked, the plan, the subscription, the day's count on
//! the day's own attribute: `api_day`, the key's burst), then one conditional write on the usage
//! item counts it, alone for a read, or as the first item of the transaction of a write that
//! carries its own metering (`metered_create`, `metered_reach`).

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    CancellationReason, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use chrono::{DateTime, Utc};

use super::api_day::{account_at, day_attribute, earlier_day_attributes};
use super::contention::send_update;
use super::items::{Item, n};
use super::usage::{burst_attribute, key_bursts_of, merged};
use super::{DynamoStore, Expr, unavailable};
use domain::Plan;
use domain::metering::{
    BurstStep, MeterDecision, MeterOutcome, MeterRefusal, PresentedKey, burst_step, classify_meter,
};
use domain::plans::Plans;
use ports::{
    CreateRefusal, HouseholdCancelRefusal, MeterStore, Metered, RedeliveryRefusal, StoreError,
    VerificationRefusal,
};
use service::table_schema::keys;

impl MeterStore for DynamoStore {
    async fn meter_and_create(
        &self,
        create: &ports::MeteredCreate<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        self.metered_create(create).await
    }

    async fn meter_and_create_household(
        &self,
        create: &ports::MeteredHousehold<'_>,
    ) -> Result<Metered<(), CreateRefusal>, StoreError> {
        self.metered_household(create).await
    }

    async fn meter_and_cancel(
        &self,
        cancel: &ports::MeteredCancel<'_>,
    ) -> Result<Metered<(), VerificationRefusal>, StoreError> {
        self.metered_cancel(cancel).await
    }

    async fn meter_and_cancel_household(
        &self,
        cancel: &ports::MeteredHouseholdCancel<'_>,
    ) -> Result<Metered<(), HouseholdCancelRefusal>, StoreError> {
        self.metered_household_cancel(cancel).await
    }

    async fn meter_and_resend(
        &self,
        resend: &ports::MeteredResend<'_>,
    ) -> Result<Metered<domain::Verification, VerificationRefusal>, StoreError> {
        self.metered_resend(resend).await
    }

    async fn meter_and_redeliver(
        &self,
        redelivery: &ports::MeteredRedelivery<'_>,
    ) -> Result<Metered<domain::webhook_log::StoredWebhookEvent, RedeliveryRefusal>, StoreError>
    {
        self.metered_redelivery(redelivery).await
    }

    async fn meter_api_request(
        &self,
        presented: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        let Some((account_item, usage)) = self.account_and_usage(&presented.account_id).await?
        else {
            return Ok(MeterOutcome::Refused(MeterRefusal::UnknownAccount));
        };
        self.count_alone(&account_item, usage, presented, now, plans)
            .await
    }
}

impl DynamoStore {
    /// One request of `presented` counted alone on the account's usage item, the account and its
    /// usage as read. The rule judges them; the write's condition holds the usage to what the
    /// rule allowed. Refused by a concurrent count (the day's last request taken, the key's burst
    /// moved on), the rule judges the usage its condition saw.
    pub(super) async fn count_alone(
        &self,
        account_item: &Item,
        mut usage: Item,
        presented: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        for _ in 0..4 {
            let allowed = match judged(account_item, &usage, presented, now, plans)? {
                Ok(allowed) => allowed,
                Err(refusal) => return Ok(MeterOutcome::Refused(refusal)),
            };
            let mut expr = Expr::default();
            let count = UsageCount::new(&mut expr, presented, now, &allowed, None);
            let result = send_update(
                self.update_item(&keys::usage(&presented.account_id))
                    .update_expression(count.expression())
                    .condition_expression(count.condition)
                    .set_expression_attribute_names(expr.names())
                    .set_expression_attribute_values(expr.values())
                    .return_values(ReturnValue::UpdatedNew)
                    .return_values_on_condition_check_failure(
                        ReturnValuesOnConditionCheckFailure::AllOld,
                    ),
            )
            .await?;
            match result {
                Ok(out) => {
                    usage.extend(out.attributes.unwrap_or_default());
                    let after = account_at(merged(account_item, &usage), now)?;
                    return Ok(MeterOutcome::Allowed(after));
                }
                Err(e) => match e.into_service_error() {
                    UpdateItemError::ConditionalCheckFailedException(c) => {
                        usage = c.item.unwrap_or_default();
                    }
                    other => return Err(unavailable(other)),
                },
            }
            tracing::info!("API allowance count met a concurrent count; judging again");
        }
        Err(StoreError::Unavailable(
            "API allowance update kept conflicting".into(),
        ))
    }
}

/// A request the domain's rule allows: the account's plan, and the key's burst step it allowed.
pub(super) struct Allowed<'p> {
    pub plan: &'p Plan,
    pub burst: BurstStep,
}

/// The account (its item and its usage's counters) as the domain's rule judges one more request
/// of `key` at `now`: allowed, or why not.
pub(super) fn judged<'p>(
    account_item: &Item,
    usage: &Item,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &'p Plans,
) -> Result<Result<Allowed<'p>, MeterRefusal>, StoreError> {
    let account = account_at(merged(account_item, usage), now)?;
    let plan = plans.get(&account.plan);
    let decision = classify_meter(Some(account.clone()), plan, key, now);
    let stored = account.key_bursts.get(&key.key_id).copied();
    Ok(match (decision, plan) {
        (MeterDecision::Refuse(refusal), _) => Err(refusal),
        (MeterDecision::Count | MeterDecision::StartWindow, Some(plan)) => {
            match burst_step(stored, now.timestamp_millis(), plan.key_burst) {
                Ok(burst) => Ok(Allowed { plan, burst }),
                Err(wait_ms) => Err(MeterRefusal::BurstExceeded(account, wait_ms)),
            }
        }
        // The rule refuses a plan the configuration does not know.
        (_, None) => Err(MeterRefusal::NoApiAccess(account)),
    })
}

/// The live verifications a write creates, for the count condition: the usage attribute of their
/// month (`live_month::live_created_attribute`), the month before's, and how many.
pub(super) struct LiveCreates {
    pub attribute: String,
    pub previous: String,
    pub count: u64,
}

/// One request's count on the usage item, as the rule allowed it: the day's counter up by one
/// within the plan's allowance, the key's burst moved on within its bound, the live month's
/// creates within its allowance (a create's), and the counters no longer read removed.
pub(super) struct UsageCount {
    pub condition: String,
    adds: Vec<String>,
    sets: Vec<String>,
    removes: Vec<String>,
    /// Whether the key's burst state was taken as starting from now (`BurstStep::from_now`).
    pub burst_from_now: bool,
}

impl UsageCount {
    /// The count of one request of `key` at `now`, as the rule `allowed` it, built into `expr`.
    pub(super) fn new(
        expr: &mut Expr,
        key: &PresentedKey,
        now: DateTime<Utc>,
        allowed: &Allowed<'_>,
        live: Option<&LiveCreates>,
    ) -> UsageCount {
        let (plan, step) = (allowed.plan, allowed.burst);
        let day = expr.names_as("api_day", &day_attribute(now));
        let one = expr.value("one", n(1));
        let limit = expr.value("day_limit", n(plan.api_requests_per_day));
        let mut condition = vec![format!("(attribute_not_exists({day}) OR {day} < {limit})")];
        let mut adds = vec![format!("{day} {one}")];
        let mut removes: Vec<String> = (earlier_day_attributes(now).iter().enumerate())
            .map(|(i, earlier)| expr.names_as(&format!("api_day_{}", i + 1), earlier))
            .collect();
        let now_ms = now.timestamp_millis();
        let burst = expr.names_as("burst", &burst_attribute(&key.key_id));
        let now_v = expr.value("now_ms", n(now_ms));
        let sets = if step.from_now {
            condition.push(format!(
                "(attribute_not_exists({burst}) OR {burst} <= {now_v})"
            ));
            vec![format!(
                "{burst} = {}",
                expr.value("burst_next", n(step.next_ms))
            )]
        } else {
            let latest = expr.value("burst_latest", n(now_ms + step.tolerance_ms));
            condition.push(format!("{burst} > {now_v} AND {burst} <= {latest}"));
            let interval = expr.value("burst_interval", n(step.interval_ms));
            vec![format!("{burst} = {burst} + {interval}")]
        };
        if let Some(live) = live {
            let month = expr.names_as("live_month", &live.attribute);
            let allowance = u64::from(plan.verifications_per_month);
            // More creates than the allowance: no count of the month makes room (a missing one
            // included), so the condition can't hold.
            condition.push(match allowance.checked_sub(live.count) {
                Some(most) => {
                    let most = expr.value("month_most", n(most));
                    format!("(attribute_not_exists({month}) OR {month} <= {most})")
                }
                None => format!("{month} < {}", expr.value("zero", n(0))),
            });
            adds.push(format!(
                "{month} {}",
                expr.value("live_count", n(live.count))
            ));
            // Last month's count is no longer checked: keep the usage item from growing.
            removes.push(expr.names_as("live_previous", &live.previous));
        }
        UsageCount {
            condition: condition.join(" AND "),
            adds,
            sets,
            removes,
            burst_from_now: step.from_now,
        }
    }

    /// Another attribute to set in the same write (the metered write's marker).
    pub(super) fn also_set(&mut self, assignment: String) {
        self.sets.push(assignment);
    }

    /// The whole update expression.
    pub(super) fn expression(&self) -> String {
        format!(
            "ADD {} SET {} REMOVE {}",
            self.adds.join(", "),
            self.sets.join(", "),
            self.removes.join(", ")
        )
    }
}

/// Whether a count refused on `usage` (as its condition saw it) took the key's burst state the
/// other way (`UsageCount::burst_from_now`): a concurrent request of the key moved it, so the
/// count is built again; otherwise the refusal was the condition's own.
pub(super) fn burst_moved(
    usage: &Item,
    key: &PresentedKey,
    now: DateTime<Utc>,
    burst_from_now: bool,
) -> bool {
    let stored = key_bursts_of(usage)
        .find(|(k, _)| *k == key.key_id)
        .map(|(_, at)| at);
    let from_now = stored.is_none_or(|at| at <= now.timestamp_millis());
    from_now != burst_from_now
}

/// Whether a transaction's item `i` was refused by its condition, with the item as the condition
/// saw it when the write asked for it (None inside: no such item).
pub(super) fn refused_item(reasons: &[CancellationReason], i: usize) -> Option<Option<&Item>> {
    reasons
        .get(i)
        .filter(|r| r.code() == Some("ConditionalCheckFailed"))
        .map(|r| r.item.as_ref())
}
