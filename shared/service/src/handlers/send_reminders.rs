//! `send-reminders`: invoked by a one-time EventBridge Scheduler schedule at a reminder point
//! (72 h and 24 h before `expires_at`). Sends the reminder e-mail (and SMS, when the tenant has a
//! usable number) only while the verification is pending or in progress and not expired: every
//! message is claimed first with one transaction on its claim item and the verification (status
//! open, not expired, not sent yet, no live lease of another attempt). A send that fails gives its claim
//! back and the invocation fails, so Lambda's asynchronous retry sends it again; a crashed
//! attempt's lease runs out and the retry takes it over. A redelivered invocation finds the
//! messages sent and sends nothing.
//!
//! A sent e-mail's `verification.reminder_sent` webhook is stored (for redelivery) before it is
//! queued, like every webhook; a retry queues it again under the same `webhook-id`. So that no
//! webhook is lost, an e-mail claim held by another attempt is not success: that attempt may have
//! sent the e-mail and failed to mark it and to queue the webhook (its own failed invocation,
//! retried within the lease). If the webhook's event is stored, the e-mail went out and this
//! attempt marks it and queues the webhook; otherwise it fails, and Lambda retries after the lease.
//! The mark itself is retried a few times inline, as an unmarked e-mail may go out again once its
//! lease runs out. A held SMS claim is not success either: the invocation fails and is retried
//! after the lease (the SMS then finds itself sent, or goes out).

use chrono::Duration;
use uuid::Uuid;

use crate::config::{SmsBounds, TestModeDelivery};
use crate::handlers::html::esc;
use crate::handlers::notices::{
    ReachError, Texting, mark_sent, release, requester, send_sms_notice,
};
use crate::handlers::reach_events::ReminderPayload;
use crate::handlers::webhook_archive::archive_and_queue;
use domain::public_view::render_verification;
use domain::reach::{Message, ReminderPoint, expiry_phrase, property_phrase, reminder_sms_text};
use domain::secrets::generate_link_token;
use domain::tenant_link::tenant_link;
use domain::webhook::WebhookMessage;
use domain::{Verification, format_ts};
use ports::{
    AccountStore, ClaimStart, Clock, Email, MailError, Mailer, MessageClaim, MessageClaimStore,
    Queue, Texter, VerificationStore, WebhookHistoryStore,
};

/// What `send-reminders` needs.
pub struct ReachDeps<S, M, T, Q, C> {
    pub store: S,
    pub mailer: M,
    pub texter: T,
    /// The webhook queue (`verification.reminder_sent`).
    pub queue: Q,
    pub clock: C,
    /// Base URL of the tenant page (links are `{base}/t/{id}/{token}`).
    pub public_base_url: String,
    /// Test-mode verifications reach nobody in a deployed stack (as their e-mail).
    pub test_mode_delivery: TestModeDelivery,
    /// The reminder points, as durations before `expires_at` (a schedule names its point's label).
    pub reminder_offsets: Vec<Duration>,
    /// The countries texts may go to, and the plans' monthly SMS allowances.
    pub sms: SmsBounds,
}

impl<S, M, T, Q, C> ReachDeps<S, M, T, Q, C> {
    /// Whether messages of `v` go out at all (test mode is suppressed in a deployed stack).
    pub fn delivers(&self, v: &Verification) -> bool {
        self.test_mode_delivery.delivers(v.mode)
    }

    /// What an SMS notice takes from these deps.
    pub fn texting(&self) -> Texting<'_, S, T, C> {
        Texting {
            store: &self.store,
            texter: &self.texter,
            clock: &self.clock,
            public_base_url: &self.public_base_url,
            test_mode_delivery: self.test_mode_delivery,
            sms: &self.sms,
        }
    }
}

/// The webhook event type of a sent reminder.
pub const REMINDER_SENT: &str = "verification.reminder_sent";

