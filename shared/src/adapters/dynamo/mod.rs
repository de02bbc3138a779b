//! The DynamoDB adapter of the `Store` port: one table, typed key prefixes, two GSIs, counter items.
//!
//! | item              | PK                          | SK              | GSI1 (owner, newest first)  | GSI2 (owner+status)              |
//! |-------------------|-----------------------------|-----------------|-----------------------------|----------------------------------|
//! | account           | `ACCOUNT#<id>`              | `ACCOUNT`       |                             |                                  |
//! | webhook secrets   | `ACCOUNT#<id>`              | `WEBHOOK_SECRETS` |                           |                                  |
//! | API key           | `APIKEY#<sha256>`           | `APIKEY`        | `KEYS#<account>` / created  |                                  |
//! | verification      | `VERIFICATION#<id>`         | `VERIFICATION`  | `OWNER#<acct>#<mode>` / `<created>#<id>` | `OWNER#<acct>#<mode>#<status>` / same |
//! | expiry marker     | `VERIFICATION#<id>`         | `EXPIRY`        | (TTL = expires_at)          |                                  |
//! | e-mail sent claim | `VERIFICATION#<id>`         | `EMAIL`         |                             |                                  |
//! | owner counters    | `OWNER#<acct>#<mode>`       | `STATS`         |                             |                                  |
//! | month counters    | `OWNER#<acct>#<mode>`       | `MONTH#<yyyy-mm>` |                           |                                  |
//! | idempotency       | `IDEMPOTENCY#<sha256>`      | `IDEMPOTENCY`   | (TTL = 24 h)                |                                  |

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Put, ReturnValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
    Update,
};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use crate::config::Plans;
use crate::domain::{
    Account, ApiKeyRecord, Mode, MonthStats, OwnerStats, Status, SubscriptionStatus, Transition,
    Verification, api_window, format_ts, usage_month,
};
use crate::ports::{
    CreateOutcome, EmailClaim, IdempotencyClaim, IdempotencyRecord, LinkTokenOutcome, ListPage,
    ListQuery, MeterOutcome, Store, StoreError, TransitionOutcome, WebhookSecrets,
};

mod link_tokens;
mod list;

type Item = HashMap<String, AttributeValue>;

/// The table's shape, defined once. The local bootstrap creates the table from it and a test
/// checks that `template.yaml` declares the same.
pub mod schema {
    pub const PK: &str = "PK";
    pub const SK: &str = "SK";
    pub const GSI_OWNER_CREATED: &str = "GSI1";
    pub const GSI_OWNER_STATUS: &str = "GSI2";
    pub const GSI1PK: &str = "GSI1PK";
    pub const GSI1SK: &str = "GSI1SK";
    pub const GSI2PK: &str = "GSI2PK";
    pub const GSI2SK: &str = "GSI2SK";
    /// Epoch seconds; DynamoDB's TTL deletes expiry markers and idempotency records by it.
    pub const TTL_ATTRIBUTE: &str = "ttl";
    pub const STREAM_VIEW: &str = "NEW_AND_OLD_IMAGES";
    /// SK of the expiry marker; the stream's TTL REMOVE of this item expires the verification.
    pub const EXPIRY_SK: &str = "EXPIRY";
    pub const VERIFICATION_SK: &str = "VERIFICATION";

    /// (index name, partition key, sort key); every GSI projects ALL.
    pub const GSIS: [(&str, &str, &str); 2] = [
        (GSI_OWNER_CREATED, GSI1PK, GSI1SK),
        (GSI_OWNER_STATUS, GSI2PK, GSI2SK),
    ];
    /// Every key attribute is a string.
    pub const KEY_ATTRIBUTES: [&str; 6] = [PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK];
}

