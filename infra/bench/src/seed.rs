//! Fast seeding of many verifications of one owner: BatchWriteItem with 25 items per call, a few
//! calls in flight, items shaped exactly as `DynamoStore::create_verification` writes them (same
//! keys and GSI attributes), and the owner's STATS counter set to match.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use chrono::{Duration, Utc};
use futures::StreamExt;
use shared::adapters::dynamo::{keys, schema};
use shared::domain::{Mode, NewVerificationInput, VERIFICATION_LIFETIME, Verification};

type Item = HashMap<String, AttributeValue>;

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// The stored item of a verification (the same attributes `DynamoStore` writes).
pub fn verification_item(v: &Verification) -> Result<Item, String> {
    let mut item: Item = serde_dynamo::aws_sdk_dynamodb_1::to_item(v).map_err(|e| e.to_string())?;
    let (pk, sk) = keys::verification(v.verification_id);
    let sort = keys::created_sort(v);
    item.insert(schema::PK.into(), s(pk));
    item.insert(schema::SK.into(), s(sk));
    item.insert(schema::GSI1PK.into(), s(keys::owner(&v.account_id, v.mode)));
    item.insert(schema::GSI1SK.into(), s(sort.clone()));
    item.insert(
        schema::GSI2PK.into(),
        s(keys::owner_status(&v.account_id, v.mode, v.status)),
    );
    item.insert(schema::GSI2SK.into(), s(sort));
    Ok(item)
}

/// A pending test-mode verification of `account`, created `age_seconds` ago.
pub fn verification(account: &str, age_seconds: i64) -> Verification {
    let input = NewVerificationInput {
        tenant_email: format!("bench.tenant+{age_seconds}@example.com"),
        tenant_name: Some("Bench Tenant".into()),
        tenant_phone: None,
        property_address: Some("1 Bench Street, Springfield".into()),
        monthly_rent: Some(1500.0),
        webhook_url: None,
    };
    let created = Utc::now() - Duration::seconds(age_seconds);
    let mut v =
        Verification::new_pending(account, Mode::Test, input, created, VERIFICATION_LIFETIME);
    v.token_hashes = vec![shared::domain::secrets::sha256_hex(
        format!("bench-token-{age_seconds}").as_bytes(),
    )];
    v
}

/// Writes verifications number `from..to` of `account` (older numbers are older verifications)
/// and sets the owner's STATS counter to `to`.
pub async fn seed_verifications(
    client: &Client,
    table: &str,
    account: &str,
    from: usize,
    to: usize,
) -> Result<(), String> {
    let batches: Vec<Vec<WriteRequest>> = (from..to)
        .collect::<Vec<_>>()
        .chunks(25)
        .map(|chunk| {
            chunk
                .iter()
                .map(|&i| {
                    let item = verification_item(&verification(account, i as i64))?;
                    let put = PutRequest::builder()
                        .set_item(Some(item))
                        .build()
                        .map_err(|e| e.to_string())?;
                    Ok(WriteRequest::builder().put_request(put).build())
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .collect::<Result<_, String>>()?;
    let results: Vec<Result<(), String>> = futures::stream::iter(batches)
        .map(|batch| write_batch(client, table, batch))
        .buffer_unordered(4)
        .collect()
        .await;
    results.into_iter().collect::<Result<(), String>>()?;
    let (pk, sk) = keys::stats(account, Mode::Test);
    client
        .put_item()
        .table_name(table)
        .item(schema::PK, s(pk))
        .item(schema::SK, s(sk))
        .item("total", AttributeValue::N(to.to_string()))
        .item("pending", AttributeValue::N(to.to_string()))
        .send()
        .await
        .map_err(|e| format!("stats item: {e}"))?;
    Ok(())
}

async fn write_batch(client: &Client, table: &str, batch: Vec<WriteRequest>) -> Result<(), String> {
    let mut pending = batch;
    for _ in 0..10 {
        let out = client
            .batch_write_item()
            .request_items(table, pending)
            .send()
            .await
            .map_err(|e| {
                format!(
                    "batch write: {}",
                    aws_sdk_dynamodb::error::DisplayErrorContext(&e)
                )
            })?;
        pending = out
            .unprocessed_items
            .and_then(|mut u| u.remove(table))
            .unwrap_or_default();
        if pending.is_empty() {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    Err("batch write kept returning unprocessed items".into())
}
