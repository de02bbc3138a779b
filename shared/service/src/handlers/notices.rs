//! Sending one SMS to the tenant at most once (the invite SMS, a resent round's SMS, a reminder's
//! SMS), and the marks every message's sender shares: used by the outbox (`publish-events`,
//! `retry-events`) and `send-reminders`.
//!
//! A message is claimed first with one transaction on its claim item and the verification
//! (`MessageClaimStore`), which also binds the link the message carries, in place of an earlier
//! attempt's: an attempt that fails and is retried a hundred times leaves both items as large as
//! after the first.

use uuid::Uuid;

use crate::config::{SmsBounds, TestModeDelivery};
use domain::reach::Message;
use domain::secrets::generate_link_token;
use domain::sms::{SMS_COUNTRY_NOT_ALLOWED, sms_allowance, sms_month};
use domain::tenant_link::tenant_link;
use domain::{Mode, Verification};
use ports::{
    AccountStore, ClaimStart, Clock, MailError, MessageClaim, MessageClaimStore, Requester, Sms,
    SmsAllowance, StoreError, TextError, Texter,
};

/// Tries of marking a sent message (an unmarked one may go out again once its lease runs out).
const MARK_ATTEMPTS: u32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("sms: {0}")]
    Text(TextError),
    #[error("mail: {0}")]
    Mail(MailError),
    /// Another attempt holds the message's lease and may not have finished: retried later.
    #[error("message held by another attempt; retried after its lease")]
    Held,
}

/// What sending one SMS notice takes; the outbox's deps and `send-reminders`' both lend it.
pub struct Texting<'a, S, T, C> {
    pub store: &'a S,
    pub texter: &'a T,
    pub clock: &'a C,
    /// Base URL of the tenant page (links are `{base}/t/{id}/{token}`).
    pub public_base_url: &'a str,
    pub test_mode_delivery: TestModeDelivery,
    /// The countries texts may go to, and the plans' monthly SMS allowances.
    pub sms: &'a SmsBounds,
}

/// Who asks the tenant: the landlord's name as the messages show it, and the plan its SMS
/// allowance comes from (an account gone reads "A landlord", with no plan: no SMS).
pub(crate) async fn requester<S: AccountStore>(
    store: &S,
    v: &Verification,
) -> Result<Requester, StoreError> {
    Ok(store
        .get_requester(&v.account_id)
        .await?
        .unwrap_or_else(|| Requester {
            name: "A landlord".to_string(),
            plan: String::new(),
        }))
}

/// Marks a sent message, retrying a failed write a few times (short pauses: a throttled table).
pub(crate) async fn mark_sent<S: MessageClaimStore, C: Clock>(
    store: &S,
    clock: &C,
    id: Uuid,
    notice: &Message,
) -> Result<(), StoreError> {
    let mut attempt = 1;
    loop {
        match store.mark_message_sent(id, notice, clock.now()).await {
            Ok(()) => return Ok(()),
            Err(e) if attempt >= MARK_ATTEMPTS => return Err(e),
            Err(e) => {
                tracing::warn!(verification_id = %id, notice = %notice.key(), attempt, error = %e, "notice not marked sent; trying again");
                tokio::time::sleep(std::time::Duration::from_millis(50 * u64::from(attempt))).await;
                attempt += 1;
            }
        }
    }
}

