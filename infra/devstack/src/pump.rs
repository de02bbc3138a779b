//! What moto lacks, and nothing more: the event source mappings (stream -> Lambda, SQS -> Lambda,
//! for the webhook, retry and documents queues; moto itself sends the bucket's notifications to
//! the documents queue) and TTL sweeping. The pumps read moto's stream and queue through the real AWS APIs, shape the
//! records exactly as Lambda delivers them, apply the FilterCriteria of template.yaml itself, and
//! call the functions' handlers. The sweeper deletes expired markers and tags the resulting REMOVE
//! records with the TTL service's identity, as DynamoDB does.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use aws_sdk_dynamodb::types::AttributeValue as DynamoValue;
use aws_sdk_dynamodbstreams::types::{AttributeValue, ShardIteratorType};
use base64::Engine;
use ports::store::prelude::*;
use ports::{Clock, Mailer, Queue, Scheduler, Texter};
use serde_json::{Value, json};
use service::handlers::expire_verifications::TTL_PRINCIPAL;
use service::handlers::publish_events::OutboxDeps;
use service::table_schema::{self as schema};

pub type Outbox = adapters::wiring::Outbox;
pub type Expiry = adapters::wiring::Expiry;
pub type Delivery = adapters::wiring::Delivery;
pub type Reach = adapters::wiring::Reach;

/// template.yaml, read at build time: the pump filters with the very patterns AWS will use.
const TEMPLATE: &str = include_str!("../../../template.yaml");

/// template.yaml, parsed once per process: the pumps and the tests ask on every stream pass.
pub fn template() -> &'static serde_yaml::Value {
    static PARSED: std::sync::LazyLock<serde_yaml::Value> =
        std::sync::LazyLock::new(|| serde_yaml::from_str(TEMPLATE).expect("template.yaml parses"));
    &PARSED
}

/// The template's resource of the function built as `function_binary`.
pub fn template_function(function_binary: &str) -> Option<&'static serde_yaml::Value> {
    template()["Resources"]
        .as_mapping()?
        .values()
        .find(|r| r["Metadata"]["BuildProperties"]["Binary"].as_str() == Some(function_binary))
}

/// The FilterCriteria patterns of a function's stream event in template.yaml.
pub fn template_filters(function_binary: &str) -> Vec<Value> {
    let mut patterns = Vec::new();
    if let Some(resource) = template_function(function_binary) {
        for (_, event) in resource["Properties"]["Events"]
            .as_mapping()
            .into_iter()
            .flatten()
        {
            for filter in event["Properties"]["FilterCriteria"]["Filters"]
                .as_sequence()
                .into_iter()
                .flatten()
            {
                if let Some(pattern) = filter["Pattern"].as_str() {
                    patterns.push(serde_json::from_str(pattern).expect("filter pattern is JSON"));
                }
            }
        }
    }
    patterns
}

/// Event-pattern matching for the subset the template uses: nested objects, lists of allowed
/// values, `{"exists": bool}` and `{"prefix": "..."}`. A record passes when any pattern matches
/// (Lambda's semantics).
pub fn pattern_matches(pattern: &Value, event: &Value) -> bool {
    match pattern {
        Value::Object(fields) => fields.iter().all(|(key, sub)| {
            let value = event.get(key);
            match sub {
                Value::Array(allowed) => allowed.iter().any(|a| match (a, value) {
                    (Value::Object(op), v) if op.contains_key("exists") => {
                        op["exists"].as_bool() == Some(v.is_some())
                    }
                    (Value::Object(op), v) if op.contains_key("prefix") => {
                        match (op["prefix"].as_str(), v.and_then(Value::as_str)) {
                            (Some(prefix), Some(v)) => v.starts_with(prefix),
                            _ => false,
                        }
                    }
                    (a, Some(v)) => a == v,
                    (_, None) => false,
                }),
                Value::Object(_) => value.is_some_and(|v| pattern_matches(sub, v)),
                _ => false,
            }
        }),
        _ => false,
    }
}

fn value_json(v: &AttributeValue) -> Value {
    let b64 = |b: &aws_sdk_dynamodbstreams::primitives::Blob| {
        base64::engine::general_purpose::STANDARD.encode(b.as_ref())
    };
    match v {
        AttributeValue::S(s) => json!({"S": s}),
        AttributeValue::N(n) => json!({"N": n}),
        AttributeValue::B(b) => json!({"B": b64(b)}),
        AttributeValue::Bool(b) => json!({"BOOL": b}),
        AttributeValue::Null(n) => json!({"NULL": n}),
        AttributeValue::Ss(ss) => json!({"SS": ss}),
        AttributeValue::Ns(ns) => json!({"NS": ns}),
        AttributeValue::Bs(bs) => json!({"BS": bs.iter().map(b64).collect::<Vec<_>>()}),
        AttributeValue::L(l) => json!({"L": l.iter().map(value_json).collect::<Vec<_>>()}),
        AttributeValue::M(m) => json!({"M": item_json(m)}),
        _ => Value::Null,
    }
}

