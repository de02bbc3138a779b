//! `publish-events`: the table's stream is the outbox. A new verification sends the tenant e-mail,
//! texts the invite SMS (a usable number) and creates its reminder schedules; a status change of
//! a verification with a `webhook_url` puts a webhook message on SQS; a resend sends the round's
//! e-mail and SMS (`outbox_work` lists every piece). A crash between a write and its follow-up
//! loses nothing: the stream record is delivered again.
//!
//! Every piece that fails (SES, SNS, the scheduler or SQS down, a DynamoDB hiccup, another attempt
//! holding the e-mail lease) is handed to the durable retry queue on its own and the record is
//! acknowledged, so one outage neither exhausts the stream's retries within minutes nor holds the
//! shard's later records, and the record's other pieces are not done again: `retry-events` redoes
//! the failed piece with a growing back-off for two days (see `retry_events`). Only when even that
//! hand-off fails is the record reported failed, and the stream retries it for as long as it
//! keeps it.

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use crate::config::TestModeDelivery;
use crate::domain::public_view::render_verification;
use crate::domain::secrets::generate_link_token;
use crate::domain::tenant_link::tenant_link;
use crate::domain::webhook::WebhookMessage;
use crate::domain::{Status, Transition, Verification, format_ts, webhook_event_type};
use crate::handlers::html::esc;
use crate::handlers::notices::{ReachError, Texting};
use crate::handlers::outbox_work::{do_piece, hand_off, work_of};
use crate::handlers::webhook_archive;
use crate::ports::{
    Clock, Email, EmailClaim, EmailStart, MailError, Mailer, NoticeStore, Queue, Scheduler, Store,
    StoreError, Texter, TransitionOutcome,
};

/// What `publish-events` and `retry-events` need.
pub struct OutboxDeps<S, M, T, R, Q, C> {
    pub store: S,
    pub mailer: M,
    /// The invite SMS, and a resent round's.
    pub texter: T,
    /// A new verification's reminder schedules.
    pub scheduler: R,
    /// The webhook queue.
    pub queue: Q,
    /// The durable retry queue (work that failed, redone by `retry-events`).
    pub retry_queue: Q,
    pub clock: C,
    /// Base URL of the tenant page (links are `{base}/t/{id}/{token}`).
    pub public_base_url: String,
    /// Whether test-mode verifications reach the tenant (suppressed in a deployed stack).
    pub test_mode_delivery: TestModeDelivery,
    /// The reminder points, as durations before `expires_at` (at most two are used).
    pub reminder_offsets: Vec<Duration>,
    /// `retry-events`' delay before each further attempt (seconds; the last value repeats).
    pub retry_backoff: Vec<u32>,
}

impl<S, M, T, R, Q, C> OutboxDeps<S, M, T, R, Q, C> {
    /// What an SMS notice takes from these deps.
    pub fn texting(&self) -> Texting<'_, S, T, C> {
        Texting {
            store: &self.store,
            texter: &self.texter,
            clock: &self.clock,
            public_base_url: &self.public_base_url,
            test_mode_delivery: self.test_mode_delivery,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("mail: {0}")]
    Mail(MailError),
    #[error("tenant e-mail claimed by another attempt that has not finished")]
    Held,
    #[error("unreadable stream record: {0}")]
    Record(String),
    /// An SMS or a reminder schedule.
    #[error(transparent)]
    Reach(#[from] ReachError),
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
    // Generic: the messages name the landlord and the property, nothing of the tenant.
    let greeting = "Hello,";
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

/// Fails a verification after its e-mail could not be delivered; a verification changed meanwhile
/// (cancelled, started) stays as it is.
pub(crate) async fn fail_after_email<S: Store, M, T, R, Q, C: Clock>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    v: &Verification,
    transition: Transition,
) -> Result<(), OutboxError> {
    let id = v.verification_id;
    if let TransitionOutcome::Conflict(_) = deps
        .store
        .transition(v, &transition, deps.clock.now())
        .await?
    {
        tracing::info!(verification_id = %id, "verification changed meanwhile; not marked failed");
    }
    Ok(())
}

/// Sends the tenant e-mail of verification `id` (a retry: the work names only the id, so the
/// verification is read first).
pub async fn send_tenant_email<S: Store, M: Mailer, T, R, Q, C: Clock>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    id: Uuid,
) -> Result<(), OutboxError> {
    match deps.store.get_verification(id).await? {
        Some(v) => send_tenant_email_of(deps, &v).await,
        None => Ok(()),
    }
}

