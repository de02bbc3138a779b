//! The outbox's pieces that reach the tenant beyond the e-mail: a new verification's invite SMS
//! (when `tenant_phone` is a usable number) and its reminder schedules (unless `reminders:
//! false`), and a resent round's SMS. They are pieces of the one retry road (`outbox_work`): done
//! by `publish-events`, and on failure handed to the retry queue and redone by `retry-events`, so
//! an SMS or scheduler outage never holds the shard's e-mails, webhooks or household decisions.
//!
//! All are idempotent, so a redelivered record or a retry does no harm: the SMS is claimed once on
//! the verification (`MessageClaimStore`, which binds each attempt's link in place of the last one's),
//! and a schedule is named by verification and point (creating it again is success).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::handlers::notices::{ReachError, requester, send_sms_notice};
use crate::handlers::outbox::OutboxDeps;
use domain::Verification;
use domain::reach::{Message, ReminderPoint, invite_sms_text, reminder_points};
use ports::{AccountStore, Clock, MessageClaimStore, OneTimeSchedule, Scheduler, Texter};

/// What a reminder schedule hands `send-reminders`: ids and a label, no personal data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReminderPayload {
    pub verification_id: Uuid,
    /// The point's label (`72h`, `24h`; `8m` on a local stack with minute offsets).
    pub reminder: String,
}

/// The schedule of `point` for `v`: its name is unique per verification and point.
pub fn reminder_schedule(v: &Verification, point: ReminderPoint) -> OneTimeSchedule {
    let payload = ReminderPayload {
        verification_id: v.verification_id,
        reminder: point.label(),
    };
    OneTimeSchedule {
        name: format!("reminder-{}-{}", v.verification_id.simple(), point.label()),
        at: point.due_at(v),
        payload: serde_json::to_string(&payload).unwrap_or_default(),
    }
}

/// The reminder schedules of `v` that are still ahead (a retry after a point passed creates only
/// the later one). Test-mode verifications of a deployed stack get none.
pub async fn reminder_schedules<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
) -> Result<(), ReachError>
where
    R: Scheduler,
    C: Clock,
{
    if !deps.test_mode_delivery.delivers(v.mode) {
        return Ok(());
    }
    for point in reminder_points(v, &deps.reminder_offsets, deps.clock.now()) {
        deps.scheduler
            .create_once(&reminder_schedule(v, point))
            .await?;
    }
    Ok(())
}

/// The invite SMS of `v`, once (only while it is pending: not once the tenant started).
pub async fn invite_sms<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
) -> Result<(), ReachError>
where
    S: AccountStore + MessageClaimStore,
    T: Texter,
    C: Clock,
{
    text_invite(deps, v, &Message::InviteSms).await
}

/// Round `round`'s resent invite SMS of `v`, once (the round's e-mail is a piece of its own).
pub async fn resent_sms<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
    round: u32,
) -> Result<(), ReachError>
where
    S: AccountStore + MessageClaimStore,
    T: Texter,
    C: Clock,
{
    text_invite(deps, v, &Message::ResentSms(round)).await
}

async fn text_invite<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
    notice: &Message,
) -> Result<(), ReachError>
where
    S: AccountStore + MessageClaimStore,
    T: Texter,
    C: Clock,
{
    if v.sms_phone.is_none() || !deps.test_mode_delivery.delivers(v.mode) {
        return Ok(());
    }
    let requester = requester(&deps.store, v).await?;
    send_sms_notice(deps.texting(), (v, &requester), notice, |link| {
        invite_sms_text(v, &requester.name, link)
    })
    .await
}
