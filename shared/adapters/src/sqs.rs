//! The queue port on SQS: the webhook queue and the retry queue.

use aws_sdk_sqs::error::DisplayErrorContext;

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
