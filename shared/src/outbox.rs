//! `publish-events`: the table's stream is the outbox. A new verification sends the tenant e-mail;
//! a status change of a verification with a `webhook_url` puts a webhook message on SQS. A crash
//! between a write and its follow-up loses nothing: the stream record is delivered again.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api::render_verification;
use crate::domain::{Status, Transition, Verification, format_ts, webhook_event_type};
use crate::dynamo::schema;
use crate::portal::esc;
use crate::ports::{Clock, Email, MailError, Mailer, Queue, Store, StoreError, TransitionOutcome};
use crate::secrets::generate_link_token;

/// What `publish-events` needs.
pub struct OutboxDeps<S, M, Q, C> {
    pub store: S,
    pub mailer: M,
    pub queue: Q,
    pub clock: C,
    /// Base URL of the tenant page (links are `{base}/t/{id}/{token}`).
    pub public_base_url: String,
}

/// A webhook waiting for delivery, as it travels on SQS. The body is fixed here so every attempt
/// sends the same bytes under the same `webhook-id`; only the timestamp and signature are per attempt.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookMessage {
    pub webhook_id: String,
    pub account_id: String,
    pub url: String,
    pub body: String,
}

#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("mail: {0}")]
    Mail(MailError),
    #[error("unreadable stream record: {0}")]
    Record(String),
}

/// When the verification reached its current status (the webhook's `timestamp`).
fn changed_at(v: &Verification) -> DateTime<Utc> {
    match v.status {
        Status::Pending => v.created_at,
        Status::InProgress => v.started_at.unwrap_or(v.created_at),
        Status::Completed => v.completed_at.unwrap_or(v.created_at),
        Status::Failed => v.failed_at.unwrap_or(v.created_at),
        Status::Expired => v.cancelled_at.or(v.expired_at).unwrap_or(v.expires_at),
    }
}

/// The webhook for a verification that just reached its status, if it has a `webhook_url`.
/// Deterministic: a duplicate stream record produces the same message and `webhook-id`.
pub fn webhook_message(v: &Verification) -> Option<WebhookMessage> {
    let url = v.webhook_url.clone()?;
    let kind = webhook_event_type(v)?;
    let at = changed_at(v);
    let body = serde_json::json!({
        "type": kind,
        "timestamp": format_ts(at),
        "data": render_verification(v, at),
    });
    Some(WebhookMessage {
        webhook_id: format!(
            "msg_{}_{}",
            v.verification_id.simple(),
            kind.trim_start_matches("verification.")
        ),
        account_id: v.account_id.clone(),
        url,
        body: body.to_string(),
    })
}

/// The tenant e-mail: who asks, for which property, the link and its expiry; text and HTML.
pub fn tenant_email(v: &Verification, requester: &str, link: &str) -> Email {
    let property = v
        .property_address
        .as_deref()
        .map(|a| format!(" for {a}"))
        .unwrap_or_default();
    let expires = format!("{} UTC", &format_ts(v.expires_at)[..16].replace('T', " "));
    let greeting = v
        .tenant_name
        .as_deref()
        .map(|n| format!("Hello {n},"))
        .unwrap_or_else(|| "Hello,".into());
    let text = format!(
        "{greeting}\n\n{requester} asks you to verify your income{property}.\n\n\
         Open this secure link to consent and connect your income source:\n{link}\n\n\
         The link expires on {expires}. If you did not expect this request, you can ignore this e-mail.\n"
    );
    let html = format!(
        r#"<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>{greeting}</p>
<p><strong>{requester}</strong> asks you to verify your income{property}.</p>
<p><a href="{link}" style="display:inline-block;padding:12px 20px;background:#1f5eff;color:#fff;text-decoration:none;border-radius:6px">Verify my income</a></p>
<p>Or copy this link into your browser:<br>{link}</p>
<p>The link expires on {expires}. If you did not expect this request, you can ignore this e-mail.</p>
</body></html>"#,
        greeting = esc(&greeting),
        requester = esc(requester),
        property = esc(&property),
        link = esc(link),
        expires = esc(&expires),
    );
    Email {
        to: v.tenant_email.clone(),
        subject: format!("{requester} asks you to verify your income"),
        text,
        html,
    }
}