/// Creates the table as `schema` describes it (local stack and tests; AWS uses template.yaml).
pub async fn create_table(client: &Client, table: &str) -> Result<(), StoreError> {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType,
        TimeToLiveSpecification,
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .map_err(unavailable)
    };
    let mut request = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(key(schema::PK, KeyType::Hash)?)
        .key_schema(key(schema::SK, KeyType::Range)?)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .map_err(unavailable)?,
        );
    for name in schema::KEY_ATTRIBUTES {
        request = request.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(unavailable)?,
        );
    }
    for (index, pk, sk) in schema::GSIS {
        request = request.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(index)
                .key_schema(key(pk, KeyType::Hash)?)
                .key_schema(key(sk, KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .map_err(unavailable)?,
        );
    }
    request.send().await.map_err(unavailable)?;
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name(schema::TTL_ATTRIBUTE)
                .build()
                .map_err(unavailable)?,
        )
        .send()
        .await
        .map_err(unavailable)?;
    Ok(())
}

fn unavailable<E: std::error::Error>(e: E) -> StoreError {
    StoreError::Unavailable(DisplayErrorContext(&e).to_string())
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn to_item<T: Serialize>(value: &T) -> Result<Item, StoreError> {
    serde_dynamo::aws_sdk_dynamodb_1::to_item(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, StoreError> {
    serde_dynamo::aws_sdk_dynamodb_1::from_item(item)
        .map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Key helpers, one per item kind (see the table above).
/// The attributes of the webhook-secrets item: all that deliver-webhook reads, and all its role
/// may read (`dynamodb:Attributes` in template.yaml, with the key attributes).
pub const WEBHOOK_SECRET_ATTRIBUTES: [&str; 3] = ["current", "previous", "previous_valid_until"];

pub mod keys {
    use super::*;

    pub fn account(id: &str) -> (String, String) {
        (format!("ACCOUNT#{id}"), "ACCOUNT".into())
    }
    pub fn webhook_secrets(id: &str) -> (String, String) {
        (format!("ACCOUNT#{id}"), "WEBHOOK_SECRETS".into())
    }
    pub fn api_key(hash: &str) -> (String, String) {
        (format!("APIKEY#{hash}"), "APIKEY".into())
    }
    pub fn verification(id: Uuid) -> (String, String) {
        (format!("VERIFICATION#{id}"), schema::VERIFICATION_SK.into())
    }
    pub fn expiry_marker(id: Uuid) -> (String, String) {
        (format!("VERIFICATION#{id}"), schema::EXPIRY_SK.into())
    }
    pub fn email_claim(id: Uuid) -> (String, String) {
        (format!("VERIFICATION#{id}"), "EMAIL".into())
    }
    /// The verification id in the partition key of a verification's items (the inverse of the
    /// three above), for a handler reading a stream record's keys.
    pub fn verification_id_of(pk: &str) -> Option<Uuid> {
        Uuid::parse_str(pk.strip_prefix("VERIFICATION#")?).ok()
    }
    pub fn owner(account: &str, mode: Mode) -> String {
        format!("OWNER#{account}#{}", mode.as_str())
    }
    pub fn owner_status(account: &str, mode: Mode, status: Status) -> String {
        format!("OWNER#{account}#{}#{}", mode.as_str(), status.as_str())
    }
    pub fn stats(account: &str, mode: Mode) -> (String, String) {
        (owner(account, mode), "STATS".into())
    }
    pub fn month(account: &str, mode: Mode, month: &str) -> (String, String) {
        (owner(account, mode), format!("MONTH#{month}"))
    }
    pub fn idempotency(hash: &str) -> (String, String) {
        (format!("IDEMPOTENCY#{hash}"), "IDEMPOTENCY".into())
    }
    /// Sort key shared by both GSIs: newest first when read backwards.
    pub fn created_sort(v: &Verification) -> String {
        format!("{}#{}", format_ts(v.created_at), v.verification_id)
    }
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

fn with_key(mut item: Item, (pk, sk): (String, String)) -> Item {
    item.insert(schema::PK.into(), s(pk));
    item.insert(schema::SK.into(), s(sk));
    item
}

/// The DynamoDB-backed store.
#[derive(Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
}

fn verification_item(v: &Verification) -> Result<Item, StoreError> {
    let mut item = with_key(to_item(v)?, keys::verification(v.verification_id));
    let sort = keys::created_sort(v);
    item.insert(schema::GSI1PK.into(), s(keys::owner(&v.account_id, v.mode)));
    item.insert(schema::GSI1SK.into(), s(sort.clone()));
    item.insert(
        schema::GSI2PK.into(),
        s(keys::owner_status(&v.account_id, v.mode, v.status)),
    );
    item.insert(schema::GSI2SK.into(), s(sort));
    Ok(item)
}

/// Reads a verification out of a stored item (also used on stream images).
pub fn verification_from_item(item: Item) -> Result<Verification, StoreError> {
    from_item(item)
}

/// The condition failures of a cancelled transaction, by item index.
fn cancelled_reasons(err: &SdkError<TransactWriteItemsError>) -> Option<Vec<String>> {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(e)) => Some(
            e.cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or("None").to_string())
                .collect(),
        ),
        _ => None,
    }
}

/// How long a tenant e-mail claim holds before a retry may take it over (a crashed sender).
pub const EMAIL_LEASE: Duration = Duration::minutes(5);

/// Concurrent transactions on the same items are refused with `TransactionConflict`; they are
/// retried a bounded number of times.
const TRANSACTION_ATTEMPTS: usize = 4;

impl DynamoStore {
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        DynamoStore {
            client,
            table: table.into(),
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    async fn get(&self, (pk, sk): (String, String)) -> Result<Option<Item>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        Ok(out.item)
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

    async fn transact(
        &self,
        items: Vec<TransactWriteItem>,
    ) -> Result<Result<(), Vec<String>>, StoreError> {
        for attempt in 1..=TRANSACTION_ATTEMPTS {
            match self
                .client
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .send()
                .await
            {
                Ok(_) => return Ok(Ok(())),
                Err(err) => match cancelled_reasons(&err) {
                    Some(reasons) if reasons.iter().any(|r| r == "ConditionalCheckFailed") => {
                        return Ok(Err(reasons));
                    }
                    Some(reasons)
                        if attempt < TRANSACTION_ATTEMPTS
                            && reasons.iter().any(|r| r == "TransactionConflict") =>
                    {
                        tokio::time::sleep(std::time::Duration::from_millis(20 * attempt as u64))
                            .await;
                    }
                    _ => {
                        let busy = matches!(
                            err.as_service_error(),
                            Some(TransactWriteItemsError::TransactionInProgressException(_))
                        );
                        if busy && attempt < TRANSACTION_ATTEMPTS {
                            tokio::time::sleep(std::time::Duration::from_millis(
                                20 * attempt as u64,
                            ))
                            .await;
                        } else {
                            return Err(unavailable(err));
                        }
                    }
                },
            }
        }
        Err(StoreError::Unavailable(
            "transaction kept conflicting".into(),
        ))
    }

    fn classify_meter(
        old: Option<Item>,
        key_id: &str,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<(MeterOutcome, bool), StoreError> {
        // Returns the outcome and whether the failure was only the window having rolled over.
        let Some(item) = old else {
            return Ok((MeterOutcome::UnknownAccount, false));
        };
        let account: Account = from_item(item)?;
        if account.revoked_keys.iter().any(|k| k == key_id) {
            return Ok((MeterOutcome::KeyRevoked, false));
        }
        match plans.get(&account.plan) {
            Some(plan) if plan.api_access => {}
            _ => return Ok((MeterOutcome::NoApiAccess(account), false)),
        }
        if !account.subscription_status.allows_api() {
            return Ok((MeterOutcome::SubscriptionInactive(account), false));
        }
        if account.api_window.as_deref() != Some(api_window(now).as_str()) {
            return Ok((MeterOutcome::Allowed(account), true));
        }
        Ok((MeterOutcome::LimitExceeded(account), false))
    }
}

impl Store for DynamoStore {
    async fn put_account(&self, account: &Account) -> Result<(), StoreError> {
        let item = with_key(to_item(account)?, keys::account(&account.account_id));
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(PK)")
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn get_account(&self, account_id: &str) -> Result<Option<Account>, StoreError> {
        self.get(keys::account(account_id))
            .await?
            .map(from_item)
            .transpose()
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
        let (pk, sk) = keys::account(account_id);
        let result = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression(format!("SET {}", sets.join(", ")))
            .condition_expression("attribute_exists(PK)")
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .send()
            .await;
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

    async fn put_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        let mut item = with_key(to_item(key)?, keys::api_key(&key.key_hash));
        item.insert(schema::GSI1PK.into(), s(format!("KEYS#{}", key.account_id)));
        item.insert(schema::GSI1SK.into(), s(format_ts(key.created_at)));
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(PK)")
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn find_api_key(&self, key_hash: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        self.get(keys::api_key(key_hash))
            .await?
            .map(from_item)
            .transpose()
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
                .expression_attribute_values(":pk", s(format!("KEYS#{account_id}")))
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

    async fn meter_api_request(
        &self,
        account_id: &str,
        key_id: &str,
        now: DateTime<Utc>,
        plans: &Plans,
    ) -> Result<MeterOutcome, StoreError> {
        let window = api_window(now);
        let api_plans: Vec<_> = plans.iter().filter(|p| p.api_access).collect();
        for _ in 0..3 {
            let mut expr = Expr::default();
            let win = expr.name("api_window");
            let req = expr.name("api_requests");
            let plan = expr.name("plan");
            let sub = expr.name("subscription_status");
            let revoked = expr.name("revoked_keys");
            let w = expr.value("win", s(&window));
            let one = expr.value("one", n(1));
            let kid = expr.value("kid", s(key_id));
            let active = expr.value("active", s(SubscriptionStatus::Active.as_str()));
            let trialing = expr.value("trialing", s(SubscriptionStatus::Trialing.as_str()));
            let common = format!(
                "attribute_exists(PK) AND {sub} IN ({active}, {trialing}) AND (attribute_not_exists({revoked}) OR NOT contains({revoked}, {kid}))"
            );
            // The allowance depends on the plan, which lives on the same item: one clause per plan.
            let mut under_limit = Vec::new();
            let mut plan_names = Vec::new();
            for (i, p) in api_plans.iter().enumerate() {
                let pv = expr.value(&format!("p{i}"), s(&p.name));
                let lv = expr.value(&format!("l{i}"), n(p.api_requests_per_day));
                under_limit.push(format!("({plan} = {pv} AND {req} < {lv})"));
                plan_names.push(pv);
            }
            if api_plans.is_empty() {
                let old = self.get(keys::account(account_id)).await?;
                return Ok(Self::classify_meter(old, key_id, now, plans)?.0);
            }
            let same_window = format!(
                "{common} AND {win} = {w} AND ({})",
                under_limit.join(" OR ")
            );
            let (pk, sk) = keys::account(account_id);
            let result = self
                .client
                .update_item()
                .table_name(&self.table)
                .key(schema::PK, s(&pk))
                .key(schema::SK, s(&sk))
                .update_expression(format!("ADD {req} {one}"))
                .condition_expression(same_window)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .return_values(ReturnValue::AllNew)
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .send()
                .await;
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
            let (outcome, window_rolled) = Self::classify_meter(old, key_id, now, plans)?;
            if !window_rolled {
                return Ok(outcome);
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
            let result = self
                .client
                .update_item()
                .table_name(&self.table)
                .key(schema::PK, s(pk))
                .key(schema::SK, s(sk))
                .update_expression(format!("SET {win} = {w}, {req} = {one}"))
                .condition_expression(reset_cond)
                .set_expression_attribute_names(reset_expr.names())
                .set_expression_attribute_values(reset_expr.values())
                .return_values(ReturnValue::AllNew)
                .send()
                .await;
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

    async fn create_verification(
        &self,
        v: &Verification,
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        let mut items = vec![
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(verification_item(v)?))
                        .condition_expression("attribute_not_exists(PK)")
                        .build()
                        .map_err(unavailable)?,
                )
                .build(),
        ];
        let mut marker = with_key(HashMap::new(), keys::expiry_marker(v.verification_id));
        marker.insert("verification_id".into(), s(v.verification_id.to_string()));
        marker.insert(schema::TTL_ATTRIBUTE.into(), n(v.expires_at.timestamp()));
        items.push(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(marker))
                        .build()
                        .map_err(unavailable)?,
                )
                .build(),
        );
        let mut stats = Expr::default();
        let stats_update = format!(
            "ADD {} {one}, {} {one}",
            stats.name("total"),
            stats.name(v.status.as_str()),
            one = stats.value("one", n(1))
        );
        items.push(
            TransactWriteItem::builder()
                .update(self.update(keys::stats(&v.account_id, v.mode), &stats_update, &stats)?)
                .build(),
        );
        let mut month = Expr::default();
        let created = month.name("created");
        let month_update = format!("ADD {created} {}", month.value("one", n(1)));
        let mut month_op = self.update(
            keys::month(&v.account_id, v.mode, &usage_month(v.created_at)),
            &month_update,
            &month,
        )?;
        if let Some(limit) = monthly_limit {
            month.value("limit", n(limit));
            month_op = Update::builder()
                .table_name(&self.table)
                .set_key(Some(month_op.key.clone()))
                .update_expression(month_update)
                .condition_expression(format!(
                    "attribute_not_exists({created}) OR {created} < :limit"
                ))
                .set_expression_attribute_names(month.names())
                .set_expression_attribute_values(month.values())
                .build()
                .map_err(unavailable)?;
        }
        items.push(TransactWriteItem::builder().update(month_op).build());
        if let Some(claim) = idempotency {
            let record = IdempotencyRecord {
                body_hash: claim.body_hash.clone(),
                verification_id: v.verification_id,
                created_at: v.created_at,
            };
            let mut item = with_key(to_item(&record)?, keys::idempotency(&claim.key_hash));
            item.insert(
                schema::TTL_ATTRIBUTE.into(),
                n((v.created_at + Duration::hours(24)).timestamp()),
            );
            items.push(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(&self.table)
                            .set_item(Some(item))
                            // A record past its 24 h that TTL has not swept yet counts as gone.
                            .condition_expression("attribute_not_exists(PK) OR #ttl < :now")
                            .expression_attribute_names("#ttl", schema::TTL_ATTRIBUTE)
                            .expression_attribute_values(":now", n(v.created_at.timestamp()))
                            .build()
                            .map_err(unavailable)?,
                    )
                    .build(),
            );
        }
        match self.transact(items).await? {
            Ok(()) => Ok(CreateOutcome::Created),
            Err(reasons) => {
                let failed = |i: usize| {
                    reasons
                        .get(i)
                        .is_some_and(|r| r == "ConditionalCheckFailed")
                };
                if let Some(claim) = idempotency
                    && failed(4)
                {
                    return match self.get_idempotency(&claim.key_hash).await? {
                        Some(record) => Ok(CreateOutcome::IdempotencyConflict(record)),
                        None => Err(StoreError::Unavailable(
                            "idempotency record vanished".into(),
                        )),
                    };
                }
                if failed(3) {
                    return Ok(CreateOutcome::LimitReached);
                }
                Err(StoreError::Unavailable(format!(
                    "create refused: {reasons:?}"
                )))
            }
        }
    }

    async fn get_verification(&self, id: Uuid) -> Result<Option<Verification>, StoreError> {
        self.get(keys::verification(id))
            .await?
            .map(from_item)
            .transpose()
    }

    async fn add_link_token(&self, id: Uuid, token_hash: &str) -> Result<(), StoreError> {
        let (pk, sk) = keys::verification(id);
        self.client
            .update_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression("SET #t = list_append(if_not_exists(#t, :empty), :new)")
            .condition_expression("attribute_exists(PK)")
            .expression_attribute_names("#t", "token_hashes")
            .expression_attribute_values(":empty", AttributeValue::L(vec![]))
            .expression_attribute_values(":new", AttributeValue::L(vec![s(token_hash)]))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn add_recent_link_token(
        &self,
        current: &Verification,
        token_hash: &str,
        keep: usize,
    ) -> Result<LinkTokenOutcome, StoreError> {
        self.rotate_link_token(current, token_hash, keep).await
    }

    async fn get_idempotency(
        &self,
        key_hash: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.get(keys::idempotency(key_hash))
            .await?
            .map(from_item)
            .transpose()
    }

    async fn transition(
        &self,
        current: &Verification,
        transition: &Transition,
        now: DateTime<Utc>,
    ) -> Result<TransitionOutcome, StoreError> {
        let from = current.status;
        if !transition.allowed_from().contains(&from) {
            return Ok(TransitionOutcome::Conflict(Some(current.clone())));
        }
        let next = transition.apply(current, now);
        let to = next.status;
        // Write exactly the attributes the transition changes, so a concurrent token append or
        // other field update is never overwritten.
        let mut expr = Expr::default();
        let mut sets = vec![
            expr.set("status", "to", s(to.as_str())),
            expr.set(
                schema::GSI2PK,
                "gsi2",
                s(keys::owner_status(&current.account_id, current.mode, to)),
            ),
        ];
        let new_item = to_item(&next)?;
        for attr in [
            "started_at",
            "completed_at",
            "income_report",
            "failed_at",
            "failure_reason",
            "cancelled_at",
            "expired_at",
            "consented_at",
            "consent_version",
            "provider_user",
        ] {
            if let Some(value) = new_item.get(attr)
                && current_attr_changed(current, &next, attr)
            {
                sets.push(expr.set(attr, attr, value.clone()));
            }
        }
        let mut cond = expr.set("status", "from", s(from.as_str()));
        // A consent never replaces a provider user (the tenant may have connected with it), and
        // one without a provider user is recorded once.
        if let Transition::Consent { provider_user, .. } = transition {
            let guarded = if provider_user.is_some() {
                "provider_user"
            } else {
                "consented_at"
            };
            cond = format!("{cond} AND attribute_not_exists({})", expr.name(guarded));
        }
        let verification_update = Update::builder()
            .table_name(&self.table)
            .key(schema::PK, s(keys::verification(current.verification_id).0))
            .key(schema::SK, s(schema::VERIFICATION_SK))
            .update_expression(format!("SET {}", sets.join(", ")))
            .condition_expression(cond)
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
        let mut items = vec![
            TransactWriteItem::builder()
                .update(verification_update)
                .build(),
        ];
        // A consent on an in-progress verification keeps its status: no counter moves.
        if from != to {
            items.push(
                TransactWriteItem::builder()
                    .update(self.update(
                        keys::stats(&current.account_id, current.mode),
                        &stats_update,
                        &stats,
                    )?)
                    .build(),
            );
        }
        if to == Status::Completed {
            let mut month = Expr::default();
            let update = format!(
                "ADD {} {}",
                month.name("completed"),
                month.value("one", n(1))
            );
            items.push(
                TransactWriteItem::builder()
                    .update(self.update(
                        keys::month(&current.account_id, current.mode, &usage_month(now)),
                        &update,
                        &month,
                    )?)
                    .build(),
            );
        }
        if transition.refunds_allowance() {
            // A failure on the service's side gives the landlord's monthly allowance back, in
            // the same transaction (the month the verification was counted in).
            let mut month = Expr::default();
            let update = format!(
                "ADD {} {}",
                month.name("created"),
                month.value("minus", n(-1))
            );
            items.push(
                TransactWriteItem::builder()
                    .update(self.update(
                        keys::month(
                            &current.account_id,
                            current.mode,
                            &usage_month(current.created_at),
                        ),
                        &update,
                        &month,
                    )?)
                    .build(),
            );
        }
        match self.transact(items).await? {
            Ok(()) => Ok(TransitionOutcome::Applied(next)),
            Err(_) => Ok(TransitionOutcome::Conflict(
                self.get_verification(current.verification_id).await?,
            )),
        }
    }

    async fn record_consent(
        &self,
        id: Uuid,
        consent_version: &str,
        now: DateTime<Utc>,
        provider: Option<(&str, &str)>,
    ) -> Result<Option<Verification>, StoreError> {
        let mut expr = Expr::default();
        let mut sets = vec![
            expr.set("consented_at", "now", s(format_ts(now))),
            expr.set("consent_version", "version", s(consent_version)),
        ];
        if let Some((user, link_token)) = provider {
            sets.push(expr.set("provider_user", "user", s(user)));
            sets.push(expr.set("provider_link_token", "link", s(link_token)));
        }
        let cond = expr.set("status", "in_progress", s(Status::InProgress.as_str()));
        let (pk, sk) = keys::verification(id);
        let result = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression(format!("SET {}", sets.join(", ")))
            .condition_expression(cond)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match result {
            Ok(out) => Ok(Some(from_item(out.attributes.unwrap_or_default())?)),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn list_verifications(&self, q: &ListQuery) -> Result<ListPage, StoreError> {
        self.list_page(q).await
    }

    async fn owner_stats(
        &self,
        account_id: &str,
        mode: Mode,
        month: &str,
    ) -> Result<(OwnerStats, MonthStats), StoreError> {
        let (stats, month) = futures::join!(
            self.get(keys::stats(account_id, mode)),
            self.get(keys::month(account_id, mode, month))
        );
        Ok((
            stats?.map(from_item).transpose()?.unwrap_or_default(),
            month?.map(from_item).transpose()?.unwrap_or_default(),
        ))
    }

    async fn get_webhook_secrets(&self, account_id: &str) -> Result<WebhookSecrets, StoreError> {
        // Only the secrets' attributes: deliver-webhook's role may read nothing else (template.yaml).
        let (pk, sk) = keys::webhook_secrets(account_id);
        let mut get = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .consistent_read(true);
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
        let item = with_key(to_item(secrets)?, keys::webhook_secrets(account_id));
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn claim_email_send(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<EmailClaim, StoreError> {
        let mut item = with_key(HashMap::new(), keys::email_claim(id));
        item.insert("state".into(), s("sending"));
        // A sender that crashed mid-send loses its lease after this long and the retry sends.
        item.insert("lease_until".into(), n((now + EMAIL_LEASE).timestamp()));
        let result = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression(
                "attribute_not_exists(PK) OR (#state = :sending AND lease_until < :now)",
            )
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s("sending"))
            .expression_attribute_values(":now", n(now.timestamp()))
            .send()
            .await;
        match result {
            Ok(_) => Ok(EmailClaim::Claimed),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                // Why it was refused decides whether there is anything left to do.
                let item = self.get(keys::email_claim(id)).await?.unwrap_or_default();
                let text = |name: &str| match item.get(name) {
                    Some(AttributeValue::S(v)) => Some(v.clone()),
                    _ => None,
                };
                Ok(match text("state").as_deref() {
                    Some("sent") => EmailClaim::Sent,
                    Some("rejected") => {
                        EmailClaim::Rejected(text("reason").unwrap_or_else(|| "email_rejected".into()))
                    }
                    // A live lease, or one released or expired since the put: retry later.
                    _ => EmailClaim::Held,
                })
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn mark_email_rejected(&self, id: Uuid, reason: &str) -> Result<(), StoreError> {
        let (pk, sk) = keys::email_claim(id);
        self.client
            .update_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression("SET #state = :rejected, reason = :reason REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":rejected", s("rejected"))
            .expression_attribute_values(":reason", s(reason))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn mark_email_sent(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), StoreError> {
        let (pk, sk) = keys::email_claim(id);
        self.client
            .update_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression("SET #state = :sent, sent_at = :now REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sent", s("sent"))
            .expression_attribute_values(":now", s(format_ts(now)))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn release_email_send(&self, id: Uuid) -> Result<(), StoreError> {
        let (pk, sk) = keys::email_claim(id);
        self.client
            .delete_item()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .condition_expression("#state = :sending")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s("sending"))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}

/// Whether a transition changed this attribute (so the update writes only what changed).
fn current_attr_changed(current: &Verification, next: &Verification, attr: &str) -> bool {
    match attr {
        "started_at" => current.started_at != next.started_at,
        "completed_at" => current.completed_at != next.completed_at,
        "income_report" => current.income_report != next.income_report,
        "failed_at" => current.failed_at != next.failed_at,
        "failure_reason" => current.failure_reason != next.failure_reason,
        "cancelled_at" => current.cancelled_at != next.cancelled_at,
        "expired_at" => current.expired_at != next.expired_at,
        "consented_at" => current.consented_at != next.consented_at,
        "consent_version" => current.consent_version != next.consent_version,
        "provider_user" => current.provider_user != next.provider_user,
        _ => false,
    }
}
