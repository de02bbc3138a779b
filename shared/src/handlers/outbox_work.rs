//! The outbox's one retry road: the follow-up work a stream record asks for (tenant e-mail,
//! webhook enqueue, invite SMS, reminder schedules, a resent round's e-mail and SMS, a
//! household's decision), how each piece is done, and the
//! hand-off of a failed piece to the durable retry queue. `publish-events` does each piece once
//! and hands off what failed; `retry-events` redoes it from the queue with a growing back-off.
//! Every piece is idempotent, so a redone piece never repeats what went out.

use aws_lambda_events::event::dynamodb::EventRecord;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::adapters::dynamo::schema;
use crate::domain::Verification;
use crate::domain::webhook::WebhookMessage;
use crate::handlers::household_completed::{household_completed_webhook, record_decision};
use crate::handlers::publish_events::{
    OutboxDeps, OutboxError, enqueue_webhook, send_tenant_email, send_tenant_email_of,
    webhook_message,
};
use crate::handlers::{reach_events, resend_invite, webhook_archive};
use crate::ports::{Clock, Mailer, NoticeStore, Queue, Scheduler, Store, StoreError, Texter};

/// Work that could not be done at once, as it waits on the retry queue.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RetryWork {
    /// Send the tenant e-mail of this verification (if still pending and not sent).
    TenantEmail { verification_id: Uuid },
    /// Put this webhook message on the webhook queue.
    Webhook { message: WebhookMessage },
    /// Text the invite SMS of this verification (once, while it is pending).
    InviteSms { verification_id: Uuid },
    /// Create this verification's reminder schedules (creating one again is success).
    ReminderSchedules { verification_id: Uuid },
    /// Send round `round` of the invite again (a resend), then its `verification.resent` webhook.
    ResendInvite {
        verification_id: Uuid,
        round: u32,
        #[serde(with = "crate::domain::ts")]
        resent_at: DateTime<Utc>,
    },
    /// Text round `round`'s resent invite (once per round).
    ResentSms { verification_id: Uuid, round: u32 },
    /// Store this household's decision if every member is final (once; its stream record then
    /// sends `household.completed`).
    HouseholdDecision { household_id: Uuid },
}

impl RetryWork {
    /// The piece's kind, as its message names it (for logs: no personal data).
    pub fn kind(&self) -> &'static str {
        match self {
            RetryWork::TenantEmail { .. } => "tenant_email",
            RetryWork::Webhook { .. } => "webhook",
            RetryWork::InviteSms { .. } => "invite_sms",
            RetryWork::ReminderSchedules { .. } => "reminder_schedules",
            RetryWork::ResendInvite { .. } => "resend_invite",
            RetryWork::ResentSms { .. } => "resent_sms",
            RetryWork::HouseholdDecision { .. } => "household_decision",
        }
    }
}

/// A retry-queue message: the work, and when it first failed (the retry window starts there).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryMessage {
    pub work: RetryWork,
    #[serde(with = "crate::domain::ts")]
    pub first_failed_at: DateTime<Utc>,
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

/// A piece of a record's work, with the verification image it may be done from at once (the
/// INSERT's new verification, a resend's new image), without reading it again.
pub(crate) type Piece = (RetryWork, Option<Verification>);

/// A new verification's work: its e-mail, its invite SMS (a usable number), its reminders
/// (unless turned off).
fn new_verification_work(v: Verification) -> Vec<Piece> {
    let verification_id = v.verification_id;
    let mut work = vec![RetryWork::TenantEmail { verification_id }];
    if v.sms_phone.is_some() {
        work.push(RetryWork::InviteSms { verification_id });
    }
    if !v.reminders_off {
        work.push(RetryWork::ReminderSchedules { verification_id });
    }
    work.into_iter().map(|w| (w, Some(v.clone()))).collect()
}

/// A resend's work (the round went up): the round's e-mail and webhook, and its SMS (a usable
/// number).
fn resend_work(old: &Verification, new: &Verification) -> Option<Vec<Piece>> {
    let email = resend_invite::resend_work(old, new)?;
    let mut work = vec![(email, None)];
    if new.sms_phone.is_some() {
        let sms = RetryWork::ResentSms {
            verification_id: new.verification_id,
            round: new.invite_round,
        };
        work.push((sms, Some(new.clone())));
    }
    Some(work)
}

