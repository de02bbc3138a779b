//! The outbox's one retry road: the follow-up work a stream record asks for (tenant e-mail,
//! webhook enqueue, invite SMS, reminder schedules, a resent round's e-mail and SMS, a
//! household's decision) and how each piece is done (the pieces as they wait on the retry queue,
//! and the hand-off to it, are `outbox`'s). `publish-events` does each piece once
//! and hands off what failed; `retry-events` redoes it from the queue with a growing back-off.
//! Every piece is idempotent, so a redone piece never repeats what went out.

use aws_lambda_events::event::dynamodb::EventRecord;
use chrono::{DateTime, Utc};

use crate::handlers::household_completed::{
    household_completed_webhook, household_webhook, record_decision,
};
use crate::handlers::outbox::{OutboxDeps, OutboxError, OutboxStore, enqueue_webhook};
pub use crate::handlers::outbox::{RetryMessage, RetryWork, WebhookOf};
use crate::handlers::tenant_email::{send_tenant_email, send_tenant_email_of};
use crate::handlers::{
    provider_connection, provider_data, reach_events, resend_invite, webhook_archive,
};
use crate::table_schema as schema;
use domain::public_view::render_verification;
use domain::webhook::WebhookMessage;
use domain::webhook_log::ERASED_EVENT_TYPE;
use domain::{Verification, format_ts, webhook_event_type};
use ports::{
    Clock, HouseholdStore, IncomeProvider, Mailer, Queue, Scheduler, Texter, VerificationStore,
};

/// The verification's webhook of `event` (its `webhook-id`'s suffix: `in_progress`, `completed`,
/// `failed`, `cancelled`, `expired`, `reviewed`, `erased`), built from `v`, if it has a
/// `webhook_url` and the event happened. The `timestamp` is the event's time as stored; the body
/// shows the verification as GET does at that time. Deterministic: a duplicate stream record
/// produces the same message and `webhook-id`.
pub fn verification_webhook(v: &Verification, event: &str) -> Option<WebhookMessage> {
    let at = match event {
        "in_progress" => v.started_at.unwrap_or(v.created_at),
        "completed" => v.completed_at.unwrap_or(v.created_at),
        "failed" => v.failed_at.unwrap_or(v.created_at),
        "cancelled" => v.cancelled_at?,
        "expired" => v.expired_at.unwrap_or(v.expires_at),
        // Once per report, since a review is kept once.
        "reviewed" => document_review(v)?.reviewed_at,
        // Its body shows the verification as GET does after the erasure.
        "erased" => v.erased_at?,
        _ => return None,
    };
    message_of(v, &format!("verification.{event}"), at)
}

/// The webhook for a verification that just reached its status, if it has a `webhook_url`.
pub fn webhook_message(v: &Verification) -> Option<WebhookMessage> {
    verification_webhook(v, status_event(v)?)
}

/// The event of the verification's status (its webhook type without `verification.`).
fn status_event(v: &Verification) -> Option<&'static str> {
    webhook_event_type(v).map(|t| t.trim_start_matches("verification."))
}

/// `verification.erased`, for a verification whose personal data was just erased.
pub fn erased_webhook_message(v: &Verification) -> Option<WebhookMessage> {
    verification_webhook(v, ERASED_EVENT_TYPE.trim_start_matches("verification."))
}

/// `verification.reviewed`, for a report whose documents the landlord just reviewed
/// (`income_report.document_review`).
pub fn reviewed_webhook_message(v: &Verification) -> Option<WebhookMessage> {
    verification_webhook(v, "reviewed")
}

/// A webhook piece: its keys for the retry queue, its message (built from the record's image)
/// for the first attempt.
fn webhook_piece(of: WebhookOf, message: Option<WebhookMessage>) -> Vec<Piece> {
    message
        .map(|m| (RetryWork::Webhook { of }, Some(Image::Webhook(m))))
        .into_iter()
        .collect()
}

/// The piece of a verification's webhook of `event`, built from `v`.
fn verification_webhook_piece(v: &Verification, event: &str) -> Vec<Piece> {
    let of = WebhookOf::Verification {
        verification_id: v.verification_id,
        event: event.to_string(),
    };
    webhook_piece(of, verification_webhook(v, event))
}

/// A retried webhook's message, built from the table's item as it is now; None when the item is
/// gone or sends no such webhook (no `webhook_url`, no decision).
pub(crate) async fn webhook_from_table<S: VerificationStore + HouseholdStore>(
    store: &S,
    of: &WebhookOf,
) -> Result<Option<WebhookMessage>, OutboxError> {
    Ok(match of {
        WebhookOf::Verification {
            verification_id,
            event,
        } => (store.get_verification(*verification_id).await?)
            .and_then(|v| verification_webhook(&v, event)),
        WebhookOf::Household { household_id } => {
            (store.get_household(*household_id).await?).and_then(|h| household_webhook(&h))
        }
    })
}

fn document_review(v: &Verification) -> Option<&domain::documents::review::DocumentReview> {
    v.income_report.as_ref()?.document_review.as_ref()
}

