//! The DynamoDB adapter of the store port: one table, typed key prefixes, three GSIs, counter items.
//! This file holds the client and the write helpers; `schema` the keys, `items` every item
//! mapping, and one file per aggregate implements its role trait (`accounts`, `api_keys`,
//! `verifications` with `link_tokens` and `list`, `message_claims`).
//!
//! | item              | PK                          | SK              | GSI1 (owner, newest first)  | GSI2 (owner+status)              |
//! |-------------------|-----------------------------|-----------------|-----------------------------|----------------------------------|
//! | account           | `ACCOUNT#<id>`              | `ACCOUNT`       |                             |                                  |
//! | account's usage   | `USAGE#<id>`                | `USAGE`         |                             |                                  |
//! | API key           | `APIKEY#<sha256>`           | `APIKEY`        | `KEYS#<account>` / created  |                                  |
//! | verification      | `VERIFICATION#<id>`         | `VERIFICATION`  | `OWNER#<acct>#<mode>` / `<created>#<id>` | `OWNER#<acct>#<mode>#<status>` / same |
//! | expiry marker     | `MARKER#<verification>`     | `EXPIRY`        | (TTL = expires_at)          |                                  |
//! | erasure marker    | `MARKER#<verification>`     | `ERASURE`       | (TTL = closed + retention)  |                                  |
//! | household         | `HOUSEHOLD#<id>`            | `HOUSEHOLD`     | (members: their verifications) |                           |
//! | message claim     | `CLAIM#<verification>`      | `MSG#<message key>` |                         |                                  |
//! | owner counters    | `OWNER#<acct>#<mode>`       | `STATS`         |                             |                                  |
//! | month counters    | `OWNER#<acct>#<mode>`       | `MONTH#<yyyy-mm>` |                           |                                  |
//! | idempotency       | `IDEMPOTENCY#<sha256>`      | `IDEMPOTENCY`   | (TTL = 24 h)                |                                  |
//! | webhook event     | `WEBHOOK_EVENT#<webhook-id>` | `WEBHOOK_EVENT` | (TTL = 30 days)            |                                  |
//! | delivery attempt  | `DELIVERIES#<verification>` | `<time>#<webhook-id>#<attempt>` | (TTL = 30 days) |                          |
//! | household's attempt | `DELIVERIES#HOUSEHOLD#<household>` | as above     | (TTL = 30 days)             |                                  |
//!
//! Claims and markers have partitions of their own, never the verification's, so a role that may
//! put or delete them (`dynamodb:LeadingKeys`) may not put or delete a verification.
//! GSI3 (sparse) holds household members only: a member's verification carries
//! `GSI3PK = HOUSEHOLD#<household>` / `GSI3SK = <verification id>`, so one Query returns a
//! household's members.
//! The account's usage item counts the live verifications of the month (`live_created_<yyyymm>`,
//! `live_month`), the day's API requests (`api_requests_<yyyymmdd>`, `api_day`), each key's burst
//! and the month's SMS (`usage`); the month item counts a test month's creates. docs/architecture.md, "Stored items", describes them.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, CancellationReason, TransactWriteItem, Update};
use serde::de::DeserializeOwned;

use contention::Attempt;
use ports::StoreError;
use service::table_schema as schema;

mod accounts;
mod api_day;
mod api_keys;
pub mod capacity;
mod contention;
mod documents;
mod erasure;
mod fingerprints;
mod households;
pub mod items;
pub(crate) mod link_tokens;
mod list;
mod list_cursor;
mod live_month;
pub mod message_claims;
mod metered_create;
mod metered_reach;
mod metering;
mod review;
mod sms_month;
mod table;
mod usage;
mod verifications;
mod webhook_history;

pub use api_day::account_items;
pub use items::{Item, verification_from_item};
pub use live_month::live_created_attribute;
pub use table::create_table;

use items::{from_item, s};

fn unavailable<E: std::error::Error>(e: E) -> StoreError {
    StoreError::Unavailable(DisplayErrorContext(&e).to_string())
}

/// A single-item write's result: true when written, false when its condition refused it.
fn written<O, E, R>(result: Result<O, SdkError<E, R>>) -> Result<bool, StoreError>
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match result {
        Ok(_) => Ok(true),
        Err(e)
            if e.as_service_error().and_then(|e| e.code())
                == Some("ConditionalCheckFailedException") =>
        {
            Ok(false)
        }
        Err(e) => Err(unavailable(e)),
    }
}

/// The DynamoDB-backed store.
#[derive(Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
}