fn image(item: &serde_dynamo::Item) -> Result<Option<Verification>, OutboxError> {
    let is_verification = matches!(
        item.get(schema::SK),
        Some(serde_dynamo::AttributeValue::S(sk)) if sk == schema::VERIFICATION_SK
    );
    if !is_verification {
        return Ok(None);
    }
    serde_dynamo::from_item(item.clone())
        .map(Some)
        .map_err(|e| OutboxError::Record(e.to_string()))
}

/// Sends the tenant e-mail of a new verification, once.
async fn send_tenant_email<S: Store, M: Mailer, Q, C: Clock>(
    deps: &OutboxDeps<S, M, Q, C>,
    id: Uuid,
) -> Result<(), OutboxError> {
    let now = deps.clock.now();
    // The stream image may be stale: a verification cancelled meanwhile needs no e-mail.
    let Some(v) = deps.store.get_verification(id).await? else {
        return Ok(());
    };
    if v.effective_status(now) != Status::Pending {
        tracing::info!(verification_id = %id, "verification no longer pending; no e-mail");
        return Ok(());
    }
    if !deps.store.claim_email_send(id, now).await? {
        tracing::info!(verification_id = %id, "tenant e-mail already sent");
        return Ok(());
    }
    let requester = deps
        .store
        .get_account(&v.account_id)
        .await?
        .map_or_else(|| "A landlord".to_string(), |a| a.name);
    // The link token is minted here, bound by its hash, and exists only in the e-mail.
    let (token, token_hash) = generate_link_token();
    deps.store.add_link_token(id, &token_hash).await?;
    let link = format!(
        "{}/t/{id}/{token}",
        deps.public_base_url.trim_end_matches('/')
    );
    match deps.mailer.send(&tenant_email(&v, &requester, &link)).await {
        Ok(()) => {
            deps.store.mark_email_sent(id, now).await?;
            tracing::info!(verification_id = %id, "tenant e-mail sent");
            Ok(())
        }
        Err(MailError::Transient(reason)) => {
            deps.store.release_email_send(id).await?;
            tracing::warn!(verification_id = %id, reason = %reason, "tenant e-mail failed; will retry");
            Err(OutboxError::Mail(MailError::Transient(reason)))
        }
        Err(MailError::Permanent(reason)) => {
            deps.store.mark_email_sent(id, now).await?;
            tracing::warn!(verification_id = %id, reason = %reason, "tenant e-mail rejected; verification fails");
            let fail = Transition::Fail {
                reason: "email_rejected".into(),
            };
            if let TransitionOutcome::Conflict(_) = deps.store.transition(&v, &fail, now).await? {
                tracing::info!(verification_id = %id, "verification changed meanwhile; not marked failed");
            }
            Ok(())
        }
    }
}

async fn process<S: Store, M: Mailer, Q: Queue, C: Clock>(
    deps: &OutboxDeps<S, M, Q, C>,
    record: &EventRecord,
) -> Result<(), OutboxError> {
    match record.event_name.as_str() {
        "INSERT" => {
            if let Some(v) = image(&record.change.new_image)? {
                send_tenant_email(deps, v.verification_id).await?;
            }
        }
        "MODIFY" => {
            let (Some(old), Some(new)) = (
                image(&record.change.old_image)?,
                image(&record.change.new_image)?,
            ) else {
                return Ok(());
            };
            if old.status == new.status {
                return Ok(());
            }
            if let Some(message) = webhook_message(&new) {
                let body = serde_json::to_string(&message)
                    .map_err(|e| OutboxError::Record(e.to_string()))?;
                deps.queue.send(&body).await?;
                tracing::info!(verification_id = %new.verification_id, webhook_id = %message.webhook_id, "webhook queued");
            }
        }
        _ => {}
    }
    Ok(())
}

/// Handles one batch of stream records, in order. On the first failure it reports that record,
/// so Lambda retries from there (records after it are delivered again, and are idempotent).
pub async fn publish_events<S: Store, M: Mailer, Q: Queue, C: Clock>(
    deps: &OutboxDeps<S, M, Q, C>,
    event: Event,
) -> DynamoDbEventResponse {
    let mut response = DynamoDbEventResponse::default();
    for record in &event.records {
        if let Err(e) = process(deps, record).await {
            tracing::error!(error = %e, event_id = %record.event_id, "stream record failed");
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = record.change.sequence_number.clone();
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}