fn item_json(item: &HashMap<String, AttributeValue>) -> Value {
    Value::Object(
        item.iter()
            .map(|(k, v)| (k.clone(), value_json(v)))
            .collect(),
    )
}

fn key_of(item: &HashMap<String, AttributeValue>) -> Option<String> {
    match (item.get(schema::PK), item.get(schema::SK)) {
        (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) => Some(format!("{pk}|{sk}")),
        _ => None,
    }
}

/// Keys of items the sweeper deleted; their REMOVE records get the TTL service's identity.
pub type TtlDeletions = Arc<Mutex<HashSet<String>>>;

/// Reads the table's stream from moto and hands records to the stream functions.
pub struct StreamPump {
    client: aws_sdk_dynamodbstreams::Client,
    stream_arn: String,
    /// Per shard, its id and the sequence number of the last record read (None: none yet).
    shards: Vec<(String, Option<String>)>,
    ttl_deletions: TtlDeletions,
    outbox_filters: Vec<Value>,
    expiry_filters: Vec<Value>,
    /// Records a function reported failed, handed to it again on the next call (from the failed
    /// one on, as the mapping does; it retries until the record leaves the stream).
    outbox_backlog: Vec<EventRecord>,
    expiry_backlog: Vec<EventRecord>,
}

impl StreamPump {
    pub async fn new(
        sdk: &aws_config::SdkConfig,
        table: &str,
        ttl_deletions: TtlDeletions,
    ) -> Result<Self, String> {
        let dynamo = aws_sdk_dynamodb::Client::new(sdk);
        let stream_arn = dynamo
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| format!("describe table: {e}"))?
            .table
            .and_then(|t| t.latest_stream_arn)
            .ok_or("table has no stream")?;
        let client = aws_sdk_dynamodbstreams::Client::new(sdk);
        let shards = client
            .describe_stream()
            .stream_arn(&stream_arn)
            .send()
            .await
            .map_err(|e| format!("describe stream: {e}"))?
            .stream_description
            .and_then(|d| d.shards)
            .unwrap_or_default();
        let shards = shards
            .into_iter()
            .map(|s| (s.shard_id.unwrap_or_default(), None))
            .collect();
        Ok(StreamPump {
            client,
            stream_arn,
            shards,
            ttl_deletions,
            outbox_filters: template_filters("publish-events"),
            expiry_filters: template_filters("expire-verifications"),
            outbox_backlog: Vec::new(),
            expiry_backlog: Vec::new(),
        })
    }

    /// Lambda-shaped records that arrived since the last call.
    pub async fn read(&mut self) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        for (shard_id, after) in self.shards.iter_mut() {
            // A fresh iterator on every read, after the last record seen: moto replaces a table
            // (and its stream shard) by a copy when it rolls back a cancelled transaction, and
            // an iterator taken before would read the discarded shard from then on.
            let request = self
                .client
                .get_shard_iterator()
                .stream_arn(&self.stream_arn)
                .shard_id(shard_id.as_str());
            let request = match after.as_deref() {
                Some(seq) => request
                    .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                    .sequence_number(seq),
                None => request.shard_iterator_type(ShardIteratorType::TrimHorizon),
            };
            let iterator = request
                .send()
                .await
                .map_err(|e| format!("shard iterator: {e}"))?
                .shard_iterator
                .ok_or("no shard iterator")?;
            let page = self
                .client
                .get_records()
                .shard_iterator(iterator)
                .send()
                .await
                .map_err(|e| format!("get records: {e}"))?;
            for record in page.records.unwrap_or_default() {
                if let Some(seq) = record
                    .dynamodb
                    .as_ref()
                    .and_then(|c| c.sequence_number.clone())
                {
                    *after = Some(seq);
                }
                let Some(change) = record.dynamodb else {
                    continue;
                };
                let keys = change.keys.clone().unwrap_or_default();
                let event_name = record
                    .event_name
                    .map(|n| n.as_str().to_string())
                    .unwrap_or_default();
                let mut lambda_record = json!({
                    "eventID": record.event_id.unwrap_or_default(),
                    "eventName": event_name,
                    "eventVersion": "1.1",
                    "eventSource": "aws:dynamodb",
                    "awsRegion": crate::moto::REGION,
                    "eventSourceARN": self.stream_arn,
                    "dynamodb": {
                        "ApproximateCreationDateTime": change.approximate_creation_date_time.map(|t| t.secs()).unwrap_or(0),
                        "Keys": item_json(&keys),
                        "NewImage": item_json(&change.new_image.unwrap_or_default()),
                        "OldImage": item_json(&change.old_image.unwrap_or_default()),
                        "SequenceNumber": change.sequence_number.unwrap_or_default(),
                        "SizeBytes": change.size_bytes.unwrap_or(0),
                        "StreamViewType": "NEW_AND_OLD_IMAGES",
                    },
                });
                let swept = event_name == "REMOVE"
                    && key_of(&keys).is_some_and(|k| self.ttl_deletions.lock().unwrap().remove(&k));
                if swept {
                    lambda_record["userIdentity"] =
                        json!({"type": "Service", "principalId": TTL_PRINCIPAL});
                }
                out.push(lambda_record);
            }
        }
        Ok(out)
    }

    /// Reads new records and runs each stream function on the ones its filter lets through, after
    /// the records it failed last time. Returns how many records were handed to a function.
    pub async fn pump_once<S, M, T, R, Q, C, P>(
        &mut self,
        outbox: &OutboxDeps<S, M, T, R, Q, C, P>,
        expiry: &Expiry,
    ) -> Result<usize, String>
    where
        S: Store,
        M: Mailer,
        T: Texter,
        R: Scheduler,
        Q: Queue,
        C: Clock,
        P: ports::IncomeProvider,
    {
        let records = self.read().await?;
        let pick = |filters: &[Value]| -> Vec<EventRecord> {
            records
                .iter()
                .filter(|r| filters.iter().any(|p| pattern_matches(p, r)))
                .map(|r| serde_json::from_value(r.clone()).expect("Lambda-shaped record"))
                .collect()
        };
        let mut to_outbox = std::mem::take(&mut self.outbox_backlog);
        to_outbox.extend(pick(&self.outbox_filters));
        let mut to_expiry = std::mem::take(&mut self.expiry_backlog);
        to_expiry.extend(pick(&self.expiry_filters));
        let handed = to_outbox.len() + to_expiry.len();
        if !to_outbox.is_empty() {
            self.outbox_backlog = run_batch(to_outbox, |batch| {
                service::handlers::publish_events::publish_events(outbox, batch)
            })
            .await;
        }
        if !to_expiry.is_empty() {
            self.expiry_backlog = run_batch(to_expiry, |batch| {
                service::handlers::expire_verifications::expire_verifications(expiry, batch)
            })
            .await;
        }
        Ok(handed)
    }
}

