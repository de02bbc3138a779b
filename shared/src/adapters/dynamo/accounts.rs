//! The account item and what lives on it: the account itself, its daily API allowance (metered
//! with one conditional update), and its webhook signing secrets (a sibling item).

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
use chrono::{DateTime, Utc};

use super::contention::send_update;
use super::items::{Item, account_item, from_item, n, s, webhook_secrets_item};
use super::schema::{WEBHOOK_SECRET_ATTRIBUTES, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::config::Plans;
use crate::domain::metering::{MeterDecision, MeterOutcome, PresentedKey, classify_meter};
use crate::domain::{Account, Plan, SubscriptionStatus, api_window, format_ts};
use crate::ports::{AccountStore, MeterStore, StoreError, WebhookSecretStore, WebhookSecrets};

impl AccountStore for DynamoStore {
    async fn put_account(&self, account: &Account) -> Result<(), StoreError> {
        let item = account_item(account)?;
        self.put_new(item).await
    }

    async fn get_account(&self, account_id: &str) -> Result<Option<Account>, StoreError> {
        self.read(keys::account(account_id)).await
    }

    async fn update_account(
        &self,
        account_id: &str,
        plan: Option<&str>,
        subscription: Option<(SubscriptionStatus, DateTime<Utc>)>,
    ) -> Result<bool, StoreError> {
        let mut expr = Expr::default();
        let mut sets = Vec::new();
        if let Some(plan) = plan {
            sets.push(expr.set("plan", "plan", s(plan)));
        }
        if let Some((status, end)) = subscription {
            sets.push(expr.set("subscription_status", "sub", s(status.as_str())));
            sets.push(expr.set("current_period_end", "end", s(format_ts(end))));
        }
        if sets.is_empty() {
            return Ok(self.get_account(account_id).await?.is_some());
        }
        let result = send_update(
            self.update_item(&keys::account(account_id))
                .update_expression(format!("SET {}", sets.join(", ")))
                .condition_expression("attribute_exists(PK)")
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values()),
        )
        .await?;
        match result {
            Ok(_) => Ok(true),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(unavailable(e)),
        }
    }
}

impl MeterStore for DynamoStore {
    async fn meter_and_create(
        &self,
        create: &crate::ports::MeteredCreate<'_>,
    ) -> Result<Option<Account>, StoreError> {
        self.metered_create(create).await
    }

    async fn meter_and_create_household(
        &self,
        create: &crate::ports::MeteredHousehold<'_>,
    ) -> Result<Option<Account>, StoreError> {
        self.metered_household(create).await
    }

    async fn meter_and_cancel(
        &self,
        cancel: &crate::ports::MeteredCancel<'_>,
    ) -> Result<Option<Account>, StoreError> {
        self.metered_cancel(cancel).await
    }

    async fn meter_and_cancel_household(
        &self,
        cancel: &crate::ports::MeteredHouseholdCancel<'_>,
    ) -> Result<Option<Account>, StoreError> {
        self.metered_household_cancel(cancel).await
    }

    async fn meter_and_resend(
        &self,
        resend: &crate::ports::MeteredResend<'_>,
    ) -> Result<Option<(Account, crate::domain::Verification)>, StoreError> {
        self.metered_resend(resend).await
    }

    async fn meter_and_redeliver(
        &self,
        redelivery: &crate::ports::MeteredRedelivery<'_>,
    ) -> Result<Option<Account>, StoreError> {
        self.metered_redelivery(redelivery).await
    }

