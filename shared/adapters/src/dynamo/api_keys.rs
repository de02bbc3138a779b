//! API keys: one item per key under the hash of its secret, listed per account through GSI1 (a
//! request's key is never looked up: it names its account, which lists its hash); a revocation is
//! one transaction on the key and the account (which the metering checks).

use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem, Update};
use chrono::{DateTime, Utc};

use super::items::{api_key_item, from_item, s};
use super::{DynamoStore, Expr, unavailable};
use domain::{ApiKeyRecord, format_ts};
use ports::{ApiKeyStore, StoreError};
use service::table_schema::{self as schema, keys};

impl ApiKeyStore for DynamoStore {
    async fn put_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        let item = api_key_item(key)?;
        let account = keys::account(&key.account_id);
        // The key item and its listing on the account in one transaction: a key is never listed
        // without its record (which revocation and `list-keys` need), nor the other way round. A
        // map's entry can be set only once the map exists, so the account's first key creates it.
        for first_key in [false, true] {
            let mut expr = Expr::default();
            let listed = expr.name("api_keys");
            let (set, cond) = if first_key {
                let map = expr.value(
                    "keys",
                    AttributeValue::M([(key.key_hash.clone(), s(key.mode.as_str()))].into()),
                );
                (
                    format!("SET {listed} = {map}"),
                    format!("attribute_exists(PK) AND attribute_not_exists({listed})"),
                )
            } else {
                expr.names.insert("#keyhash".into(), key.key_hash.clone());
                let mode = expr.value("mode", s(key.mode.as_str()));
                (
                    format!("SET {listed}.#keyhash = {mode}"),
                    format!("attribute_exists(PK) AND attribute_exists({listed})"),
                )
            };
            let account_update = Update::builder()
                .table_name(self.table())
                .key(schema::PK, s(&account.0))
                .key(schema::SK, s(&account.1))
                .update_expression(set)
                .condition_expression(cond)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .build()
                .map_err(unavailable)?;
            let put_key = Put::builder()
                .table_name(self.table())
                .set_item(Some(item.clone()))
                .condition_expression("attribute_not_exists(PK)")
                .build()
                .map_err(unavailable)?;
            let items = vec![
                TransactWriteItem::builder().put(put_key).build(),
                TransactWriteItem::builder().update(account_update).build(),
            ];
            match self.transact(items).await? {
                Ok(()) => return Ok(()),
                // The key exists already: refused, whatever the account.
                Err(reasons)
                    if reasons
                        .first()
                        .is_some_and(|r| r == "ConditionalCheckFailed") =>
                {
                    break;
                }
                Err(_) => continue,
            }
        }
        Err(StoreError::Unavailable(
            "API key refused: it exists, or its account does not".into(),
        ))
    }

    async fn list_api_keys(&self, account_id: &str) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let mut keys_out = Vec::new();
        let mut start = None;
        // An account has a handful of keys; the loop is bounded by the pages DynamoDB returns.
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(schema::GSI_OWNER_CREATED)
                .key_condition_expression("GSI1PK = :pk")
                .expression_attribute_values(":pk", s(keys::account_keys(account_id)))
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            for item in out.items.unwrap_or_default() {
                keys_out.push(from_item(item)?);
            }
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(keys_out);
            }
        }
    }

    async fn revoke_api_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let Some(key) = self
            .list_api_keys(account_id)
            .await?
            .into_iter()
            .find(|k| k.key_id == key_id)
        else {
            return Ok(false);
        };
        let mut key_expr = Expr::default();
        let set_key = format!(
            "SET {} = {}",
            key_expr.name("revoked_at"),
            key_expr.value("now", s(format_ts(now)))
        );
        let mut acct_expr = Expr::default();
        let set_acct = format!(
            "SET {r} = list_append(if_not_exists({r}, {e}), {k})",
            r = acct_expr.name("revoked_keys"),
            e = acct_expr.value("empty", AttributeValue::L(vec![])),
            k = acct_expr.value("kid", AttributeValue::L(vec![s(key_id)])),
        );
        let items = vec![
            TransactWriteItem::builder()
                .update(self.update(keys::api_key(&key.key_hash), &set_key, &key_expr)?)
                .build(),
            TransactWriteItem::builder()
                .update(self.update(keys::account(account_id), &set_acct, &acct_expr)?)
                .build(),
        ];
        Ok(self.transact(items).await?.is_ok())
    }
}
