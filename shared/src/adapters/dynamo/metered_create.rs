//! A create that carries its own metering: the count of the request on the account and the
//! create's writes in ONE transaction, so an API create costs one DynamoDB round trip. The
//! account as the count left it is read beside it (a transaction returns no item).

use aws_sdk_dynamodb::types::{TransactWriteItem, Update};

use super::accounts::{CountCondition, count_condition};
use super::items::{from_item, s};
use super::schema::{self, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::domain::{Account, api_window};
use crate::ports::{MeteredCreate, StoreError};

/// The account attribute the metered create marks with its verification id, so the read beside
/// the transaction knows whether it saw the count.
const LAST_METERED_CREATE: &str = "api_last_metered_create";

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
        let last = expr.name(LAST_METERED_CREATE);
        let marker = expr.value("marker", s(v.verification_id.to_string()));
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
        let mut items = vec![TransactWriteItem::builder().update(count).build()];
        items.extend(self.create_items(v, idempotency, monthly_limit)?);
        let read = self.get_item(&account).consistent_read(true).send();
        let (written, read) = futures::join!(self.transact(items), read);
        // Any refusal (the key, the plan, the window, the allowances, the idempotency key): nothing
        // was written or counted; the caller goes the usual way, which says why.
        if written?.is_err() {
            return Ok(None);
        }
        let item = read.map_err(unavailable)?.item.unwrap_or_default();
        let saw_the_count = item
            .get(LAST_METERED_CREATE)
            .and_then(|m| m.as_s().ok())
            .is_some_and(|m| *m == v.verification_id.to_string());
        let mut after: Account = from_item(item)?;
        if !saw_the_count {
            after.api_requests += 1;
        }
        Ok(Some(after))
    }
}