    async fn meter_api_request(
        &self,
        presented: &PresentedKey,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        let account_id = presented.account_id.as_str();
        let window = api_window(now);
        let api_plans: Vec<_> = plans.iter().filter(|p| p.api_access).collect();
        for _ in 0..3 {
            if api_plans.is_empty() {
                let old = self.get(keys::account(account_id)).await?;
                // No plan has API access: the rule refuses (NoApiAccess or earlier), never counts.
                let refused = refused_meter(old, presented, now, plans)?;
                return Ok(refused.unwrap_or(MeterOutcome::UnknownAccount));
            }
            let mut expr = Expr::default();
            let CountCondition {
                common,
                same_window,
                plan_names,
            } = count_condition(&mut expr, presented, &window, &api_plans, None);
            let (win, req, plan) = (
                expr.name("api_window"),
                expr.name("api_requests"),
                expr.name("plan"),
            );
            let (w, one) = (expr.value("win", s(&window)), expr.value("one", n(1)));
            let key = keys::account(account_id);
            let result = send_update(
                self.update_item(&key)
                    .update_expression(format!("ADD {req} {one}"))
                    .condition_expression(same_window)
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
                    return Ok(MeterOutcome::Allowed(from_item(
                        out.attributes.unwrap_or_default(),
                    )?));
                }
                Err(e) => match e.into_service_error() {
                    UpdateItemError::ConditionalCheckFailedException(c) => match c.item {
                        Some(item) => Some(item),
                        None => self.get(keys::account(account_id)).await?,
                    },
                    other => return Err(unavailable(other)),
                },
            };
            if let Some(refused) = refused_meter(old, presented, now, plans)? {
                return Ok(refused);
            }
            // First request of a new window: reset the counter to one, with the same guards.
            let mut reset_expr = Expr {
                names: expr.names.clone(),
                values: expr.values.clone(),
            };
            reset_expr.values.retain(|k, _| !k.starts_with(":l"));
            let reset_cond = format!(
                "{common} AND (attribute_not_exists({win}) OR {win} <> {w}) AND {plan} IN ({})",
                plan_names.join(", ")
            );
            let result = send_update(
                self.update_item(&key)
                    .update_expression(format!("SET {win} = {w}, {req} = {one}"))
                    .condition_expression(reset_cond)
                    .set_expression_attribute_names(reset_expr.names())
                    .set_expression_attribute_values(reset_expr.values())
                    .return_values(ReturnValue::AllNew),
            )
            .await?;
            match result {
                Ok(out) => {
                    return Ok(MeterOutcome::Allowed(from_item(
                        out.attributes.unwrap_or_default(),
                    )?));
                }
                // Another request reset the window first: go round and count against it.
                Err(e)
                    if matches!(
                        e.as_service_error(),
                        Some(UpdateItemError::ConditionalCheckFailedException(_))
                    ) =>
                {
                    continue;
                }
                Err(e) => return Err(unavailable(e)),
            }
        }
        Err(StoreError::Unavailable(
            "API allowance update kept conflicting".into(),
        ))
    }
}

/// The condition of counting one more request of `presented` on its account in `window`.
pub(super) struct CountCondition {
    /// The key (listed on the account with its mode when it names the account; not revoked) and
    /// the subscription.
    pub common: String,
    /// `common`, the same window and the plan's allowance not used up.
    pub same_window: String,
    /// The placeholders of the API plans' names.
    pub plan_names: Vec<String>,
}

/// The live verifications a write creates, for the count condition: the account's attribute of
/// their month (`live_month::live_created_attribute`) and how many.
pub(super) struct LiveCreates<'a> {
    pub attribute: &'a str,
    pub count: u64,
}

