//! The tenant e-mail's claim item: a lease one sender holds while sending, then the outcome for
//! good (sent, or rejected by SES), so a retry never sends twice and finishes what a crash left.

use aws_sdk_dynamodb::operation::put_item::PutItemError;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{
    EMAIL_REJECTED, EMAIL_SENDING, EMAIL_SENT, email_claim_item, email_claim_refusal, n, s,
};
use super::schema::keys;
use super::{DynamoStore, unavailable};
use crate::domain::format_ts;
use crate::ports::{EmailClaim, EmailClaimStore, StoreError};

impl EmailClaimStore for DynamoStore {
    async fn claim_email_send(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<EmailClaim, StoreError> {
        let item = email_claim_item(id, now);
        let result = self
            .put_item(item)
            .condition_expression(
                "attribute_not_exists(PK) OR (#state = :sending AND lease_until < :now)",
            )
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(EMAIL_SENDING))
            .expression_attribute_values(":now", n(now.timestamp()))
            .send()
            .await;
        match result {
            Ok(_) => Ok(EmailClaim::Claimed),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(PutItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                // Why it was refused decides whether there is anything left to do.
                let item = self.get(keys::email_claim(id)).await?.unwrap_or_default();
                Ok(email_claim_refusal(&item))
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn mark_email_rejected(&self, id: Uuid, reason: &str) -> Result<(), StoreError> {
        self.update_item(&keys::email_claim(id))
            .update_expression("SET #state = :rejected, reason = :reason REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":rejected", s(EMAIL_REJECTED))
            .expression_attribute_values(":reason", s(reason))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn mark_email_sent(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.update_item(&keys::email_claim(id))
            .update_expression("SET #state = :sent, sent_at = :now REMOVE lease_until")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sent", s(EMAIL_SENT))
            .expression_attribute_values(":now", s(format_ts(now)))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn release_email_send(&self, id: Uuid) -> Result<(), StoreError> {
        self.delete_item(&keys::email_claim(id))
            .condition_expression("#state = :sending")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(EMAIL_SENDING))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}