/// Sends one SMS notice of `v` once; `text` makes the message from the attempt's link. `Ok` when
/// sent, sent before, not needed (no usable number, test mode suppressed, closed) or refused for
/// good (by SNS, by the country list, by the account's monthly allowance); `Err` when worth
/// retrying (the claim is given back first). A claim another attempt holds is not done (that
/// attempt may fail, or its release may have failed): `Held`, retried after the lease. So the SMS
/// goes out once, unless a sender crashed between SNS taking it and its mark.
///
/// A live SMS is counted in its claim's write against the allowance of the requester's plan; a
/// test-mode one (sent only by a local stack) is never counted.
pub async fn send_sms_notice<S, T, C>(
    texting: Texting<'_, S, T, C>,
    (v, requester): (&Verification, &Requester),
    notice: &Message,
    text: impl FnOnce(&str) -> String,
) -> Result<(), ReachError>
where
    S: MessageClaimStore,
    T: Texter,
    C: Clock,
{
    let id = v.verification_id;
    let Some(to) = v.sms_phone.clone() else {
        return Ok(());
    };
    if !texting.test_mode_delivery.delivers(v.mode) {
        tracing::info!(verification_id = %id, notice = %notice.key(), "test mode: SMS suppressed");
        return Ok(());
    }
    let store = texting.store;
    let now = texting.clock.now();
    // The list may have changed since the create accepted the number.
    if !texting.sms.countries.allows(&to) {
        tracing::warn!(verification_id = %id, notice = %notice.key(), "SMS country not allowed; the e-mail still reaches the tenant");
        store
            .refuse_message(id, notice, SMS_COUNTRY_NOT_ALLOWED, now)
            .await?;
        return Ok(());
    }
    let allowance = (v.mode == Mode::Live).then(|| SmsAllowance {
        account_id: v.account_id.clone(),
        month: sms_month(now),
        limit: sms_allowance(texting.sms.plans.get(&requester.plan)),
    });
    let (token, token_hash) = generate_link_token();
    let start = match &allowance {
        Some(a) => (store.claim_counted_sms(id, notice, &token_hash, now, a)).await?,
        None => store.claim_message(id, notice, &token_hash, now).await?,
    };
    match start {
        ClaimStart::Claimed => {}
        ClaimStart::Refused(MessageClaim::Held | MessageClaim::Claimed) => {
            tracing::info!(verification_id = %id, notice = %notice.key(), "SMS held by another attempt; retried after its lease");
            return Err(ReachError::Held);
        }
        other => {
            tracing::info!(verification_id = %id, notice = %notice.key(), claim = ?other, "SMS not sent by this attempt");
            return Ok(());
        }
    }
    let link = tenant_link(texting.public_base_url, id, &token);
    let sms = Sms {
        to,
        text: text(&link),
    };
    match texting.texter.send(&sms).await {
        Ok(()) => {
            // SNS has it: a mark that keeps failing is logged, and the attempt is not failed for
            // it (a retry would text again).
            if let Err(e) = mark_sent(store, texting.clock, id, notice).await {
                tracing::error!(verification_id = %id, notice = %notice.key(), error = %e, "SMS sent but not marked sent");
            } else {
                tracing::info!(verification_id = %id, notice = %notice.key(), "SMS sent");
            }
            Ok(())
        }
        Err(TextError::Permanent(reason)) => {
            tracing::warn!(verification_id = %id, notice = %notice.key(), reason = %reason, "SMS refused for good; the e-mail still reaches the tenant");
            // Rejected for good: no retry or duplicate record texts it again.
            if let Err(e) = store.mark_message_rejected(id, notice, "sms_refused").await {
                tracing::warn!(verification_id = %id, error = %e, "refused SMS not marked; its lease runs out");
            }
            Ok(())
        }
        Err(transient) => {
            match &allowance {
                Some(a) => release_counted(store, id, notice, a).await,
                None => release(store, id, notice).await,
            }
            tracing::warn!(verification_id = %id, notice = %notice.key(), error = %transient, "SMS not sent; will retry");
            Err(ReachError::Text(transient))
        }
    }
}

/// Gives a failed attempt's claim back, so a retry may send at once; a failed release is logged
/// (the lease then runs out, and the retry sends after it).
pub(crate) async fn release<S: MessageClaimStore>(store: &S, id: Uuid, message: &Message) {
    if let Err(e) = store.release_message(id, message).await {
        tracing::warn!(verification_id = %id, message = %message.key(), error = %e, "message claim not released; its lease runs out");
    }
}

/// `release` of a counted SMS: its count goes back with the claim, so a retry counts it once.
async fn release_counted<S: MessageClaimStore>(
    store: &S,
    id: Uuid,
    message: &Message,
    allowance: &SmsAllowance,
) {
    if let Err(e) = store.release_counted_sms(id, message, allowance).await {
        tracing::warn!(verification_id = %id, message = %message.key(), error = %e, "SMS claim not released; its lease runs out, and its count stands");
    }
}
