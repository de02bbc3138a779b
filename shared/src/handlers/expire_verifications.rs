//! `expire-verifications`: each verification has an expiry marker item whose TTL is `expires_at`.
//! When DynamoDB's TTL service deletes it, the stream's REMOVE record (identity: the DynamoDB
//! service principal) arrives here and an open verification moves to expired with a conditional
//! write, which in turn makes `publish-events` send `verification.expired`.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use chrono::Duration;
use uuid::Uuid;

use crate::adapters::dynamo::schema;
use crate::domain::Transition;
use crate::ports::{Clock, StoreError, TransitionOutcome, VerificationStore};

/// The identity DynamoDB puts on the stream records of its TTL deletions.
pub const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

pub struct ExpiryDeps<S, C> {
    pub store: S,
    pub clock: C,
}

fn string_attr<'a>(item: &'a serde_dynamo::Item, name: &str) -> Option<&'a str> {
    match item.get(name) {
        Some(serde_dynamo::AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

/// The verification whose marker the TTL service removed; None for anything else (a person's
/// delete, another item, another event). The template's filter does the same; this is the check
/// that holds wherever the function is invoked from.
pub fn expired_marker(record: &EventRecord) -> Option<Uuid> {
    let by_ttl = record
        .user_identity
        .as_ref()
        .is_some_and(|u| u.type_ == "Service" && u.principal_id == TTL_PRINCIPAL);
    if record.event_name != "REMOVE" || !by_ttl {
        return None;
    }
    if string_attr(&record.change.keys, schema::SK) != Some(schema::EXPIRY_SK) {
        return None;
    }
    let pk = string_attr(&record.change.keys, schema::PK)?;
    crate::adapters::dynamo::keys::verification_id(pk)
}

async fn expire<S: VerificationStore, C: Clock>(
    deps: &ExpiryDeps<S, C>,
    id: Uuid,
) -> Result<(), StoreError> {
    let now = deps.clock.now();
    // Bounded: each round either writes or sees a fresher state.
    for _ in 0..3 {
        let Some(v) = deps.store.get_verification(id).await? else {
            return Ok(());
        };
        if !v.status.is_open() {
            return Ok(());
        }
        // TTL deletes late, never early; a marker gone before its time was not the clock's doing.
        if v.expires_at > now + Duration::minutes(1) {
            tracing::warn!(verification_id = %id, "expiry marker removed before expires_at; ignored");
            return Ok(());
        }
        match deps.store.transition(&v, &Transition::Expire, now).await? {
            TransitionOutcome::Applied(_) => {
                tracing::info!(verification_id = %id, "verification expired");
                return Ok(());
            }
            TransitionOutcome::Conflict(_) => continue,
        }
    }
    Err(StoreError::Unavailable("expiry kept conflicting".into()))
}

/// Handles one batch of TTL REMOVE records.
pub async fn expire_verifications<S: VerificationStore, C: Clock>(
    deps: &ExpiryDeps<S, C>,
    event: Event,
) -> DynamoDbEventResponse {
    let mut response = DynamoDbEventResponse::default();
    for record in &event.records {
        let Some(id) = expired_marker(record) else {
            continue;
        };
        if let Err(e) = expire(deps, id).await {
            tracing::error!(error = %e, verification_id = %id, "expiry failed");
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = record.change.sequence_number.clone();
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}
