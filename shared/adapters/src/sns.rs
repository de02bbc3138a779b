//! The texter port on SNS: `Publish` straight to a phone number (transactional SMS).

use aws_sdk_sns::operation::publish::PublishError;
use aws_sdk_sns::types::MessageAttributeValue;

use ports::{Sms, TextError, Texter};

/// Sends SMS through SNS. Neither the number nor the text ever goes into an error or a log.
#[derive(Clone)]
pub struct SnsTexter {
    client: aws_sdk_sns::Client,
}

impl SnsTexter {
    pub fn new(client: aws_sdk_sns::Client) -> Self {
        SnsTexter { client }
    }
}

impl Texter for SnsTexter {
    async fn send(&self, sms: &Sms) -> Result<(), TextError> {
        let transactional = MessageAttributeValue::builder()
            .data_type("String")
            .string_value("Transactional")
            .build()
            .map_err(|e| TextError::Permanent(e.to_string()))?;
        let result = self
            .client
            .publish()
            .phone_number(&sms.to)
            .message(&sms.text)
            .message_attributes("AWS.SNS.SMS.SMSType", transactional)
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(err) => Err(match err.as_service_error() {
                Some(e) => classify_publish_error(e),
                None => TextError::Transient("request failed".into()),
            }),
        }
    }
}

/// Whether an SNS refusal is worth retrying. Only the error's kind goes into the reason: SNS may
/// quote the number in its message.
pub fn classify_publish_error(err: &PublishError) -> TextError {
    match err {
        PublishError::InvalidParameterException(_)
        | PublishError::InvalidParameterValueException(_)
        | PublishError::ValidationException(_) => {
            TextError::Permanent("number or message refused".into())
        }
        PublishError::EndpointDisabledException(_) => {
            TextError::Permanent("endpoint disabled".into())
        }
        PublishError::AuthorizationErrorException(_) => {
            TextError::Transient("not authorised to publish SMS".into())
        }
        _ => TextError::Transient(
            aws_sdk_sns::error::ProvideErrorMetadata::code(err)
                .unwrap_or("unknown")
                .to_string(),
        ),
    }
}
