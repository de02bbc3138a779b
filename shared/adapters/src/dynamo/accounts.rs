//! The account item. The daily API allowance counted on it is `metering`'s.

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};

use super::account_items;
use super::api_day::account_from_item;
use super::contention::send_update;
use super::items::s;
use super::usage::merged;
use super::{DynamoStore, Expr, unavailable, written};
use domain::income::VerificationMethod;
use domain::{Account, SubscriptionStatus, format_ts};
use ports::{AccountStore, Requester, StoreError};
use service::table_schema::{
    ACCOUNT_DEFAULT_METHODS_ATTRIBUTE, ACCOUNT_NAME_ATTRIBUTE, ACCOUNT_PLAN_ATTRIBUTE, keys,
};

impl AccountStore for DynamoStore {
    async fn put_account(&self, account: &Account) -> Result<(), StoreError> {
        let (item, usage) = account_items(account)?;
        self.put_new(item).await?;
        // Counts an account starts with (a seeded one): its usage item, which nothing else
        // writes before the account exists.
        if let Some(usage) = usage {
            self.put_item(usage).send().await.map_err(unavailable)?;
        }
        Ok(())
    }

    async fn get_account(&self, account_id: &str) -> Result<Option<Account>, StoreError> {
        let Some((account, usage)) = self.account_and_usage(account_id).await? else {
            return Ok(None);
        };
        account_from_item(merged(&account, &usage)).map(Some)
    }

    async fn get_account_name(&self, account_id: &str) -> Result<Option<String>, StoreError> {
        let out = self
            .get_item(&keys::account(account_id))
            .projection_expression("#n")
            .expression_attribute_names("#n", ACCOUNT_NAME_ATTRIBUTE)
            .send()
            .await
            .map_err(unavailable)?;
        Ok(out
            .item
            .and_then(|item| item.get(ACCOUNT_NAME_ATTRIBUTE)?.as_s().ok().cloned()))
    }

    async fn get_requester(&self, account_id: &str) -> Result<Option<Requester>, StoreError> {
        let out = self
            .get_item(&keys::account(account_id))
            .projection_expression("#n, #p")
            .expression_attribute_names("#n", ACCOUNT_NAME_ATTRIBUTE)
            .expression_attribute_names("#p", ACCOUNT_PLAN_ATTRIBUTE)
            .send()
            .await
            .map_err(unavailable)?;
        let text = |item: &super::items::Item, name: &str| {
            item.get(name).and_then(|v| v.as_s().ok()).cloned()
        };
        Ok(out.item.and_then(|item| {
            Some(Requester {
                name: text(&item, ACCOUNT_NAME_ATTRIBUTE)?,
                plan: text(&item, ACCOUNT_PLAN_ATTRIBUTE).unwrap_or_default(),
            })
        }))
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
        self.update_existing_account(account_id, format!("SET {}", sets.join(", ")), expr)
            .await
    }

    async fn set_default_methods(
        &self,
        account_id: &str,
        methods: &[VerificationMethod],
    ) -> Result<bool, StoreError> {
        let mut expr = Expr::default();
        let update = if methods.is_empty() {
            format!("REMOVE {}", expr.name(ACCOUNT_DEFAULT_METHODS_ATTRIBUTE))
        } else {
            let list = AttributeValue::L(methods.iter().map(|m| s(m.as_str())).collect());
            format!(
                "SET {}",
                expr.set(ACCOUNT_DEFAULT_METHODS_ATTRIBUTE, "methods", list)
            )
        };
        self.update_existing_account(account_id, update, expr).await
    }

    async fn get_default_methods(
        &self,
        account_id: &str,
    ) -> Result<Vec<VerificationMethod>, StoreError> {
        let out = self
            .get_item(&keys::account(account_id))
            .projection_expression("#m")
            .expression_attribute_names("#m", ACCOUNT_DEFAULT_METHODS_ATTRIBUTE)
            .send()
            .await
            .map_err(unavailable)?;
        let listed = out
            .item
            .and_then(|item| {
                item.get(ACCOUNT_DEFAULT_METHODS_ATTRIBUTE)?
                    .as_l()
                    .ok()
                    .cloned()
            })
            .unwrap_or_default();
        // A name no method has (written by a later version) is skipped, not an error.
        Ok(listed
            .iter()
            .filter_map(|v| VerificationMethod::parse(v.as_s().ok()?))
            .collect())
    }
}

impl DynamoStore {
    /// One UpdateItem of an account that must exist; false when it does not.
    async fn update_existing_account(
        &self,
        account_id: &str,
        update: String,
        expr: Expr,
    ) -> Result<bool, StoreError> {
        let result = send_update(
            self.update_item(&keys::account(account_id))
                .update_expression(update)
                .condition_expression("attribute_exists(PK)")
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values()),
        )
        .await?;
        written(result)
    }
}
