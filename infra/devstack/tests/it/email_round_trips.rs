//! The tenant e-mail path's sequential DynamoDB round trips, counted on the wire (moto): at most
//! two around the SES call (issue 14). An SDK interceptor sees every DynamoDB call; a call that
//! starts while another is in flight runs in parallel and adds no round trip.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use adapters::dynamo::DynamoStore;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, BeforeTransmitInterceptorContextRef,
    FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use common::{env, sent_emails};
use ports::store::prelude::*;
use serde_json::json;
use service::handlers::publish_events::{OutboxDeps, send_tenant_email, send_tenant_email_of};
use uuid::Uuid;

/// The first invite e-mail, as the outbox claims it.
static INVITE: domain::reach::Message = domain::reach::Message::InviteEmail(0);

/// Sequential round trips (a call starting while none is in flight) and the calls by operation.
#[derive(Debug, Default)]
struct RoundTrips {
    in_flight: AtomicU64,
    rounds: AtomicU64,
    calls: Mutex<Vec<&'static str>>,
    /// Requests sent without `ReturnConsumedCapacity: TOTAL`.
    without_capacity: AtomicU64,
}

#[derive(Debug, Clone, Default)]
struct RoundTripCounter(Arc<RoundTrips>);

fn operation(context: &BeforeSerializationInterceptorContextRef<'_>) -> &'static str {
    let input = context.input();
    if input.downcast_ref::<GetItemInput>().is_some() {
        "GetItem"
    } else if input.downcast_ref::<BatchGetItemInput>().is_some() {
        "BatchGetItem"
    } else if input.downcast_ref::<PutItemInput>().is_some() {
        "PutItem"
    } else if input.downcast_ref::<UpdateItemInput>().is_some() {
        "UpdateItem"
    } else if input.downcast_ref::<DeleteItemInput>().is_some() {
        "DeleteItem"
    } else if input.downcast_ref::<TransactWriteItemsInput>().is_some() {
        "TransactWriteItems"
    } else if input.downcast_ref::<QueryInput>().is_some() {
        "Query"
    } else {
        "other"
    }
}

impl Intercept for RoundTripCounter {
    fn name(&self) -> &'static str {
        "RoundTripCounter"
    }

    fn read_before_execution(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        if self.0.in_flight.fetch_add(1, Ordering::SeqCst) == 0 {
            self.0.rounds.fetch_add(1, Ordering::SeqCst);
        }
        self.0.calls.lock().unwrap().push(operation(context));
        Ok(())
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let body = context.request().body().bytes().unwrap_or_default();
        let body: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        if body["ReturnConsumedCapacity"] != "TOTAL" {
            self.0.without_capacity.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }

    fn read_after_execution(
        &self,
        _context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        Ok(())
    }
}

impl RoundTripCounter {
    /// (sequential round trips, calls by operation, sorted) since the last call.
    fn take(&self) -> (u64, Vec<&'static str>) {
        let without = self.0.without_capacity.swap(0, Ordering::SeqCst);
        assert_eq!(without, 0, "calls without ReturnConsumedCapacity: TOTAL");
        let mut calls = std::mem::take(&mut *self.0.calls.lock().unwrap());
        calls.sort_unstable();
        (self.0.rounds.swap(0, Ordering::SeqCst), calls)
    }
}

type Outbox = adapters::wiring::Outbox;

/// The local stack's outbox, over a DynamoDB client that counts its round trips.
fn counted_outbox(env: &common::TestEnv) -> (Outbox, RoundTripCounter) {
    let counter = RoundTripCounter::default();
    let conf = aws_sdk_dynamodb::config::Builder::from(&env.sdk)
        .interceptor(counter.clone())
        .build();
    let store = DynamoStore::new(
        aws_sdk_dynamodb::Client::from_conf(conf),
        env.names.table.clone(),
    );
    let workers = env.workers();
    let deps = OutboxDeps {
        store,
        ..workers.outbox
    };
    (deps, counter)
}

async fn created(env: &common::TestEnv, to: &str) -> Uuid {
    let r = env
        .create_verification(&env.live_key, json!({"tenant_email": to}))
        .await;
    assert_eq!(r.status, 201, "{}", r.raw);
    r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// From the stream's INSERT image: the claim-and-bind transaction beside the account read (one
/// round trip), SES, then the mark-sent write (the second). A duplicate record costs one round
/// trip and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tenant_e_mail_costs_two_sequential_round_trips() {
    let env = env().await;
    let (deps, counter) = counted_outbox(&env);
    let to = "two-trips@example.com";
    let id = created(&env, to).await;
    // The image the stream record carries: the verification as created.
    let image = env.store.get_verification(id).await.unwrap().unwrap();

    send_tenant_email_of(&deps, &image).await.unwrap();
    assert_eq!(sent_emails(to).await.len(), 1);
    let (rounds, calls) = counter.take();
    assert_eq!(calls, vec!["GetItem", "TransactWriteItems", "UpdateItem"]);
    assert_eq!(rounds, 2, "sequential DynamoDB round trips around SES");
    // The token went in with the claim, as the e-mail's link.
    let stored = env.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.token_hashes, image.token_hashes);
    assert_eq!(
        stored.message_links.keys().collect::<Vec<_>>(),
        vec!["invite_email"]
    );

    // The stream delivers the record again: refused with the claim item in the answer.
    send_tenant_email_of(&deps, &image).await.unwrap();
    assert_eq!(sent_emails(to).await.len(), 1, "no second e-mail");
    let (rounds, calls) = counter.take();
    assert_eq!(calls, vec!["GetItem", "TransactWriteItems"]);
    assert_eq!(rounds, 1);
    let after = env.store.get_verification(id).await.unwrap().unwrap();
    assert!(
        after.token_hashes == stored.token_hashes && after.message_links == stored.message_links,
        "a refused claim binds no token"
    );
}

