//! API keys: one item per key under the hash of its secret, listed per account through GSI1;
//! a revocation is one transaction on the key and the account (which the metering checks).

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};
use chrono::{DateTime, Utc};

use super::items::{api_key_item, from_item, s};
use super::schema::{self, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::domain::{ApiKeyRecord, format_ts};
use crate::ports::{ApiKeyStore, StoreError};

impl ApiKeyStore for DynamoStore {
    async fn put_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        let item = api_key_item(key)?;
        self.put_new(item).await
    }

    async fn find_api_key(&self, key_hash: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        self.read(keys::api_key(key_hash)).await
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
