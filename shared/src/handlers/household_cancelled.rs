//! The household cancel in the outbox (`publish-events`, retried by `retry-events`).
//!
//! DELETE /households writes only the household's `cancelled_at` (one round trip); from then on no
//! member can make progress (each tenant step checks it). Its stream record (the household item's
//! MODIFY that adds `cancelled_at`) cancels every member still open with the read-free conditional
//! `cancel_open`, dated as the household's cancel: idempotent, so a duplicate record or a retry
//! changes nothing more, and a member that completed before the cancel stays completed. A failure
//! is retried like any outbox work (never acknowledged as done): a member is never left open. The
//! members' own MODIFY records then send their `verification.cancelled` webhooks as usual.

use uuid::Uuid;

use crate::handlers::household_completed::household_image;
use crate::handlers::outbox_work::RetryWork;
use crate::handlers::publish_events::{OutboxDeps, OutboxError};
use crate::ports::{Clock, Store};

/// The work of a household item's change that adds `cancelled_at` (None for any other record).
pub(crate) fn household_cancelled_work(
    old: &serde_dynamo::Item,
    new: &serde_dynamo::Item,
) -> Result<Option<RetryWork>, String> {
    let (Some(old), Some(new)) = (household_image(old)?, household_image(new)?) else {
        return Ok(None);
    };
    Ok(
        (old.cancelled_at.is_none() && new.cancelled_at.is_some()).then_some(
            RetryWork::CancelHouseholdMembers {
                household_id: new.household_id,
            },
        ),
    )
}

/// Cancels every member of the cancelled household that is still open (the household is read
/// again: a retry may come long after the record).
pub(crate) async fn cancel_members<S: Store, M, T, R, Q, C: Clock>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    household_id: Uuid,
) -> Result<(), OutboxError> {
    let Some(household) = deps.store.get_household(household_id).await? else {
        tracing::warn!(household_id = %household_id, "cancelled household not found");
        return Ok(());
    };
    let Some(at) = household.cancelled_at else {
        return Ok(());
    };
    let cancels = household.members.iter().map(|m| {
        (deps.store).cancel_open(m.verification_id, &household.account_id, household.mode, at)
    });
    let cancelled = futures::future::try_join_all(cancels).await?;
    let cancelled = cancelled.into_iter().filter(|c| *c).count();
    tracing::info!(household_id = %household_id, cancelled, "cancelled household's open members cancelled");
    Ok(())
}