fn message_of(v: &Verification, kind: &str, at: DateTime<Utc>) -> Option<WebhookMessage> {
    let url = v.webhook_url.clone()?;
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

/// What a piece of a record's work may be done from at once, without reading the table again.
pub(crate) enum Image {
    /// The INSERT's new verification, a resend's new image.
    Verification(Box<Verification>),
    /// A webhook's message, built from the record's new image.
    Webhook(WebhookMessage),
}

/// A piece of a record's work, with the image it may be done from at once.
pub(crate) type Piece = (RetryWork, Option<Image>);

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
    work.into_iter()
        .map(|w| (w, Some(Image::Verification(Box::new(v.clone())))))
        .collect()
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
        work.push((sms, Some(Image::Verification(Box::new(new.clone())))));
    }
    Some(work)
}

/// The work a record asks for (none, or its pieces in order).
pub(crate) fn work_of(record: &EventRecord) -> Result<Vec<Piece>, OutboxError> {
    if let Some(event) = webhook_archive::redelivery_of(record).map_err(OutboxError::Record)? {
        return Ok(vec![(RetryWork::QueueWebhook { event }, None)]);
    }
    match record.event_name.as_str() {
        "INSERT" => Ok(image(&record.change.new_image)?
            .map(new_verification_work)
            .unwrap_or_default()),
        "MODIFY" => {
            let (old, new) = (&record.change.old_image, &record.change.new_image);
            if let Some((household_id, message)) =
                household_completed_webhook(old, new).map_err(OutboxError::Record)?
            {
                return Ok(webhook_piece(
                    WebhookOf::Household { household_id },
                    Some(message),
                ));
            }
            let (Some(old), Some(new)) = (image(old)?, image(new)?) else {
                return Ok(vec![]);
            };
            if let Some(work) = resend_work(&old, &new) {
                return Ok(work);
            }
            if old.erased_at.is_none() && new.erased_at.is_some() {
                let erased = ERASED_EVENT_TYPE.trim_start_matches("verification.");
                return Ok(verification_webhook_piece(&new, erased));
            }
            if document_review(&old).is_none() && document_review(&new).is_some() {
                return Ok(verification_webhook_piece(&new, "reviewed"));
            }
            // A connection began to wait: the sweep watches it, in case its webhook is lost. Its
            // provider signalled: its data is read.
            if let Some(work) = provider_data::sweep_work(&old, &new) {
                return Ok(vec![(work, None)]);
            }
            if let Some(work) = provider_data::data_work(&old, &new) {
                return Ok(vec![(work, None)]);
            }
            if old.status == new.status {
                return Ok(vec![]);
            }
            let mut work: Vec<Piece> = status_event(&new)
                .map(|event| verification_webhook_piece(&new, event))
                .unwrap_or_default();
            // A member became final: its household may be decidable now.
            if let Some(household_id) = new.household_id
                && !new.status.is_open()
            {
                work.push((RetryWork::HouseholdDecision { household_id }, None));
            }
            // It ended with a user at the income provider: its bank connection is closed.
            if let Some(work_piece) = provider_connection::close_work(&old, &new) {
                work.push((work_piece, None));
            }
            Ok(work)
        }
        _ => Ok(vec![]),
    }
}

/// Does one piece of work the first time, from the image its record carries when there is one.
pub(crate) async fn do_piece<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    (work, image): &Piece,
) -> Result<(), OutboxError>
where
    S: OutboxStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
    P: IncomeProvider,
{
    let v = match image {
        None => return do_work(deps, work).await,
        Some(Image::Webhook(message)) => return enqueue_webhook(deps, message).await,
        Some(Image::Verification(v)) => v,
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
pub(crate) async fn do_work<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    work: &RetryWork,
) -> Result<(), OutboxError>
where
    S: OutboxStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
    P: IncomeProvider,
{
    match work {
        // Boxed: the e-mail path's future is deep enough to overflow rustc's layout query depth
        // in the functions' `main` (one allocation per e-mail is nothing next to the SES call).
        RetryWork::TenantEmail { verification_id } => {
            Box::pin(send_tenant_email(deps, *verification_id)).await
        }
        RetryWork::Webhook { of } => match webhook_from_table(&deps.store, of).await? {
            Some(message) => enqueue_webhook(deps, &message).await,
            None => {
                tracing::info!(
                    kind = work.kind(),
                    "webhook's subject gone or sending none; nothing queued"
                );
                Ok(())
            }
        },
        RetryWork::QueueWebhook { event } => {
            Ok(webhook_archive::queue_stored(&deps.queue, event).await?)
        }
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
        RetryWork::CloseProviderUser { verification_id } => {
            provider_connection::close_user(deps, *verification_id).await
        }
        RetryWork::ProviderData { verification_id } => {
            provider_data::read_data(deps, *verification_id).await
        }
        RetryWork::SweepWait { verification_id } => {
            provider_data::sweep_wait(deps, *verification_id).await
        }
    }
}
