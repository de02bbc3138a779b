//! Writes that carry their own metering: the count of the request on the account and the
//! operation's writes (a create, a cancel) in ONE transaction, so such an API request costs one
//! DynamoDB round trip. The account as the count left it is read beside it (a transaction returns
//! no item).

use aws_sdk_dynamodb::types::{TransactWriteItem, Update};
use chrono::{DateTime, Utc};

use super::accounts::{CountCondition, count_condition};
use super::items::{from_item, s};
use super::schema::{self, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::config::Plans;
use crate::domain::metering::PresentedKey;
use crate::domain::{Account, api_window};
use crate::ports::{MeteredCancel, MeteredCreate, StoreError};

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
            plan,
            now,
            plans,
            verification: v,
            idempotency,
            monthly_limit,
        } = *create;
        let marker = v.verification_id.to_string();
        let Some(count) = self.count_update(key, plan, now, plans, &marker)? else {
            return Ok(None);
        };
        let mut items = vec![count];
        items.extend(self.create_items(v, idempotency, monthly_limit)?);
        self.transact_counted(items, key, &marker).await
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
        let Some(count) = self.count_update(key, None, now, plans, &marker)? else {
            return Ok(None);
        };
        let mut items = vec![count];
        items.extend(self.cancel_open_items(verification_id, &key.account_id, key.mode, now)?);
        self.transact_counted(items, key, &marker).await
    }

    /// The count of one request of `key` in the current window, for a transaction (None when no
    /// plan, or not `plan`, has API access), marking the account with `marker`.
    pub(super) fn count_update(
        &self,
        key: &PresentedKey,
        plan: Option<&str>,
        now: DateTime<Utc>,
        plans: &Plans,
        marker: &str,
    ) -> Result<Option<TransactWriteItem>, StoreError> {
        let api_plans: Vec<_> = plans
            .iter()
            .filter(|p| p.api_access && plan.is_none_or(|name| p.name == name))
            .collect();
        if api_plans.is_empty() {
            return Ok(None);
        }
        let mut expr = Expr::default();
        let CountCondition { same_window, .. } =
            count_condition(&mut expr, key, &api_window(now), &api_plans);
        let req = expr.name("api_requests");
        let last = expr.name(LAST_METERED_WRITE);
        let marker = expr.value("marker", s(marker));
        let account = keys::account(&key.account_id);
        let count = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(&account.0))
            .key(schema::SK, s(&account.1))
            .update_expression(format!("ADD {req} :one SET {last} = {marker}"))
            .condition_expression(same_window)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        Ok(Some(TransactWriteItem::builder().update(count).build()))
    }

    /// Runs the transaction (its first item the count) with the account read beside it: the
    /// account after the count when it was written, None when any condition refused.
    pub(super) async fn transact_counted(
        &self,
        items: Vec<TransactWriteItem>,
        key: &PresentedKey,
        marker: &str,
    ) -> Result<Option<Account>, StoreError> {
        let read = self
            .get_item(&keys::account(&key.account_id))
            .consistent_read(true)
            .send();
        let (written, read) = futures::join!(self.transact(items), read);
        // Any refusal (the key, the plan, the window, the allowances, the operation's own
        // conditions): nothing was written or counted; the caller goes the usual way.
        if written?.is_err() {
            return Ok(None);
        }
        let item = read.map_err(unavailable)?.item.unwrap_or_default();
        let saw_the_count = item
            .get(LAST_METERED_WRITE)
            .and_then(|m| m.as_s().ok())
            .is_some_and(|m| m == marker);
        let mut after: Account = from_item(item)?;
        if !saw_the_count {
            after.api_requests += 1;
        }
        Ok(Some(after))
    }
}
