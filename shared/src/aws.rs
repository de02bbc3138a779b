//! AWS adapters of the mailer (SES v2) and queue (SQS) ports. The store's is in `dynamo`.

use aws_sdk_sesv2::operation::send_email::SendEmailError;
use aws_sdk_sesv2::types::{Body, Content, Destination, EmailContent, Message};
use aws_sdk_sqs::error::DisplayErrorContext;

use crate::ports::{Email, MailError, Mailer, Queue, StoreError};

/// Sends e-mail through SES v2 from a verified sender identity.
#[derive(Clone)]
pub struct SesMailer {
    client: aws_sdk_sesv2::Client,
    from: String,
}

impl SesMailer {
    pub fn new(client: aws_sdk_sesv2::Client, from: impl Into<String>) -> Self {
        SesMailer {
            client,
            from: from.into(),
        }
    }
}

fn content(text: &str) -> Result<Content, MailError> {
    Content::builder()
        .data(text)
        .charset("UTF-8")
        .build()
        .map_err(|e| MailError::Permanent(e.to_string()))
}

impl Mailer for SesMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        let message = Message::builder()
            .subject(content(&email.subject)?)
            .body(
                Body::builder()
                    .text(content(&email.text)?)
                    .html(content(&email.html)?)
                    .build(),
            )
            .build();
        let result = self
            .client
            .send_email()
            .from_email_address(&self.from)
            .destination(Destination::builder().to_addresses(&email.to).build())
            .content(EmailContent::builder().simple(message).build())
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(err) => {
                // Only the error's kind goes into the message: SES may quote the address.
                let permanent = match err.as_service_error() {
                    Some(SendEmailError::MessageRejected(_)) => Some("message rejected"),
                    Some(SendEmailError::MailFromDomainNotVerifiedException(_)) => {
                        Some("sender domain not verified")
                    }
                    Some(SendEmailError::BadRequestException(_)) => Some("bad request"),
                    Some(SendEmailError::NotFoundException(_)) => Some("sender identity not found"),
                    Some(SendEmailError::AccountSuspendedException(_)) => Some("account suspended"),
                    _ => None,
                };
                match permanent {
                    Some(kind) => Err(MailError::Permanent(kind.to_string())),
                    None => Err(MailError::Transient(
                        err.as_service_error()
                            .and_then(|e| e.meta().code())
                            .unwrap_or("request failed")
                            .to_string(),
                    )),
                }
            }
        }
    }
}

/// The webhook queue on SQS.
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