/// Sends the tenant e-mail of `v`, once. `v` may be stale (the stream's INSERT image): only its
/// fixed fields are used (addressee, names, expiry, mode, account), and the claim's write checks
/// the stored status. `Ok` only when the e-mail went out, was sent before, is not needed (no
/// longer pending, test mode suppressed) or the verification ended `failed`; every other outcome
/// is an error, so the caller retries.
///
/// Two sequential DynamoDB round trips: the claim-and-bind write beside the account read (in
/// parallel), then SES, then the mark-sent write.
pub async fn send_tenant_email_of<S: Store, M: Mailer, T, R, Q, C: Clock>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    v: &Verification,
) -> Result<(), OutboxError> {
    let now = deps.clock.now();
    let id = v.verification_id;
    if v.effective_status(now) != Status::Pending {
        tracing::info!(verification_id = %id, "verification no longer pending; no e-mail");
        return Ok(());
    }
    if !deps.test_mode_delivery.delivers(v.mode) {
        tracing::info!(verification_id = %id, "test mode: tenant e-mail suppressed (the landlord opens verification_url)");
        return Ok(());
    }
    // The link token is minted here, bound by its hash with the claim, and exists only in the
    // e-mail.
    let (token, token_hash) = generate_link_token();
    let (start, account) = tokio::join!(
        deps.store.claim_email_and_bind(id, &token_hash, now),
        deps.store.get_account(&v.account_id),
    );
    match start? {
        EmailStart::Claimed => {}
        EmailStart::NotPending => {
            tracing::info!(verification_id = %id, "verification no longer pending; no e-mail");
            return Ok(());
        }
        EmailStart::Refused(EmailClaim::Sent) => {
            tracing::info!(verification_id = %id, "tenant e-mail already sent");
            return Ok(());
        }
        // SES refused it for good earlier and the `failed` transition did not happen yet (the
        // verification is still pending, or the write would have answered `NotPending`).
        EmailStart::Refused(EmailClaim::Rejected(reason)) => {
            return fail_after_email(deps, v, Transition::Fail { reason }).await;
        }
        EmailStart::Refused(EmailClaim::Held | EmailClaim::Claimed) => {
            return Err(OutboxError::Held);
        }
    }
    let sent = match account {
        Ok(account) => {
            let requester = account.map_or_else(|| "A landlord".to_string(), |a| a.name);
            let link = tenant_link(&deps.public_base_url, id, &token);
            deps.mailer
                .send(&tenant_email(v, &requester, &link))
                .await
                .map_err(OutboxError::Mail)
        }
        Err(e) => Err(OutboxError::Store(e)),
    };
    match sent {
        Ok(()) => {
            // SES has the e-mail: a failed mark is logged, not retried (a retry would send it
            // again once the lease ran out).
            match deps.store.mark_email_sent(id, now).await {
                Ok(()) => tracing::info!(verification_id = %id, "tenant e-mail sent"),
                Err(e) => {
                    tracing::error!(verification_id = %id, error = %e, "tenant e-mail sent but not marked sent")
                }
            }
            Ok(())
        }
        Err(OutboxError::Mail(MailError::Permanent(reason))) => {
            tracing::warn!(verification_id = %id, reason = %reason, "tenant e-mail rejected; verification fails");
            // Durable first: a crash before the transition is finished by the retry.
            let reason = "email_rejected".to_string();
            deps.store.mark_email_rejected(id, &reason).await?;
            fail_after_email(deps, v, Transition::Fail { reason }).await
        }
        Err(e) => {
            if let OutboxError::Mail(MailError::Operator(kind)) = &e {
                // `alarm` feeds the SesOperatorErrors metric filter of template.yaml.
                tracing::error!(verification_id = %id, alarm = "ses_operator_error", reason = %kind, "SES refused the tenant e-mail because of the service's own set-up; will retry");
            } else {
                tracing::warn!(verification_id = %id, error = %e, "tenant e-mail not sent; will retry");
            }
            // Give the claim back so the retry can send at once; if that fails too, the lease
            // runs out and the retry (which sees `Held` until then) sends after it.
            if let Err(release) = deps.store.release_email_send(id).await {
                tracing::warn!(verification_id = %id, error = %release, "e-mail claim not released; it expires");
            }
            Err(e)
        }
    }
}

/// Puts a webhook message on the webhook queue, once its event is stored for redelivery.
pub(crate) async fn enqueue_webhook<S: Store, M, T, R, Q: Queue, C: Clock>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    message: &WebhookMessage,
) -> Result<(), OutboxError> {
    webhook_archive::archive_and_queue(&deps.store, &deps.queue, &deps.clock, message).await?;
    Ok(())
}

/// Handles one batch of stream records, in order. Each failed piece of a record's work goes to the
/// retry queue on its own (the pieces that succeeded are done for good); a record whose hand-off
/// fails is reported, so Lambda retries from there (that record and the ones after it, not the
/// ones before; every piece is idempotent).
pub async fn publish_events<S, M, T, R, Q, C>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    event: Event,
) -> DynamoDbEventResponse
where
    S: Store + NoticeStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
{
    let mut response = DynamoDbEventResponse::default();
    for record in &event.records {
        let pieces = match work_of(record) {
            Ok(found) => found,
            Err(e) => {
                // It will not become readable by retrying, and holding it would stop the shard.
                tracing::error!(error = %e, event_id = %record.event_id, alarm = "outbox_work_dropped", "unreadable stream record skipped");
                continue;
            }
        };
        let mut handed_off = true;
        for piece in pieces {
            let Err(e) = do_piece(deps, &piece).await else {
                continue;
            };
            let kind = piece.0.kind();
            match hand_off(deps, piece.0).await {
                Ok(()) => {
                    tracing::warn!(error = %e, kind, event_id = %record.event_id, "stream record's work failed; handed to the retry queue")
                }
                Err(hand_off_error) => {
                    tracing::error!(error = %e, kind, hand_off_error = %hand_off_error, event_id = %record.event_id, "stream record failed and could not be handed off; the stream retries it");
                    handed_off = false;
                    break;
                }
            }
        }
        if !handed_off {
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = record.change.sequence_number.clone();
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}