/// The work a record asks for (none, or its pieces in order).
pub(crate) fn work_of(record: &EventRecord) -> Result<Vec<Piece>, OutboxError> {
    if let Some(message) = webhook_archive::redelivery_of(record).map_err(OutboxError::Record)? {
        return Ok(vec![(RetryWork::Webhook { message }, None)]);
    }
    match record.event_name.as_str() {
        "INSERT" => Ok(image(&record.change.new_image)?
            .map(new_verification_work)
            .unwrap_or_default()),
        "MODIFY" => {
            let (old, new) = (&record.change.old_image, &record.change.new_image);
            if let Some(message) =
                household_completed_webhook(old, new).map_err(OutboxError::Record)?
            {
                return Ok(vec![(RetryWork::Webhook { message }, None)]);
            }
            let (Some(old), Some(new)) = (image(old)?, image(new)?) else {
                return Ok(vec![]);
            };
            if let Some(work) = resend_work(&old, &new) {
                return Ok(work);
            }
            if old.status == new.status {
                return Ok(vec![]);
            }
            let mut work: Vec<Piece> = webhook_message(&new)
                .map(|message| (RetryWork::Webhook { message }, None))
                .into_iter()
                .collect();
            // A member became final: its household may be decidable now.
            if let Some(household_id) = new.household_id
                && !new.status.is_open()
            {
                work.push((RetryWork::HouseholdDecision { household_id }, None));
            }
            Ok(work)
        }
        _ => Ok(vec![]),
    }
}

/// Does one piece of work the first time, from the image its record carries when there is one.
pub(crate) async fn do_piece<S, M, T, R, Q, C>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    (work, image): &Piece,
) -> Result<(), OutboxError>
where
    S: Store + NoticeStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
{
    let Some(v) = image else {
        return do_work(deps, work).await;
    };
    match work {
        // Boxed as in `do_work`.
        RetryWork::TenantEmail { .. } => Box::pin(send_tenant_email_of(deps, v)).await,
        RetryWork::InviteSms { .. } => Ok(reach_events::invite_sms(deps, v).await?),
        RetryWork::ReminderSchedules { .. } => Ok(reach_events::reminder_schedules(deps, v).await?),
        RetryWork::ResentSms { round, .. } => Ok(reach_events::resent_sms(deps, v, *round).await?),
        _ => do_work(deps, work).await,
    }
}

/// Does one piece of work (a retry, or a first attempt without an image): the work names only
/// ids, so what it needs is read first.
pub(crate) async fn do_work<S, M, T, R, Q, C>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    work: &RetryWork,
) -> Result<(), OutboxError>
where
    S: Store + NoticeStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
{
    match work {
        // Boxed: the e-mail path's future is deep enough to overflow rustc's layout query depth
        // in the functions' `main` (one allocation per e-mail is nothing next to the SES call).
        RetryWork::TenantEmail { verification_id } => {
            Box::pin(send_tenant_email(deps, *verification_id)).await
        }
        RetryWork::Webhook { message } => enqueue_webhook(deps, message).await,
        RetryWork::InviteSms { verification_id } => {
            let Some(v) = deps.store.get_verification(*verification_id).await? else {
                return Ok(());
            };
            Ok(reach_events::invite_sms(deps, &v).await?)
        }
        RetryWork::ReminderSchedules { verification_id } => {
            let Some(v) = deps.store.get_verification(*verification_id).await? else {
                return Ok(());
            };
            Ok(reach_events::reminder_schedules(deps, &v).await?)
        }
        RetryWork::ResendInvite {
            verification_id,
            round,
            resent_at,
        } => {
            Box::pin(resend_invite::send_resent_invite(
                deps,
                *verification_id,
                *round,
                *resent_at,
            ))
            .await
        }
        RetryWork::ResentSms {
            verification_id,
            round,
        } => {
            let Some(v) = deps.store.get_verification(*verification_id).await? else {
                return Ok(());
            };
            Ok(reach_events::resent_sms(deps, &v, *round).await?)
        }
        RetryWork::HouseholdDecision { household_id } => record_decision(deps, *household_id).await,
    }
}

/// Hands failed work to the durable retry queue.
pub(crate) async fn hand_off<S, M, T, R, Q: Queue, C: Clock>(
    deps: &OutboxDeps<S, M, T, R, Q, C>,
    work: RetryWork,
) -> Result<(), StoreError> {
    let message = RetryMessage {
        work,
        first_failed_at: deps.clock.now(),
    };
    let body = serde_json::to_string(&message).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    deps.retry_queue.send(&body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the logs name a piece is what its message says (`work.kind`), for every piece.
    #[test]
    fn a_pieces_kind_is_its_messages_kind() {
        let id = Uuid::nil();
        let at = "2026-11-25T21:00:00Z".parse().unwrap();
        let message = WebhookMessage {
            webhook_id: "msg_x".into(),
            account_id: "acct".into(),
            url: "https://hooks.example.com/h".into(),
            body: "{}".into(),
        };
        let all = [
            RetryWork::TenantEmail {
                verification_id: id,
            },
            RetryWork::Webhook { message },
            RetryWork::InviteSms {
                verification_id: id,
            },
            RetryWork::ReminderSchedules {
                verification_id: id,
            },
            RetryWork::ResendInvite {
                verification_id: id,
                round: 1,
                resent_at: at,
            },
            RetryWork::ResentSms {
                verification_id: id,
                round: 1,
            },
            RetryWork::HouseholdDecision { household_id: id },
        ];
        for work in all {
            let json = serde_json::to_value(&work).unwrap();
            assert_eq!(json["kind"], work.kind());
        }
    }
}