/// A reminder e-mail, text and HTML: the landlord, the property, the link and its expiry.
pub fn reminder_email(v: &Verification, requester: &str, link: &str) -> Email {
    let property = property_phrase(v);
    let expires = expiry_phrase(v);
    let text = format!(
        "Hello,\n\nA reminder: {requester} asks you to verify your income{property}.\n\n\
         Open this secure link to finish:\n{link}\n\n\
         The link expires on {expires}. After that, ask {requester} for a new link.\n"
    );
    let html = format!(
        r#"<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>Hello,</p>
<p>A reminder: <strong>{requester}</strong> asks you to verify your income{property}.</p>
<p><a href="{link}" style="display:inline-block;padding:12px 20px;background:#1f5eff;color:#fff;text-decoration:none;border-radius:6px">Verify my income</a></p>
<p>Or copy this link into your browser:<br>{link}</p>
<p>The link expires on {expires}. After that, ask {requester} for a new link.</p>
</body></html>"#,
        requester = esc(requester),
        property = esc(&property),
        link = esc(link),
        expires = esc(&expires),
    );
    Email {
        to: v.tenant_email.clone(),
        subject: format!("Reminder: {requester} asks you to verify your income"),
        text,
        html,
    }
}

/// The `verification.reminder_sent` webhook of `point`, if `v` has a `webhook_url`.
/// Deterministic (id and timestamp from the verification and the point), so a retry sends the
/// same `webhook-id` and the receiver deduplicates.
pub fn reminder_webhook(v: &Verification, point: ReminderPoint) -> Option<WebhookMessage> {
    let url = v.webhook_url.clone()?;
    let at = point.due_at(v);
    let body = serde_json::json!({
        "type": REMINDER_SENT,
        "timestamp": format_ts(at),
        "reminder": point.label(),
        "data": render_verification(v, at),
    });
    Some(WebhookMessage {
        webhook_id: format!(
            "msg_{}_reminder_sent_{}",
            v.verification_id.simple(),
            point.label()
        ),
        account_id: v.account_id.clone(),
        url,
        body: body.to_string(),
    })
}

/// Sends the reminder e-mail of `point` once; then its webhook (again on a retry: same id).
async fn send_reminder_email<S, M, T, Q, C>(
    deps: &ReachDeps<S, M, T, Q, C>,
    v: &Verification,
    point: ReminderPoint,
    name: &str,
) -> Result<(), ReachError>
where
    S: MessageClaimStore + WebhookHistoryStore,
    M: Mailer,
    Q: Queue,
    C: Clock,
{
    let id = v.verification_id;
    let message = Message::ReminderEmail(point.label());
    let now = deps.clock.now();
    let (token, token_hash) = generate_link_token();
    let webhook = reminder_webhook(v, point);
    match deps
        .store
        .claim_message(id, &message, &token_hash, now)
        .await?
    {
        ClaimStart::Claimed => {
            let link = tenant_link(&deps.public_base_url, id, &token);
            match deps.mailer.send(&reminder_email(v, name, &link)).await {
                Ok(()) => {}
                Err(MailError::Permanent(reason)) => {
                    tracing::warn!(verification_id = %id, reason = %reason, "reminder e-mail rejected; not retried");
                    deps.store
                        .mark_message_rejected(id, &message, "email_rejected")
                        .await?;
                    return Ok(());
                }
                Err(e) => {
                    release(&deps.store, id, &message).await;
                    tracing::warn!(verification_id = %id, error = %e, "reminder e-mail not sent; will retry");
                    return Err(ReachError::Mail(e));
                }
            }
            // Unmarked, the webhook still goes out below; a retry that finds the claim held
            // finishes the mark once it sees the stored event.
            if let Err(e) = mark_sent(&deps.store, &deps.clock, id, &message).await {
                tracing::error!(verification_id = %id, error = %e, "reminder e-mail sent but not marked sent");
            }
            tracing::info!(verification_id = %id, reminder = %point.label(), "reminder e-mail sent");
        }
        // Sent by an earlier attempt whose webhook may not have been queued: queue it again.
        ClaimStart::Refused(MessageClaim::Sent) => {}
        ClaimStart::Refused(MessageClaim::Held | MessageClaim::Claimed) => {
            // The event is stored only after the e-mail went out: then the holder sent it.
            let sent_by_holder = match &webhook {
                Some(message) => deps
                    .store
                    .get_webhook_event(&message.webhook_id)
                    .await?
                    .is_some(),
                None => false,
            };
            if !sent_by_holder {
                tracing::info!(verification_id = %id, reminder = %point.label(), "reminder e-mail held by another attempt; retried after its lease");
                return Err(ReachError::Held);
            }
            if let Err(e) = mark_sent(&deps.store, &deps.clock, id, &message).await {
                tracing::error!(verification_id = %id, error = %e, "sent reminder e-mail not marked sent");
            }
        }
        ClaimStart::Refused(MessageClaim::Rejected(_)) => {
            tracing::info!(verification_id = %id, reminder = %point.label(), "reminder e-mail rejected before; not sent again");
            return Ok(());
        }
        ClaimStart::Closed => {
            tracing::info!(verification_id = %id, reminder = %point.label(), "verification closed; no reminder e-mail");
            return Ok(());
        }
    }
    // Stored before it is queued, as every webhook, so the API can redeliver it; a failure of
    // either fails the invocation, whose retry finds the e-mail sent and queues it then.
    if let Some(message) = webhook {
        archive_and_queue(&deps.store, &deps.queue, &deps.clock, &message).await?;
    }
    Ok(())
}

