//! The household decision in the outbox (`publish-events`, retried by `retry-events`).
//!
//! When a member's verification becomes final, its stream record asks for the household's
//! decision: the household and its members are read (consistently), and if every member is final
//! the decision is stored with ONE conditional write (only if the household has none), so two
//! members finishing at once store it exactly once. The stream record of that write (the
//! household item's MODIFY that adds `decision`) then puts `household.completed` on the webhook
//! queue, with a deterministic `webhook-id`: a crash between the two steps loses nothing, and a
//! duplicate record queues the same message, which receivers deduplicate. A household cancelled
//! (DELETE /households) is never decided: its cancel closed at least one member in the same write
//! (a cancel that finds every member closed changes nothing), and the decision's write is
//! conditioned on no cancel, as the cancel's is on no decision.

use serde_json::json;
use uuid::Uuid;

use crate::handlers::households::{member_verifications, state_of};
use crate::handlers::outbox::{OutboxDeps, OutboxError};
use crate::table_schema as schema;
use domain::format_ts;
use domain::household::{Household, HouseholdState};
use domain::webhook::WebhookMessage;
use domain::webhook_log::household_event_id;
use ports::{Clock, HouseholdStore, VerificationStore};

/// The webhook event type of a decided household.
pub const HOUSEHOLD_COMPLETED: &str = "household.completed";

/// Stores the household's decision if every member is final; nothing otherwise.
pub(crate) async fn record_decision<
    S: HouseholdStore + VerificationStore,
    M,
    T,
    R,
    Q,
    C: Clock,
    P,
>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    household_id: Uuid,
) -> Result<(), OutboxError> {
    let Some(household) = deps.store.get_household(household_id).await? else {
        tracing::warn!(household_id = %household_id, "household of a member not found");
        return Ok(());
    };
    if household.decision.is_some() {
        return Ok(());
    }
    let members = member_verifications(&deps.store, &household).await?;
    match state_of(&household, &members, deps.clock.now()) {
        HouseholdState::Decided(decision) => {
            if deps
                .store
                .record_household_decision(household_id, &decision, deps.clock.now())
                .await?
            {
                tracing::info!(household_id = %household_id, meets = decision.meets_requirement, "household decided");
            }
        }
        HouseholdState::Open { .. } => {}
        HouseholdState::Closed => {
            tracing::info!(household_id = %household_id, "household closed without a completed member; no decision");
        }
        // The landlord cancelled it while a member was open: never decided.
        HouseholdState::Cancelled => {}
    }
    Ok(())
}

pub(crate) fn household_image(item: &serde_dynamo::Item) -> Result<Option<Household>, String> {
    let is_household = matches!(
        item.get(schema::SK),
        Some(serde_dynamo::AttributeValue::S(sk)) if sk == schema::HOUSEHOLD_SK
    );
    if !is_household {
        return Ok(None);
    }
    serde_dynamo::from_item(item.clone())
        .map(Some)
        .map_err(|e| e.to_string())
}

/// `household.completed` for a household item's change that adds the decision, with the
/// household's id (None for any other record, or a household without a `webhook_url`).
pub(crate) fn household_completed_webhook(
    old: &serde_dynamo::Item,
    new: &serde_dynamo::Item,
) -> Result<Option<(Uuid, WebhookMessage)>, String> {
    let (Some(old), Some(new)) = (household_image(old)?, household_image(new)?) else {
        return Ok(None);
    };
    if old.decision.is_some() {
        return Ok(None);
    }
    Ok(household_webhook(&new).map(|m| (new.household_id, m)))
}

/// The `household.completed` message of a decided household with a `webhook_url`.
pub fn household_webhook(h: &Household) -> Option<WebhookMessage> {
    let decision = h.decision.as_ref()?;
    let url = h.webhook_url.clone()?;
    let body = json!({
        "type": HOUSEHOLD_COMPLETED,
        "timestamp": format_ts(h.decided_at.unwrap_or(h.created_at)),
        "data": {
            "household_id": h.household_id,
            "status": "decided",
            "property": {
                "address": h.property_address,
                "monthly_rent": h.monthly_rent,
            },
            "decided_at": h.decided_at.map(format_ts),
            "decision": decision,
        },
    });
    Some(WebhookMessage {
        // The suffix tells the API the event is a household's (`WebhookSubject::of_event_id`).
        webhook_id: household_event_id(h.household_id),
        account_id: h.account_id.clone(),
        url,
        body: body.to_string(),
    })
}
