//! The daily API allowance on the account item: one conditional write counts a request (the key
//! listed there and not revoked, the plan, the subscription and the day's count, on the day's own
//! attribute: `api_day`), alone for a read, or as the first item of the transaction of a write that
//! carries its own metering (`metered_create`, `metered_reach`).

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    CancellationReason, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use chrono::{DateTime, Utc};

use super::api_day::{account_at, account_from_item, day_attribute, earlier_day_attributes};
use super::contention::send_update;
use super::items::{Item, n, s};
use super::{DynamoStore, Expr, unavailable};
use domain::metering::{MeterDecision, MeterOutcome, MeterRefusal, PresentedKey, classify_meter};
use domain::plans::Plans;
use domain::{Account, Plan, SubscriptionStatus};
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
        let key = keys::account(&presented.account_id);
        let api_plans: Vec<_> = plans.iter().filter(|p| p.api_access).collect();
        if api_plans.is_empty() {
            // No plan has API access: the rule refuses (NoApiAccess or earlier), never counts.
            let old = self.get(key).await?;
            let refused = refused_meter(old.as_ref(), presented, now, plans)?;
            return Ok(MeterOutcome::Refused(
                refused.unwrap_or(MeterRefusal::UnknownAccount),
            ));
        }
        // The condition and the rule read the same item, so a refusal is told at once; a count
        // the rule would allow was refused on an item that changed in between: go round.
        for _ in 0..3 {
            let mut expr = Expr::default();
            let condition = count_condition(&mut expr, presented, now, &api_plans, None);
            let update = count_actions(&mut expr, now).expression();
            let result = send_update(
                self.update_item(&key)
                    .update_expression(update)
                    .condition_expression(condition)
                    .set_expression_attribute_names(expr.names())
                    .set_expression_attribute_values(expr.values())
                    .return_values(ReturnValue::AllNew)
                    .return_values_on_condition_check_failure(
                        ReturnValuesOnConditionCheckFailure::AllOld,
                    ),
            )
            .await?;
            let old = match result {
                Ok(out) => {
                    let after = account_from_item(out.attributes.unwrap_or_default())?;
                    return Ok(MeterOutcome::Allowed(after));
                }
                Err(e) => match e.into_service_error() {
                    UpdateItemError::ConditionalCheckFailedException(c) => c.item,
                    other => return Err(unavailable(other)),
                },
            };
            if let Some(refused) = refused_meter(old.as_ref(), presented, now, plans)? {
                return Ok(MeterOutcome::Refused(refused));
            }
            // Rare by design (it costs a round trip): say so, so a pattern shows in the logs.
            tracing::warn!(
                "API allowance count refused on an item the rule allows; counting again"
            );
        }
        Err(StoreError::Unavailable(
            "API allowance update kept conflicting".into(),
        ))
    }
}

/// The live verifications a write creates, for the count condition: the account's attribute of
/// their month (`live_month::live_created_attribute`) and how many.
pub(super) struct LiveCreates<'a> {
    pub attribute: &'a str,
    pub count: u64,
}

/// The actions of counting one request: the day's counter up by one (value `:one`), the counters
/// of the days before removed.
pub(super) struct CountActions {
    pub add: String,
    pub remove: Vec<String>,
}

impl CountActions {
    /// The whole update expression of a count alone.
    fn expression(&self) -> String {
        format!("ADD {} REMOVE {}", self.add, self.remove.join(", "))
    }
}

/// Builds a count's actions at `now` into `expr` (value `:one`).
pub(super) fn count_actions(expr: &mut Expr, now: DateTime<Utc>) -> CountActions {
    let day = expr.names_as("api_day", &day_attribute(now));
    let one = expr.value("one", n(1));
    let remove = (earlier_day_attributes(now).iter().enumerate())
        .map(|(i, earlier)| expr.names_as(&format!("api_day_{}", i + 1), earlier))
        .collect();
    CountActions {
        add: format!("{day} {one}"),
        remove,
    }
}