/// Records older than this have left the stream (DynamoDB Streams keeps 24 h); the mapping
/// retries a failing record until then.
const STREAM_RETENTION_SECONDS: i64 = 24 * 3600;

/// Like the event source mapping: runs a batch and returns the records to hand over again, from
/// the reported failure on (none if it succeeded), dropping those past the stream's retention.
async fn run_batch<F, Fut>(mut records: Vec<EventRecord>, handler: F) -> Vec<EventRecord>
where
    F: Fn(Event) -> Fut,
    Fut: std::future::Future<Output = aws_lambda_events::event::streams::DynamoDbEventResponse>,
{
    let mut event = Event::default();
    event.records = records.clone();
    let response = handler(event).await;
    let Some(failed) = response
        .batch_item_failures
        .first()
        .and_then(|f| f.item_identifier.clone())
    else {
        return Vec::new();
    };
    let from = records
        .iter()
        .position(|r| r.change.sequence_number.as_deref() == Some(failed.as_str()))
        .unwrap_or(0);
    let oldest_kept = chrono::Utc::now().timestamp() - STREAM_RETENTION_SECONDS;
    let kept: Vec<EventRecord> = records
        .split_off(from)
        .into_iter()
        .filter(|r| r.change.approximate_creation_date_time.timestamp() >= oldest_kept)
        .collect();
    tracing::warn!(
        retried = kept.len(),
        "stream batch failed; handed over again from the failed record on the next pass"
    );
    kept
}

