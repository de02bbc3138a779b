//! Writes that carry their own metering: the count of the request on the account and the
//! operation's writes (a create, a cancel) in ONE transaction, so such an API request costs one
//! DynamoDB round trip. The account as the count left it is read beside it (a transaction returns
//! no item).

use aws_sdk_dynamodb::types::{TransactWriteItem, Update};
use chrono::{DateTime, Utc};

use super::accounts::{CountCondition, count_condition};
use super::items::{from_item, n, s};
use super::schema::{self, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::config::Plans;
use crate::domain::metering::PresentedKey;
use crate::domain::{Account, Status, api_window, format_ts};
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
            from,
        } = *cancel;
        if !from.is_open() {
            return Ok(None);
        }
        let marker = verification_id.to_string();
        let Some(count) = self.count_update(key, None, now, plans, &marker)? else {
            return Ok(None);
        };
        // `Transition::Cancel` from `from`, written without a read: the condition holds only for
        // the key's own verification still in `from`, before its expiry (anything else goes the
        // usual way, which reads it and tells why).
        let to = Status::Expired;
        let mut expr = Expr::default();
        let at = expr.value("now", s(format_ts(now)));
        let status = expr.name("status");
        let gsi2 = expr.name(schema::GSI2PK);
        let cancelled = expr.name("cancelled_at");
        let expired = expr.name("expired_at");
        let to_v = expr.value("to", s(to.as_str()));
        let from_v = expr.value("from", s(from.as_str()));
        let owner_status = expr.value("gsi2", s(keys::owner_status(&key.account_id, key.mode, to)));
        let account = expr.name("account_id");
        let acct = expr.value("acct", s(&key.account_id));
        let mode = expr.name("mode");
        let mode_v = expr.value("mode", s(key.mode.as_str()));
        let expires = expr.name("expires_at");
        let verification_key = keys::verification(verification_id);
        let cancel_update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(&verification_key.0))
            .key(schema::SK, s(&verification_key.1))
            .update_expression(format!(
                "SET {status} = {to_v}, {gsi2} = {owner_status}, {cancelled} = {at}, {expired} = {at}"
            ))
            .condition_expression(format!(
                "attribute_exists(PK) AND {status} = {from_v} AND {account} = {acct} AND {mode} = {mode_v} AND {expires} > {at}"
            ))
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        let mut stats = Expr::default();
        let stats_update = format!(
            "ADD {} {}, {} {}",
            stats.name(from.as_str()),
            stats.value("minus", n(-1)),
            stats.name(to.as_str()),
            stats.value("plus", n(1))
        );
        let items = vec![
            count,
            TransactWriteItem::builder().update(cancel_update).build(),
            TransactWriteItem::builder()
                .update(self.update(
                    keys::stats(&key.account_id, key.mode),
                    &stats_update,
                    &stats,
                )?)
                .build(),
        ];
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
