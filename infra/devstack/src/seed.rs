//! Fast seeding of many verifications of one owner (`make bench`, and the list tests at tens of
//! thousands of items): BatchWriteItem with 25 items per call, a few
//! calls in flight, items built by the adapter's own mapping (`dynamo::items`, so the same keys and
//! GSI attributes as `DynamoStore::create_verification` writes), and the owner's STATS counter
//! set to match.

use adapters::dynamo::items::{owner_stats_item, verification_item};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use chrono::{Duration, Utc};
use domain::{Mode, NewVerificationInput, OwnerStats, VERIFICATION_LIFETIME, Verification};
use futures::StreamExt;

/// A pending test-mode verification of `account`, created `age_seconds` ago.
pub fn verification(account: &str, age_seconds: i64) -> Verification {
    let input = NewVerificationInput {
        tenant_email: format!("bench.tenant+{age_seconds}@example.com"),
        tenant_name: Some("Bench Tenant".into()),
        tenant_phone: None,
        property_address: Some("1 Bench Street, Springfield".into()),
        monthly_rent: Some(1500.0),
        webhook_url: None,
        ..Default::default()
    };
    let created = Utc::now() - Duration::seconds(age_seconds);
    let mut v =
        Verification::new_pending(account, Mode::Test, input, created, VERIFICATION_LIFETIME);
    v.token_hashes = vec![domain::secrets::sha256_hex(
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
                    let item = verification_item(&verification(account, i as i64))
                        .map_err(|e| e.to_string())?;
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
    let stats = OwnerStats {
        total: to as u64,
        open: to as u64,
        ..OwnerStats::default()
    };
    let item = owner_stats_item(account, Mode::Test, &stats).map_err(|e| e.to_string())?;
    client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
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