/// A retry names only the id, so it reads the verification first: three round trips, still one
/// e-mail. A cancelled verification's stale image sends nothing and binds nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_reads_first_and_a_stale_image_sends_nothing() {
    let env = env().await;
    let (deps, counter) = counted_outbox(&env);
    let to = "retry-trips@example.com";
    let id = created(&env, to).await;
    send_tenant_email(&deps, id).await.unwrap();
    assert_eq!(sent_emails(to).await.len(), 1);
    let (rounds, calls) = counter.take();
    assert_eq!(
        calls,
        vec!["GetItem", "GetItem", "TransactWriteItems", "UpdateItem"]
    );
    assert_eq!(rounds, 3);

    let to = "cancelled-before@example.com";
    let id = created(&env, to).await;
    let image = env.store.get_verification(id).await.unwrap().unwrap();
    let cancel = env.cancel_verification(&env.live_key, &id).await;
    assert_eq!(cancel.status, 200, "{}", cancel.raw);
    send_tenant_email_of(&deps, &image).await.unwrap();
    assert!(sent_emails(to).await.is_empty());
    let (rounds, _) = counter.take();
    assert_eq!(rounds, 1);
    let after = env.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(after.token_hashes, image.token_hashes);
    assert!(after.message_links.is_empty(), "nothing bound");
}

/// Every call of the adapter asks DynamoDB for its consumed capacity (the bench prices from it),
/// whatever the operation: reads, queries, conditional writes, transactions, deletes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_adapter_call_asks_for_its_consumed_capacity() {
    let env = env().await;
    let (deps, counter) = counted_outbox(&env);
    let store = &deps.store;
    let id = created(&env, "capacity@example.com").await;
    let v = store.get_verification(id).await.unwrap().unwrap();
    // Each write kind by a production call: the e-mail's claim (a transaction) given back (a
    // delete), a replay's link (an update), a new account (a put).
    let start = store.claim_message(id, &INVITE, "another-hash", v.created_at);
    assert_eq!(start.await.unwrap(), ports::ClaimStart::Claimed);
    store.release_message(id, &INVITE).await.unwrap();
    let replay = store
        .add_recent_link_token(&v, "replay-hash", 3)
        .await
        .unwrap();
    assert_eq!(replay, ports::LinkTokenOutcome::Added);
    let account_id = format!("acct_capacity_{}", Uuid::new_v4().simple());
    let account = test_support::active_account(&account_id, "pro", v.created_at);
    store.put_account(&account).await.unwrap();
    store
        .transition(&v, &domain::Transition::Cancel, v.created_at)
        .await
        .unwrap();
    let query = ports::ListQuery {
        account_id: v.account_id.clone(),
        mode: v.mode,
        status: None,
        offset: 0,
        limit: 10,
        expired_if_created_by: v.created_at - chrono::Duration::days(30),
    };
    store.list_verifications(&query).await.unwrap();
    store.get_account(&v.account_id).await.unwrap();
    let (_, calls) = counter.take();
    for op in [
        "GetItem",
        "UpdateItem",
        "PutItem",
        "DeleteItem",
        "TransactWriteItems",
        "Query",
    ] {
        assert!(calls.contains(&op), "{op} not exercised: {calls:?}");
    }
}
