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

use crate::handlers::outbox::OutboxStore;
use crate::handlers::outbox::hand_off_left;
pub use crate::handlers::outbox::{OutboxDeps, OutboxError};
pub use crate::handlers::outbox_work::webhook_message;
use crate::handlers::outbox_work::{do_piece, work_of};
pub use crate::handlers::tenant_email::{send_tenant_email, send_tenant_email_of, tenant_email};
use ports::{Clock, IncomeProvider, Mailer, Queue, Scheduler, Texter};

/// Handles one batch of stream records, in order. Each failed piece of a record's work goes to the
/// retry queue on its own (the pieces that succeeded are done for good); a record whose hand-off
/// fails is reported, so Lambda retries from there (that record and the ones after it, not the
/// ones before; every piece is idempotent).
pub async fn publish_events<S, M, T, R, Q, C, P>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    event: Event,
) -> DynamoDbEventResponse
where
    S: OutboxStore,
    M: Mailer,
    T: Texter,
    R: Scheduler,
    Q: Queue,
    C: Clock,
    P: IncomeProvider,
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
            match hand_off_left(deps, piece.0, &e).await {
                Ok(()) if matches!(e, OutboxError::NotDue) => {
                    tracing::info!(kind, event_id = %record.event_id, "waiting connection handed to the sweep")
                }
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
