//! The second pass of `publish-events` over the stream: a new verification also gets its invite
//! SMS (when `tenant_phone` is a usable number) and its reminder schedules (unless
//! `reminders: false`). Kept apart from the e-mail and webhook outbox so neither waits on the
//! other: an SMS failure never fails the e-mail or the verification.
//!
//! A resend (the verification's `invite_round` went up) is texted too, once per round, when the
//! number is usable.
//!
//! Both are idempotent, so a redelivered record does no harm: the SMS is claimed once on the
//! verification (`NoticeStore`), and a schedule is named by verification and point (creating it
//! again is success). Work that failed for a reason worth retrying is reported as the batch's
//! failure, and the stream delivers the record again (the e-mail pass then finds its e-mail sent).

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use chrono::Duration;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::adapters::dynamo::schema;
use crate::config::TestModeDelivery;
use crate::domain::reach::{Notice, ReminderPoint, invite_sms_text, reminder_points};
use crate::domain::secrets::generate_link_token;
use crate::domain::tenant_link::tenant_link;
use crate::domain::{Mode, Verification};
use crate::ports::{
    Clock, NoticeClaim, NoticeStore, OneTimeSchedule, Scheduler, Sms, Store, StoreError, TextError,
    Texter,
};

/// How long one attempt holds a notice before another may take it over.
pub const NOTICE_LEASE: Duration = Duration::minutes(2);

/// Tries of marking a sent notice (an unmarked one may go out again once its lease runs out).
const MARK_ATTEMPTS: u32 = 3;

/// What the invite SMS, the reminder schedules and `send-reminders` need.
pub struct ReachDeps<S, M, T, R, Q, C> {
    pub store: S,
    pub mailer: M,
    pub texter: T,
    pub scheduler: R,
    /// The webhook queue (`verification.reminder_sent`).
    pub queue: Q,
    pub clock: C,
    /// Base URL of the tenant page (links are `{base}/t/{id}/{token}`).
    pub public_base_url: String,
    /// Test-mode verifications reach nobody in a deployed stack (as their e-mail).
    pub test_mode_delivery: TestModeDelivery,
    /// The reminder points, as durations before `expires_at` (at most two are used).
    pub reminder_offsets: Vec<Duration>,
}

impl<S, M, T, R, Q, C> ReachDeps<S, M, T, R, Q, C> {
    /// Whether messages of `v` go out at all (test mode is suppressed in a deployed stack).
    pub fn delivers(&self, v: &Verification) -> bool {
        v.mode == Mode::Live || self.test_mode_delivery == TestModeDelivery::Send
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("sms: {0}")]
    Text(TextError),
    #[error("mail: {0}")]
    Mail(crate::ports::MailError),
    /// Another attempt holds the notice's lease and may not have finished: retried later.
    #[error("notice held by another attempt; retried after its lease")]
    Held,
}

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

/// The landlord's name as the messages show it.
pub(crate) async fn requester<S: Store>(store: &S, v: &Verification) -> Result<String, StoreError> {
    Ok(store
        .get_account(&v.account_id)
        .await?
        .map_or_else(|| "A landlord".to_string(), |a| a.name))
}

