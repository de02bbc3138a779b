//! `expire-verifications`: the TTL service's deletions of a verification's markers (their own
//! partition, `MARKER#<id>`). Their stream REMOVE records (identity: the DynamoDB service principal) arrive here.
//!
//! - The expiry marker (TTL = `expires_at`): an open verification moves to expired with a
//!   conditional write, which in turn makes `publish-events` send `verification.expired`. By then
//!   every verification has closed, so its erasure is armed at the end of its account's
//!   retention (`retention::arm_erasure_of`).
//! - The erasure marker (TTL = the erasure's time): the verification's personal data is erased,
//!   its uploaded documents with it, or the marker armed again when the account's retention
//!   changed (`retention`). A failed erasure reports the record, so the stream delivers it again.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use chrono::Duration;
use uuid::Uuid;

use crate::handlers::retention::{arm_erasure_of, erasure_marker_fired};
use crate::table_schema as schema;
use domain::Transition;
use ports::{
    Clock, DocumentEraser, ErasureStore, StoreError, TransitionOutcome, VerificationStore,
};

/// The identity DynamoDB puts on the stream records of its TTL deletions.
pub const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

pub struct ExpiryDeps<S, C, D> {
    pub store: S,
    pub clock: C,
    /// The documents bucket's uploads, erased with the rest (`Option`: None when the stack has
    /// no bucket).
    pub documents: D,
}

fn string_attr<'a>(item: &'a serde_dynamo::Item, name: &str) -> Option<&'a str> {
    match item.get(name) {
        Some(serde_dynamo::AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

/// Which marker the TTL service removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Expiry,
    Erasure,
}

/// The verification whose marker the TTL service removed, and which marker; None for anything
/// else (a person's delete, another item, another event). The template's filter does the same;
/// this is the check that holds wherever the function is invoked from.
pub fn removed_marker(record: &EventRecord) -> Option<(Marker, Uuid)> {
    let by_ttl = record
        .user_identity
        .as_ref()
        .is_some_and(|u| u.type_ == "Service" && u.principal_id == TTL_PRINCIPAL);
    if record.event_name != "REMOVE" || !by_ttl {
        return None;
    }
    let marker = match string_attr(&record.change.keys, schema::SK)? {
        schema::EXPIRY_SK => Marker::Expiry,
        schema::ERASURE_SK => Marker::Erasure,
        _ => return None,
    };
    let pk = string_attr(&record.change.keys, schema::PK)?;
    Some((marker, schema::keys::marker_verification_id(pk)?))
}

async fn expire<S: VerificationStore + ErasureStore, C: Clock, D>(
    deps: &ExpiryDeps<S, C, D>,
    id: Uuid,
) -> Result<(), StoreError> {
    let now = deps.clock.now();
    // Bounded: each round either writes or sees a fresher state.
    for _ in 0..3 {
        let Some(v) = deps.store.get_verification(id).await? else {
            return Ok(());
        };
        if !v.status.is_open() {
            return arm_erasure_of(&deps.store, &v).await;
        }
        // TTL deletes late, never early; a marker gone before its time was not the clock's doing.
        if v.expires_at > now + Duration::minutes(1) {
            tracing::warn!(verification_id = %id, "expiry marker removed before expires_at; ignored");
            return Ok(());
        }
        match deps.store.transition(&v, &Transition::Expire, now).await? {
            TransitionOutcome::Applied(expired) => {
                tracing::info!(verification_id = %id, "verification expired");
                return arm_erasure_of(&deps.store, &expired).await;
            }
            TransitionOutcome::Conflict(_) => continue,
        }
    }
    Err(StoreError::Unavailable("expiry kept conflicting".into()))
}

/// Handles one batch of TTL REMOVE records.
pub async fn expire_verifications<S, C, D>(
    deps: &ExpiryDeps<S, C, D>,
    event: Event,
) -> DynamoDbEventResponse
where
    S: VerificationStore + ErasureStore,
    C: Clock,
    D: DocumentEraser,
{
    let mut response = DynamoDbEventResponse::default();
    for record in &event.records {
        let Some((marker, id)) = removed_marker(record) else {
            continue;
        };
        let done = match marker {
            Marker::Expiry => expire(deps, id).await,
            Marker::Erasure => {
                erasure_marker_fired(&deps.store, &deps.documents, id, deps.clock.now()).await
            }
        };
        if let Err(e) = done {
            tracing::error!(error = %e, verification_id = %id, ?marker, "marker's work failed");
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = record.change.sequence_number.clone();
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}