/// The condition of counting one more request of `presented` on its account at `now`, built into
/// `expr`: the key and the subscription (`common_condition`) and room in the day's count by the
/// plan's allowance. `api_plans` is not empty. With `live`, each plan's clause also requires room
/// for `live.count` in its monthly allowance (name `#live_month`); every plan in `api_plans`
/// allows at least that many.
pub(super) fn count_condition(
    expr: &mut Expr,
    presented: &PresentedKey,
    now: DateTime<Utc>,
    api_plans: &[&Plan],
    live: Option<&LiveCreates<'_>>,
) -> String {
    let common = common_condition(expr, presented);
    let day = expr.names_as("api_day", &day_attribute(now));
    let allowance = plan_allowance(expr, api_plans, &day, live);
    format!("{common} AND ({allowance})")
}

/// The key (its hash listed on the account with its mode; not revoked) and the subscription.
fn common_condition(expr: &mut Expr, presented: &PresentedKey) -> String {
    let sub = expr.name("subscription_status");
    let revoked = expr.name("revoked_keys");
    let listed = expr.name("api_keys");
    let hash = expr.names_as("keyhash", &presented.key_hash);
    let mode = expr.value("mode", s(presented.mode.as_str()));
    let kid = expr.value("kid", s(&presented.key_id));
    let active = expr.value("active", s(SubscriptionStatus::Active.as_str()));
    let trialing = expr.value("trialing", s(SubscriptionStatus::Trialing.as_str()));
    format!(
        "attribute_exists(PK) AND {listed}.{hash} = {mode} AND {sub} IN ({active}, {trialing}) AND (attribute_not_exists({revoked}) OR NOT contains({revoked}, {kid}))"
    )
}

/// Room for one more request in `counter` (a missing counter is zero) by the allowance of the
/// account's plan, which lives on the same item: one clause per plan.
fn plan_allowance(
    expr: &mut Expr,
    api_plans: &[&Plan],
    counter: &str,
    live: Option<&LiveCreates<'_>>,
) -> String {
    let plan = expr.name("plan");
    let mut under_limit = Vec::new();
    for (i, p) in api_plans.iter().enumerate() {
        let pv = expr.value(&format!("p{i}"), s(&p.name));
        let lv = expr.value(&format!("l{i}"), n(p.api_requests_per_day));
        let mut clause =
            format!("{plan} = {pv} AND (attribute_not_exists({counter}) OR {counter} < {lv})");
        if let Some(live) = live {
            let month = expr.names_as("live_month", live.attribute);
            let most = u64::from(p.verifications_per_month).saturating_sub(live.count);
            let mv = expr.value(&format!("m{i}"), n(most));
            clause = format!("{clause} AND (attribute_not_exists({month}) OR {month} <= {mv})");
        }
        under_limit.push(clause);
    }
    // DynamoDB refuses redundant parentheses: wrap each plan's clause only when there are
    // several to OR together.
    match under_limit.as_slice() {
        [only] => only.clone(),
        clauses => clauses
            .iter()
            .map(|c| format!("({c})"))
            .collect::<Vec<_>>()
            .join(" OR "),
    }
}

/// Why the conditional count was refused, by the domain's rule applied to the account as the
/// condition saw it (no item: no such account); None when the rule allows it (another clause
/// refused: the monthly allowance of a create, or the item changed in between).
pub(super) fn refused_meter(
    old: Option<&Item>,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &Plans,
) -> Result<Option<MeterRefusal>, StoreError> {
    let account: Option<Account> = old.cloned().map(|i| account_at(i, now)).transpose()?;
    let plan = account.as_ref().and_then(|a| plans.get(&a.plan));
    Ok(match classify_meter(account, plan, key, now) {
        MeterDecision::Refuse(refusal) => Some(refusal),
        MeterDecision::Count | MeterDecision::StartWindow => None,
    })
}

/// Whether a transaction's item `i` was refused by its condition, with the item as the condition
/// saw it when the write asked for it (None inside: no such item).
pub(super) fn refused_item(reasons: &[CancellationReason], i: usize) -> Option<Option<&Item>> {
    reasons
        .get(i)
        .filter(|r| r.code() == Some("ConditionalCheckFailed"))
        .map(|r| r.item.as_ref())
}
