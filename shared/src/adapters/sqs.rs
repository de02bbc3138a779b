//! The queue port on SQS: the webhook queue and the retry queue.

use aws_lambda_events::event::sqs::SqsMessage;
use aws_sdk_sqs::error::DisplayErrorContext;
use serde::de::DeserializeOwned;

use ports::{Queue, StoreError};

/// A queue on SQS (the webhook queue, or the retry queue).
#[derive(Clone)]
pub struct SqsQueue {
    client: aws_sdk_sqs::Client,
    queue_url: String,
}

impl SqsQueue {
    pub fn new(client: aws_sdk_sqs::Client, queue_url: impl Into<String>) -> Self {
        SqsQueue {
            client,
            queue_url: queue_url.into(),
        }
    }
}

fn queue_error<E: std::error::Error>(e: E) -> StoreError {
    StoreError::Unavailable(DisplayErrorContext(&e).to_string())
}

impl Queue for SqsQueue {
    async fn send(&self, body: &str) -> Result<(), StoreError> {
        self.client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .send()
            .await
            .map_err(queue_error)?;
        Ok(())
    }

    async fn retry_later(
        &self,
        receipt_handle: &str,
        delay_seconds: u32,
    ) -> Result<(), StoreError> {
        self.client
            .change_message_visibility()
            .queue_url(&self.queue_url)
            .receipt_handle(receipt_handle)
            // SQS caps a message's visibility at 12 hours.
            .visibility_timeout(delay_seconds.min(43_200) as i32)
            .send()
            .await
            .map_err(queue_error)?;
        Ok(())
    }
}

/// The JSON body of a message Lambda received from SQS; None when it has none or it is not a `T`
/// (such a message will not become readable by retrying).
pub fn json_body<T: DeserializeOwned>(record: &SqsMessage) -> Option<T> {
    record
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str(b).ok())
}

/// Which attempt of a received message this is (1 for the first delivery).
pub fn receive_count(m: &SqsMessage) -> usize {
    m.attributes
        .get("ApproximateReceiveCount")
        .and_then(|c| c.parse().ok())
        .unwrap_or(1)
}

/// The delay before the next attempt, from `backoff` indexed by the attempt that failed (its last
/// value repeats); None for an empty list.
pub fn backoff_delay(backoff: &[u32], attempt: usize) -> Option<u32> {
    backoff
        .get(attempt.saturating_sub(1))
        .or(backoff.last())
        .copied()
}
