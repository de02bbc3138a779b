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
            Err(err) => Err(match err.as_service_error() {
                Some(e) => classify_send_error(e),
                None => MailError::Transient("request failed".into()),
            }),
        }
    }
}

/// Whose fault an SES refusal is. Only the error's kind goes into the reason: SES may quote the
/// recipient's address in its message.
pub fn classify_send_error(err: &SendEmailError) -> MailError {
    use aws_sdk_sesv2::error::ProvideErrorMetadata;
    let operator = |kind: &str| MailError::Operator(kind.to_string());
    match err {
        // The service's own SES set-up: the tenant did nothing wrong.
        SendEmailError::AccountSuspendedException(_) => operator("account suspended"),
        SendEmailError::SendingPausedException(_) => operator("sending paused"),
        SendEmailError::MailFromDomainNotVerifiedException(_) => {
            operator("MAIL FROM domain not verified")
        }
        // SendEmail's NotFound is about the sender identity or configuration set, never the
        // recipient.
        SendEmailError::NotFoundException(_) => operator("sender identity not found"),
        // "Email address is not verified": the sender, or (SES sandbox) the recipient the
        // account is not yet allowed to write to; both are fixed by the operator.
        SendEmailError::MessageRejected(e)
            if e.message()
                .is_some_and(|m| m.to_ascii_lowercase().contains("not verified")) =>
        {
            operator("address not verified")
        }
        SendEmailError::MessageRejected(_) => MailError::Permanent("message rejected".into()),
        SendEmailError::BadRequestException(_) => MailError::Permanent("bad request".into()),
        other => MailError::Transient(other.code().unwrap_or("request failed").to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_sesv2::types::error::{
        AccountSuspendedException, BadRequestException, MailFromDomainNotVerifiedException,
        MessageRejected, NotFoundException, SendingPausedException, TooManyRequestsException,
    };

    fn is_operator(e: &SendEmailError) -> bool {
        matches!(classify_send_error(e), MailError::Operator(_))
    }

    #[test]
    fn the_services_own_ses_faults_are_operator_errors() {
        let operator = [
            SendEmailError::AccountSuspendedException(AccountSuspendedException::builder().build()),
            SendEmailError::SendingPausedException(SendingPausedException::builder().build()),
            SendEmailError::MailFromDomainNotVerifiedException(
                MailFromDomainNotVerifiedException::builder().build(),
            ),
            SendEmailError::NotFoundException(NotFoundException::builder().build()),
            // The wording of SES, and of moto.
            SendEmailError::MessageRejected(
                MessageRejected::builder()
                    .message("Email address is not verified. The following identities failed the check in region US-EAST-1: no-reply@example.com")
                    .build(),
            ),
            SendEmailError::MessageRejected(
                MessageRejected::builder()
                    .message("Email address not verified no-reply@example.com")
                    .build(),
            ),
        ];
        for e in &operator {
            assert!(is_operator(e), "{e:?}");
        }
    }

    #[test]
    fn the_tenants_faults_are_permanent_and_throttling_is_transient() {
        let rejected = SendEmailError::MessageRejected(
            MessageRejected::builder()
                .message("Message contains a virus")
                .build(),
        );
        assert!(matches!(
            classify_send_error(&rejected),
            MailError::Permanent(_)
        ));
        let bad = SendEmailError::BadRequestException(BadRequestException::builder().build());
        assert!(matches!(classify_send_error(&bad), MailError::Permanent(_)));
        let throttled =
            SendEmailError::TooManyRequestsException(TooManyRequestsException::builder().build());
        assert!(matches!(
            classify_send_error(&throttled),
            MailError::Transient(_)
        ));
    }

    #[test]
    fn reasons_never_quote_the_address() {
        let e = SendEmailError::MessageRejected(
            MessageRejected::builder()
                .message("Email address is not verified: tenant@example.com")
                .build(),
        );
        assert!(!classify_send_error(&e).to_string().contains('@'));
    }
}
