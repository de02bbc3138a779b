//! The outbox's part of a resend: the verification's MODIFY that bumped `invite_round` becomes a
//! new invite e-mail with a new link (the round's own message claim, so a redelivered stream record or
//! a retry sends each round once; earlier links stay bound), then a `verification.resent` webhook.
//! Test mode follows `TEST_MODE_DELIVERY` like the first invite (the webhook still goes out).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::handlers::notices::{release, requester};
use crate::handlers::outbox::{OutboxDeps, OutboxError, RetryWork, enqueue_webhook};
use crate::handlers::tenant_email::tenant_email;
use domain::public_view::render_verification;
use domain::reach::Message;
use domain::secrets::generate_link_token;
use domain::tenant_link::tenant_link;
use domain::webhook::WebhookMessage;
use domain::{Verification, format_ts, resend};
use ports::{
    AccountStore, ClaimStart, Clock, MailError, Mailer, MessageClaim, MessageClaimStore, Queue,
    VerificationStore, WebhookHistoryStore,
};

/// The store roles a resent round calls: the verification and the account, the round's claim,
/// and its webhook's event.
pub(crate) trait ResendStore:
    AccountStore + VerificationStore + MessageClaimStore + WebhookHistoryStore
{
}

impl<T> ResendStore for T where
    T: AccountStore + VerificationStore + MessageClaimStore + WebhookHistoryStore
{
}

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
pub(crate) async fn send_resent_invite<S: ResendStore, M: Mailer, T, R, Q: Queue, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
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
    if !deps.test_mode_delivery.delivers(v.mode) {
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
async fn send_round<S: ResendStore, M: Mailer, T, R, Q: Queue, C: Clock, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
    round: u32,
    now: DateTime<Utc>,
) -> Result<bool, OutboxError> {
    let id = v.verification_id;
    let (token, token_hash) = generate_link_token();
    let message = Message::InviteEmail(round);
    let (start, requester) = tokio::join!(
        deps.store.claim_message(id, &message, &token_hash, now),
        requester(&deps.store, v),
    );
    match start? {
        ClaimStart::Claimed => {}
        ClaimStart::Closed => return Ok(false),
        ClaimStart::Refused(MessageClaim::Sent) => return Ok(true),
        ClaimStart::Refused(MessageClaim::Rejected(_)) => return Ok(false),
        ClaimStart::Refused(MessageClaim::Held | MessageClaim::Claimed) => {
            return Err(OutboxError::Held);
        }
    }
    let requester = requester?;
    let link = tenant_link(&deps.public_base_url, id, &token);
    match deps
        .mailer
        .send(&tenant_email(v, &requester.name, &link))
        .await
    {
        Ok(()) => {
            if let Err(e) = deps.store.mark_message_sent(id, &message, now).await {
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
                .mark_message_rejected(id, &message, "email_rejected")
                .await?;
            Ok(false)
        }
        Err(e) => {
            release(&deps.store, id, &message).await;
            Err(OutboxError::Mail(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::config::TestModeDelivery;
    use domain::Mode;
    use domain::{NewVerificationInput, VERIFICATION_LIFETIME};
    use ports::{Email, StoreError};
    use test_support::{ManualClock, MemoryStore, active_account};

    /// Records the e-mails and queued bodies.
    #[derive(Clone, Default)]
    struct Recorder {
        emails: Arc<Mutex<Vec<Email>>>,
    }

    impl Mailer for Recorder {
        async fn send(&self, email: &Email) -> Result<(), MailError> {
            self.emails.lock().unwrap().push(email.clone());
            Ok(())
        }
    }

    impl Queue for Recorder {
        async fn send(&self, _: &str) -> Result<(), StoreError> {
            Ok(())
        }
        async fn retry_later(&self, _: &str, _: u32) -> Result<(), StoreError> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn the_resent_invite_names_the_landlord_the_property_the_link_and_the_expiry_only() {
        let created: DateTime<Utc> = "2026-11-20T10:00:00Z".parse().unwrap();
        let store = MemoryStore::new();
        let mut account = active_account("acct", "pro", created);
        account.name = "Acme <Rentals>".into();
        store.put_account(&account).await.unwrap();
        let v = Verification::new_pending(
            "acct",
            Mode::Live,
            NewVerificationInput {
                tenant_email: "tess.tenant@example.com".into(),
                tenant_name: Some("Tess Tenant".into()),
                property_address: Some("12 Elm St".into()),
                monthly_rent: Some(1500.0),
                ..Default::default()
            },
            created,
            VERIFICATION_LIFETIME,
        );
        store.create_verification(&v, None, None).await.unwrap();
        let recorder = Recorder::default();
        let deps = OutboxDeps {
            store,
            mailer: recorder.clone(),
            // A resent round's e-mail texts nothing and schedules nothing.
            texter: (),
            scheduler: (),
            queue: recorder.clone(),
            retry_queue: recorder.clone(),
            provider: crate::sandbox::SandboxProvider,
            clock: ManualClock::at(created),
            public_base_url: "https://verify.example.com".into(),
            test_mode_delivery: TestModeDelivery::Suppress,
            reminder_offsets: vec![],
            retry_backoff: vec![60],
            sms: Default::default(),
        };
        send_resent_invite(&deps, v.verification_id, 1, created)
            .await
            .unwrap();
        let emails = recorder.emails.lock().unwrap().clone();
        assert_eq!(emails.len(), 1);
        let email = &emails[0];
        assert_eq!(email.to, "tess.tenant@example.com", "sent to the tenant");
        let link = format!("https://verify.example.com/t/{}/", v.verification_id);
        assert!(email.subject.starts_with("Acme <Rentals> asks you"));
        for body in [&email.text, &email.html] {
            assert!(body.starts_with("Hello,") || body.contains("<p>Hello,</p>"));
            assert!(body.contains("12 Elm St") && body.contains(&link));
            assert!(body.contains("2026-11-27 10:00 UTC"), "the expiry");
        }
        assert!(email.text.contains("Acme <Rentals> asks"));
        assert!(email.html.contains("Acme &lt;Rentals&gt;"));
        // Nothing of the tenant in what is shown: no name, no address, no rent.
        for private in ["Tess", "tess.tenant", "1500"] {
            assert!(!email.subject.contains(private), "{private}");
            assert!(!email.text.contains(private), "{private}");
            assert!(!email.html.contains(private), "{private}");
        }
    }
}
