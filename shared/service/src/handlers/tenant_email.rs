//! The tenant e-mail, a piece of the outbox's work (`outbox_work`): the invite e-mail of a new
//! verification, sent once through its message claim (`MessageClaimStore`), and the `failed`
//! transition when SES refuses the address for good.

use uuid::Uuid;

use crate::handlers::html::esc;
use crate::handlers::notices::{release, requester};
use crate::handlers::outbox::{OutboxDeps, OutboxError};
use domain::reach::Message;
use domain::secrets::generate_link_token;
use domain::tenant_link::tenant_link;
use domain::{Status, Transition, Verification, format_ts};
use ports::{
    AccountStore, ClaimStart, Clock, Email, MailError, Mailer, MessageClaim, MessageClaimStore,
    TransitionOutcome, VerificationStore,
};

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
pub(crate) async fn fail_after_email<S: VerificationStore, M, T, R, Q, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
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
pub async fn send_tenant_email<S, M: Mailer, T, R, Q, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    id: Uuid,
) -> Result<(), OutboxError>
where
    S: AccountStore + VerificationStore + MessageClaimStore,
{
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
pub async fn send_tenant_email_of<S, M: Mailer, T, R, Q, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
) -> Result<(), OutboxError>
where
    S: AccountStore + VerificationStore + MessageClaimStore,
{
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
    let message = Message::InviteEmail(0);
    let (start, requester) = tokio::join!(
        deps.store.claim_message(id, &message, &token_hash, now),
        requester(&deps.store, v),
    );
    match start? {
        ClaimStart::Claimed => {}
        ClaimStart::Closed => {
            tracing::info!(verification_id = %id, "verification no longer pending; no e-mail");
            return Ok(());
        }
        ClaimStart::Refused(MessageClaim::Sent) => {
            tracing::info!(verification_id = %id, "tenant e-mail already sent");
            return Ok(());
        }
        // SES refused it for good earlier and the `failed` transition did not happen yet (the
        // verification is still pending, or the write would have answered `Closed`).
        ClaimStart::Refused(MessageClaim::Rejected(reason)) => {
            return fail_after_email(deps, v, Transition::Fail { reason }).await;
        }
        ClaimStart::Refused(MessageClaim::Held | MessageClaim::Claimed) => {
            return Err(OutboxError::Held);
        }
    }
    let sent = match requester {
        Ok(requester) => {
            let link = tenant_link(&deps.public_base_url, id, &token);
            deps.mailer
                .send(&tenant_email(v, &requester.name, &link))
                .await
                .map_err(OutboxError::Mail)
        }
        Err(e) => Err(OutboxError::Store(e)),
    };
    match sent {
        Ok(()) => {
            // SES has the e-mail: a failed mark is logged, not retried (a retry would send it
            // again once the lease ran out).
            match deps.store.mark_message_sent(id, &message, now).await {
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
            deps.store
                .mark_message_rejected(id, &message, &reason)
                .await?;
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
            release(&deps.store, id, &message).await;
            Err(e)
        }
    }
}