/// Deletes expiry and erasure markers whose TTL has passed, as DynamoDB's TTL service would (it
/// may be hours late in AWS; here it runs every few seconds). Returns how many it deleted.
pub async fn sweep_ttl(
    dynamo: &aws_sdk_dynamodb::Client,
    table: &str,
    deletions: &TtlDeletions,
) -> Result<usize, String> {
    let now = chrono::Utc::now().timestamp();
    let mut deleted = 0;
    let mut start = None;
    // The emulator's sweeper may scan: it stands in for a service that reads the whole table.
    loop {
        let page = dynamo
            .scan()
            .table_name(table)
            .filter_expression("SK IN (:expiry, :erasure) AND #ttl <= :now")
            .expression_attribute_names("#ttl", schema::TTL_ATTRIBUTE)
            .expression_attribute_values(":expiry", DynamoValue::S(schema::EXPIRY_SK.into()))
            .expression_attribute_values(":erasure", DynamoValue::S(schema::ERASURE_SK.into()))
            .expression_attribute_values(":now", DynamoValue::N(now.to_string()))
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| format!("scan: {e}"))?;
        for item in page.items.unwrap_or_default() {
            let (Some(DynamoValue::S(pk)), Some(DynamoValue::S(sk))) =
                (item.get(schema::PK), item.get(schema::SK))
            else {
                continue;
            };
            deletions.lock().unwrap().insert(format!("{pk}|{sk}"));
            dynamo
                .delete_item()
                .table_name(table)
                .key(schema::PK, DynamoValue::S(pk.clone()))
                .key(schema::SK, DynamoValue::S(sk.clone()))
                .send()
                .await
                .map_err(|e| format!("delete: {e}"))?;
            deleted += 1;
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(deleted);
        }
    }
}

/// Receives webhook messages like the SQS event source mapping and runs `deliver-webhook`;
/// successes are deleted, failures stay (with the visibility the handler set). Returns how many
/// messages it handed over.
pub async fn pump_sqs_once(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    delivery: &Delivery,
    wait_seconds: i32,
) -> Result<usize, String> {
    pump_queue_once(sqs, queue_url, wait_seconds, |event| {
        service::handlers::deliver_webhook::deliver_webhooks(delivery, event)
    })
    .await
}

/// The same for the retry queue and `retry-events`.
pub async fn pump_retry_once(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    outbox: &Outbox,
    wait_seconds: i32,
) -> Result<usize, String> {
    pump_queue_once(sqs, queue_url, wait_seconds, |event| {
        service::handlers::retry_events::retry_events(outbox, event)
    })
    .await
}

/// The same for the documents queue (the bucket's notifications) and `analyze-document`.
pub async fn pump_documents_once(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    analysis: &adapters::wiring::Analysis,
    wait_seconds: i32,
) -> Result<usize, String> {
    pump_queue_once(sqs, queue_url, wait_seconds, |event| {
        service::handlers::analyze_document::analyze_documents(analysis, event)
    })
    .await
}

/// One receive, one handler call, and the deletes of what it did not report failed.
pub async fn pump_queue_once<F, Fut>(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    wait_seconds: i32,
    handler: F,
) -> Result<usize, String>
where
    F: FnOnce(SqsEvent) -> Fut,
    Fut: std::future::Future<Output = aws_lambda_events::event::sqs::SqsBatchResponse>,
{
    let received = sqs
        .receive_message()
        .queue_url(queue_url)
        .max_number_of_messages(10)
        .wait_time_seconds(wait_seconds)
        .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::All)
        .send()
        .await
        .map_err(|e| format!("receive: {e}"))?;
    let messages = received.messages.unwrap_or_default();
    if messages.is_empty() {
        return Ok(0);
    }
    let mut event = SqsEvent::default();
    for m in &messages {
        let mut message = SqsMessage::default();
        message.message_id = m.message_id.clone();
        message.receipt_handle = m.receipt_handle.clone();
        message.body = m.body.clone();
        message.attributes = m
            .attributes
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k.as_str().to_string(), v))
            .collect();
        message.event_source = Some("aws:sqs".into());
        event.records.push(message);
    }
    let response = handler(event).await;
    let failed: HashSet<String> = response
        .batch_item_failures
        .into_iter()
        .map(|f| f.item_identifier)
        .collect();
    for m in &messages {
        if !m.message_id.as_ref().is_some_and(|id| failed.contains(id)) {
            sqs.delete_message()
                .queue_url(queue_url)
                .receipt_handle(m.receipt_handle.clone().unwrap_or_default())
                .send()
                .await
                .map_err(|e| format!("delete: {e}"))?;
        }
    }
    Ok(messages.len())
}