/// Builds the count condition into `expr` (names `#api_window`, `#api_requests`, `#plan`, values
/// `:win`, `:one`, `:p<i>`, `:l<i>`, ...). `api_plans` is not empty. With `live`, each plan's
/// clause also requires room for `live.count` in its monthly allowance (name `#live_month`,
/// values `:m<i>`); every plan in `api_plans` allows at least that many.
pub(super) fn count_condition(
    expr: &mut Expr,
    presented: &PresentedKey,
    window: &str,
    api_plans: &[&Plan],
    live: Option<&LiveCreates<'_>>,
) -> CountCondition {
    let win = expr.name("api_window");
    let req = expr.name("api_requests");
    let plan = expr.name("plan");
    let sub = expr.name("subscription_status");
    let revoked = expr.name("revoked_keys");
    let w = expr.value("win", s(window));
    expr.value("one", n(1));
    let kid = expr.value("kid", s(&presented.key_id));
    let active = expr.value("active", s(SubscriptionStatus::Active.as_str()));
    let trialing = expr.value("trialing", s(SubscriptionStatus::Trialing.as_str()));
    let mut common = format!(
        "attribute_exists(PK) AND {sub} IN ({active}, {trialing}) AND (attribute_not_exists({revoked}) OR NOT contains({revoked}, {kid}))"
    );
    if presented.names_account {
        // The key authenticates here: its hash is listed on the account with its mode.
        let listed = expr.name("api_keys");
        expr.names
            .insert("#keyhash".into(), presented.key_hash.clone());
        let mode = expr.value("mode", s(presented.mode.as_str()));
        common = format!("{common} AND {listed}.#keyhash = {mode}");
    }
    // The allowance depends on the plan, which lives on the same item: one clause per plan.
    let mut under_limit = Vec::new();
    let mut plan_names = Vec::new();
    for (i, p) in api_plans.iter().enumerate() {
        let pv = expr.value(&format!("p{i}"), s(&p.name));
        let lv = expr.value(&format!("l{i}"), n(p.api_requests_per_day));
        let mut clause = format!("{plan} = {pv} AND {req} < {lv}");
        if let Some(live) = live {
            expr.names
                .insert("#live_month".into(), live.attribute.to_string());
            let most = u64::from(p.verifications_per_month).saturating_sub(live.count);
            let mv = expr.value(&format!("m{i}"), n(most));
            clause =
                format!("{clause} AND (attribute_not_exists(#live_month) OR #live_month <= {mv})");
        }
        under_limit.push(clause);
        plan_names.push(pv);
    }
    // DynamoDB refuses redundant parentheses: wrap each plan's clause only when there are
    // several to OR together.
    let allowance = match under_limit.as_slice() {
        [only] => only.clone(),
        clauses => clauses
            .iter()
            .map(|c| format!("({c})"))
            .collect::<Vec<_>>()
            .join(" OR "),
    };
    let same_window = format!("{common} AND {win} = {w} AND ({allowance})");
    CountCondition {
        common,
        same_window,
        plan_names,
    }
}

impl WebhookSecretStore for DynamoStore {
    async fn get_webhook_secrets(&self, account_id: &str) -> Result<WebhookSecrets, StoreError> {
        // Only the secrets' attributes: deliver-webhook's role may read nothing else (template.yaml).
        let mut get = self.get_item(&keys::webhook_secrets(account_id));
        let mut projection = Vec::new();
        for (i, attribute) in WEBHOOK_SECRET_ATTRIBUTES.iter().enumerate() {
            projection.push(format!("#a{i}"));
            get = get.expression_attribute_names(format!("#a{i}"), *attribute);
        }
        let out = get
            .projection_expression(projection.join(", "))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(out.item.map(from_item).transpose()?.unwrap_or_default())
    }

    async fn put_webhook_secrets(
        &self,
        account_id: &str,
        secrets: &WebhookSecrets,
    ) -> Result<(), StoreError> {
        let item = webhook_secrets_item(account_id, secrets)?;
        self.put_item(item).send().await.map_err(unavailable)?;
        Ok(())
    }
}

/// Why the conditional count was refused, by the domain's rule applied to the account as the
/// condition saw it; None when only the window rolled over (the caller starts a new one).
fn refused_meter(
    old: Option<Item>,
    key: &PresentedKey,
    now: DateTime<Utc>,
    plans: &Plans,
) -> Result<Option<MeterOutcome>, StoreError> {
    let account: Option<Account> = old.map(from_item).transpose()?;
    let plan = account.as_ref().and_then(|a| plans.get(&a.plan));
    Ok(match classify_meter(account.clone(), plan, key, now) {
        MeterDecision::StartWindow => None,
        MeterDecision::Refuse(outcome) => Some(outcome),
        // Same window and a known plan: the condition refused on the counter.
        MeterDecision::Count => account.map(MeterOutcome::LimitExceeded),
    })
}
