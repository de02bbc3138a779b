//! The outbox's part of a resend: the verification's MODIFY that bumped `invite_round` becomes a
//! new invite e-mail with a new link (the round's own send claim, so a redelivered stream record or
//! a retry sends each round once; earlier links stay bound), then a `verification.resent` webhook.
//! Test mode follows `TEST_MODE_DELIVERY` like the first invite (the webhook still goes out).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::config::TestModeDelivery;
use crate::domain::public_view::render_verification;
use crate::domain::secrets::generate_link_token;
use crate::domain::tenant_link::tenant_link;
use crate::domain::webhook::WebhookMessage;
use crate::domain::{Mode, Verification, format_ts, resend};
use crate::handlers::publish_events::{
    OutboxDeps, OutboxError, RetryWork, enqueue_webhook, tenant_email,
};
use crate::ports::{Clock, EmailClaim, EmailStart, MailError, Mailer, Queue, Store};

/// The event type sent once a resent invite went out.
pub const RESENT_EVENT: &str = "verification.resent";

/// The work a verification's change asks for when it is a resend (its round went up).
pub(crate) fn resend_work(old: &Verification, new: &Verification) -> Option<RetryWork> {
    (new.invite_round > old.invite_round).then(|| RetryWork::ResendInvite {
        verification_id: new.verification_id,
        round: new.invite_round,
        resent_at: new.last_resent_at.unwrap_or(new.created_at),
    })
}

/// The `verification.resent` webhook of round `round` (deterministic: a retry sends the same id
/// and body).
pub fn resent_webhook_message(
    v: &Verification,
    round: u32,
    resent_at: DateTime<Utc>,
) -> Option<WebhookMessage> {
    let url = v.webhook_url.clone()?;
    let body = serde_json::json!({
        "type": RESENT_EVENT,
        "timestamp": format_ts(resent_at),
        "data": render_verification(v, resent_at),
    });
    Some(WebhookMessage {
        webhook_id: format!("msg_{}_resent_{round}", v.verification_id.simple()),
        account_id: v.account_id.clone(),
        url,
        body: body.to_string(),
    })
}

/// Sends round `round`'s invite once, then queues its webhook. `Ok` when both are done or not
/// needed (the verification closed, SES refused the address for good); an error otherwise, so
/// the caller retries (the claim keeps the e-mail from going out twice).
pub(crate) async fn send_resent_invite<S: Store, M: Mailer, Q: Queue, C: Clock>(
    deps: &OutboxDeps<S, M, Q, C>,
    id: Uuid,
    round: u32,
    resent_at: DateTime<Utc>,
) -> Result<(), OutboxError> {
    let now = deps.clock.now();
    let Some(v) = deps.store.get_verification(id).await? else {
        return Ok(());
    };
    if !resend::resendable(&v, now) {
        tracing::info!(verification_id = %id, round, "verification closed; resent invite not sent");
        return Ok(());
    }
    let suppressed = v.mode == Mode::Test && deps.test_mode_delivery == TestModeDelivery::Suppress;
    if suppressed {
        tracing::info!(verification_id = %id, round, "test mode: resent invite suppressed");
    } else if !send_round(deps, &v, round, now).await? {
        return Ok(());
    }
    if let Some(message) = resent_webhook_message(&v, round, resent_at) {
        enqueue_webhook(deps, &message).await?;
    }
    Ok(())
}

/// The round's e-mail; Ok(true) when it went out (now or before), Ok(false) when it never will.
async fn send_round<S: Store, M: Mailer, Q: Queue, C: Clock>(
    deps: &OutboxDeps<S, M, Q, C>,
    v: &Verification,
    round: u32,
    now: DateTime<Utc>,
) -> Result<bool, OutboxError> {
    let id = v.verification_id;
    let (token, token_hash) = generate_link_token();
    let (start, account) = tokio::join!(
        deps.store
            .claim_invite_and_bind(id, round, &token_hash, now),
        deps.store.get_account(&v.account_id),
    );
    match start? {
        EmailStart::Claimed => {}
        EmailStart::NotPending => return Ok(false),
        EmailStart::Refused(EmailClaim::Sent) => return Ok(true),
        EmailStart::Refused(EmailClaim::Rejected(_)) => return Ok(false),
        EmailStart::Refused(EmailClaim::Held | EmailClaim::Claimed) => {
            return Err(OutboxError::Held);
        }
    }
    let requester = account?.map_or_else(|| "A landlord".to_string(), |a| a.name);
    let link = tenant_link(&deps.public_base_url, id, &token);
    match deps.mailer.send(&tenant_email(v, &requester, &link)).await {
        Ok(()) => {
            if let Err(e) = deps.store.mark_invite_sent(id, round, now).await {
                tracing::error!(verification_id = %id, round, error = %e, "resent invite sent but not marked sent");
            }
            tracing::info!(verification_id = %id, round, "resent invite sent");
            Ok(true)
        }
        Err(MailError::Permanent(reason)) => {
            // The same address as the first invite: the verification's own fate is the first
            // e-mail's; this round is just not sent again.
            tracing::warn!(verification_id = %id, round, reason = %reason, "resent invite rejected");
            deps.store
                .mark_invite_rejected(id, round, "email_rejected")
                .await?;
            Ok(false)
        }
        Err(e) => {
            if let Err(release) = deps.store.release_invite(id, round).await {
                tracing::warn!(verification_id = %id, error = %release, "invite claim not released; it expires");
            }
            Err(OutboxError::Mail(e))
        }
    }
}