/// Handles one schedule invocation. `Ok` when everything due went out, was sent before, or is no
/// longer wanted; `Err` (the invocation is retried) when a send worth retrying failed.
pub async fn send_reminders<S, M, T, Q, C>(
    deps: &ReachDeps<S, M, T, Q, C>,
    payload: ReminderPayload,
) -> Result<(), ReachError>
where
    S: AccountStore + VerificationStore + MessageClaimStore + WebhookHistoryStore,
    M: Mailer,
    T: Texter,
    Q: Queue,
    C: Clock,
{
    let id: Uuid = payload.verification_id;
    let Some(point) = ReminderPoint::from_label(&payload.reminder, &deps.reminder_offsets) else {
        // Retrying would not make it known (the offsets changed since it was scheduled).
        tracing::error!(verification_id = %id, reminder = %payload.reminder, "unknown reminder point; nothing sent");
        return Ok(());
    };
    let Some(v) = deps.store.get_verification(id).await? else {
        tracing::info!(verification_id = %id, "no such verification; no reminder");
        return Ok(());
    };
    let now = deps.clock.now();
    if !v.effective_status(now).is_open() || v.reminders_off || !deps.delivers(&v) {
        tracing::info!(verification_id = %id, status = %v.effective_status(now).as_str(), "no reminder for this verification");
        return Ok(());
    }
    let requester = requester(&deps.store, &v).await?;
    let name = &requester.name;
    let email = Box::pin(send_reminder_email(deps, &v, point, name)).await;
    let sms = send_sms_notice(
        deps.texting(),
        (&v, &requester),
        &Message::ReminderSms(point.label()),
        |link| reminder_sms_text(&v, name, link),
    )
    .await;
    email.and(sms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use domain::{Mode, NewVerificationInput};

    #[test]
    fn the_reminder_email_names_the_landlord_the_property_and_the_expiry_only() {
        let created: DateTime<Utc> = "2026-11-20T10:00:00Z".parse().unwrap();
        let v = Verification::new_pending(
            "acct",
            Mode::Live,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                tenant_name: Some("Tess Tenant".into()),
                property_address: Some("12 Elm St".into()),
                monthly_rent: Some(1500.0),
                ..Default::default()
            },
            created,
            domain::VERIFICATION_LIFETIME,
        );
        let link = "https://verify.example.com/t/x/y";
        let email = reminder_email(&v, "Acme <Rentals>", link);
        assert!(email.subject.starts_with("Reminder: Acme <Rentals>"));
        assert!(email.text.contains("12 Elm St") && email.text.contains(link));
        assert!(email.text.contains("2026-11-27 10:00 UTC"));
        assert!(email.text.contains("ask Acme <Rentals> for a new link"));
        assert!(email.html.contains("Acme &lt;Rentals&gt;"));
        for private in ["Tess", "1500"] {
            assert!(!email.text.contains(private) && !email.html.contains(private));
        }
    }
}
