//! The mailer port on SES v2: the tenant e-mail, and whose fault a refusal is.

use aws_sdk_sesv2::operation::send_email::SendEmailError;
use aws_sdk_sesv2::types::{Body, Content, Destination, EmailContent, Message};

use ports::{Email, MailError, Mailer};

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