/// Expression names and values, built alongside the expression text.
#[derive(Default)]
struct Expr {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Expr {
    fn name(&mut self, attr: &str) -> String {
        let key = format!("#{attr}");
        self.names.insert(key.clone(), attr.to_string());
        key
    }
    fn value(&mut self, placeholder: &str, v: AttributeValue) -> String {
        let key = format!(":{placeholder}");
        self.values.insert(key.clone(), v);
        key
    }
    /// `#placeholder` for an attribute whose name is not fit to be a placeholder itself.
    fn names_as(&mut self, placeholder: &str, attr: &str) -> String {
        let key = format!("#{placeholder}");
        self.names.insert(key.clone(), attr.to_string());
        key
    }
    /// `#attr = :placeholder`, for a SET clause.
    fn set(&mut self, attr: &str, placeholder: &str, v: AttributeValue) -> String {
        format!("{} = {}", self.name(attr), self.value(placeholder, v))
    }
    fn names(&self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| self.names.clone())
    }
    fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}

impl DynamoStore {
    /// Every call of the store asks for its consumed capacity (`capacity`): the client is rebuilt
    /// from `client`'s configuration with that interceptor added.
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        let config = client
            .config()
            .to_builder()
            .interceptor(capacity::ConsumedCapacityTotal)
            .build();
        DynamoStore {
            client: Client::from_conf(config),
            table: table.into(),
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// A consistent read of one item, with only `attributes` when given.
    fn get_item(&self, (pk, sk): &(String, String)) -> GetItemFluentBuilder {
        self.client
            .get_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .consistent_read(true)
    }

    async fn get(&self, key: (String, String)) -> Result<Option<Item>, StoreError> {
        let out = self.get_item(&key).send().await.map_err(unavailable)?;
        Ok(out.item)
    }

    /// The item at `key`, read into its domain type.
    async fn read<T: DeserializeOwned>(
        &self,
        key: (String, String),
    ) -> Result<Option<T>, StoreError> {
        self.get(key).await?.map(from_item).transpose()
    }

    /// Writes an item that must not exist yet (accounts and keys are never overwritten).
    async fn put_new(&self, item: Item) -> Result<(), StoreError> {
        self.put_item(item)
            .condition_expression("attribute_not_exists(PK)")
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// An UpdateItem of one item; the caller adds the expressions.
    fn update_item(&self, (pk, sk): &(String, String)) -> UpdateItemFluentBuilder {
        self.client
            .update_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
    }

    fn delete_item(&self, (pk, sk): &(String, String)) -> DeleteItemFluentBuilder {
        self.client
            .delete_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
    }

    fn put_item(&self, item: Item) -> PutItemFluentBuilder {
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
    }

    fn update(
        &self,
        key: (String, String),
        expression: &str,
        expr: &Expr,
    ) -> Result<Update, StoreError> {
        Update::builder()
            .table_name(&self.table)
            .key(schema::PK, s(key.0))
            .key(schema::SK, s(key.1))
            .update_expression(expression)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)
    }

    /// Runs a transaction, again while only concurrent ones refuse it (`contention`). Err(the
    /// reasons' codes, by item index) when a condition refused it: nothing was written.
    async fn transact(
        &self,
        items: Vec<TransactWriteItem>,
    ) -> Result<Result<(), Vec<String>>, StoreError> {
        Ok(self.transact_with_reasons(items).await?.map_err(|reasons| {
            reasons
                .iter()
                .map(|r| r.code().unwrap_or("None").to_string())
                .collect()
        }))
    }

    /// As `transact`, with the whole cancellation reasons (an item's old values among them when
    /// its write asked for them on a failed condition).
    async fn transact_with_reasons(
        &self,
        items: Vec<TransactWriteItem>,
    ) -> Result<Result<(), Vec<CancellationReason>>, StoreError> {
        contention::retry_contended(|| {
            let send = self
                .client
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .send();
            async move {
                let err = match send.await {
                    Ok(_) => return Ok(Attempt::Done(Ok(()))),
                    Err(err) => err.into_service_error(),
                };
                if contention::transaction_contended(&err) {
                    return Ok(Attempt::Contended);
                }
                match err {
                    TransactWriteItemsError::TransactionCanceledException(e)
                        if e.cancellation_reasons()
                            .iter()
                            .any(|r| r.code() == Some("ConditionalCheckFailed")) =>
                    {
                        Ok(Attempt::Done(Err(e
                            .cancellation_reasons
                            .unwrap_or_default())))
                    }
                    other => Err(unavailable(other)),
                }
            }
        })
        .await
    }
}