/// Marks a sent notice, retrying a failed write a few times (short pauses: a throttled table).
pub(crate) async fn mark_sent<S: NoticeStore>(
    store: &S,
    id: Uuid,
    notice: &Notice,
) -> Result<(), StoreError> {
    let mut attempt = 1;
    loop {
        match store.mark_notice_sent(id, notice).await {
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

/// Sends one SMS notice of `v` at most once; `text` makes the message from its own fresh link.
/// `Ok` when sent, sent before, not needed (no usable number, closed, another attempt holds it)
/// or refused for good by SNS; `Err` when worth retrying (the claim is given back first).
pub async fn send_sms_notice<S, M, T, R, Q, C>(
    deps: &ReachDeps<S, M, T, R, Q, C>,
    v: &Verification,
    notice: &Notice,
    text: impl FnOnce(&str) -> String,
) -> Result<(), ReachError>
where
    S: Store + NoticeStore,
    T: Texter,
    C: Clock,
{
    let id = v.verification_id;
    let Some(to) = v.sms_phone.clone() else {
        return Ok(());
    };
    if !deps.delivers(v) {
        tracing::info!(verification_id = %id, notice = %notice.key(), "test mode: SMS suppressed");
        return Ok(());
    }
    let now = deps.clock.now();
    let (token, token_hash) = generate_link_token();
    match deps
        .store
        .claim_notice(
            id,
            v.household_id,
            notice,
            &token_hash,
            now,
            now + NOTICE_LEASE,
        )
        .await?
    {
        NoticeClaim::Claimed => {}
        other => {
            tracing::info!(verification_id = %id, notice = %notice.key(), claim = ?other, "SMS not sent by this attempt");
            return Ok(());
        }
    }
    let link = tenant_link(&deps.public_base_url, id, &token);
    let sms = Sms {
        to,
        text: text(&link),
    };
    match deps.texter.send(&sms).await {
        Ok(()) => {
            // SNS has it: a mark that keeps failing is logged, and the invocation is not failed
            // for it (a retry would text again).
            if let Err(e) = mark_sent(&deps.store, id, notice).await {
                tracing::error!(verification_id = %id, notice = %notice.key(), error = %e, "SMS sent but not marked sent");
            } else {
                tracing::info!(verification_id = %id, notice = %notice.key(), "SMS sent");
            }
            Ok(())
        }
        Err(e) => {
            if let Err(release) = deps.store.release_notice(id, notice).await {
                tracing::warn!(verification_id = %id, error = %release, "SMS claim not released; its lease runs out");
            }
            match e {
                TextError::Permanent(reason) => {
                    tracing::warn!(verification_id = %id, notice = %notice.key(), reason = %reason, "SMS refused for good; the e-mail still reaches the tenant");
                    Ok(())
                }
                transient => {
                    tracing::warn!(verification_id = %id, notice = %notice.key(), error = %transient, "SMS not sent; will retry");
                    Err(ReachError::Text(transient))
                }
            }
        }
    }
}

/// Invite SMS and reminder schedules of one inserted verification.
pub async fn reach_new_verification<S, M, T, R, Q, C>(
    deps: &ReachDeps<S, M, T, R, Q, C>,
    v: &Verification,
) -> Result<(), ReachError>
where
    S: Store + NoticeStore,
    T: Texter,
    R: Scheduler,
    C: Clock,
{
    if !deps.delivers(v) {
        return Ok(());
    }
    for point in reminder_points(v, &deps.reminder_offsets, deps.clock.now()) {
        deps.scheduler
            .create_once(&reminder_schedule(v, point))
            .await?;
    }
    if v.sms_phone.is_some() {
        let name = requester(&deps.store, v).await?;
        send_sms_notice(deps, v, &Notice::InviteSms, |link| {
            invite_sms_text(v, &name, link)
        })
        .await?;
    }
    Ok(())
}

/// The resent invite's SMS of `v`'s current round, once (the round's e-mail is the outbox's).
pub async fn reach_resent_verification<S, M, T, R, Q, C>(
    deps: &ReachDeps<S, M, T, R, Q, C>,
    v: &Verification,
) -> Result<(), ReachError>
where
    S: Store + NoticeStore,
    T: Texter,
    C: Clock,
{
    if v.sms_phone.is_none() || !deps.delivers(v) {
        return Ok(());
    }
    let name = requester(&deps.store, v).await?;
    send_sms_notice(deps, v, &Notice::ResentSms(v.invite_round), |link| {
        invite_sms_text(v, &name, link)
    })
    .await
}

/// The verification a record carries when it is new (INSERT) or was just resent (its
/// `invite_round` went up); `true` for the resend.
fn reached_verification(record: &EventRecord) -> Option<(Verification, bool)> {
    match record.event_name.as_str() {
        "INSERT" => verification_image(&record.change.new_image).map(|v| (v, false)),
        "MODIFY" => {
            let old = verification_image(&record.change.old_image)?;
            let new = verification_image(&record.change.new_image)?;
            (new.invite_round > old.invite_round).then_some((new, true))
        }
        _ => None,
    }
}

fn verification_image(item: &serde_dynamo::Item) -> Option<Verification> {
    let is_verification = matches!(
        item.get(schema::SK),
        Some(serde_dynamo::AttributeValue::S(sk)) if sk == schema::VERIFICATION_SK
    );
    if !is_verification {
        return None;
    }
    match serde_dynamo::from_item(item.clone()) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::error!(error = %e, "unreadable verification image; no SMS or reminders");
            None
        }
    }
}

/// The stream pass: every inserted or resent verification, in order; the first failure worth retrying is
/// reported (the stream redelivers from there).
pub async fn reach_events<S, M, T, R, Q, C>(
    deps: &ReachDeps<S, M, T, R, Q, C>,
    event: &Event,
) -> DynamoDbEventResponse
where
    S: Store + NoticeStore,
    T: Texter,
    R: Scheduler,
    C: Clock,
{
    let mut response = DynamoDbEventResponse::default();
    for record in &event.records {
        let Some((v, resent)) = reached_verification(record) else {
            continue;
        };
        let done = if resent {
            Box::pin(reach_resent_verification(deps, &v)).await
        } else {
            Box::pin(reach_new_verification(deps, &v)).await
        };
        if let Err(e) = done {
            tracing::warn!(verification_id = %v.verification_id, error = %e, event_id = %record.event_id, "invite SMS or reminder schedules not done; the stream retries the record");
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = record.change.sequence_number.clone();
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}

/// One answer for a batch both passes handled: the earliest reported record (the stream
/// redelivers from it, and both passes are idempotent).
pub fn merge_responses(
    event: &Event,
    responses: impl IntoIterator<Item = DynamoDbEventResponse>,
) -> DynamoDbEventResponse {
    let position = |f: &DynamoDbBatchItemFailure| {
        event
            .records
            .iter()
            .position(|r| r.change.sequence_number == f.item_identifier)
            .unwrap_or(usize::MAX)
    };
    let earliest = responses
        .into_iter()
        .flat_map(|r| r.batch_item_failures)
        .min_by_key(position);
    let mut merged = DynamoDbEventResponse::default();
    merged.batch_item_failures.extend(earliest);
    merged
}
