//! The tenant e-mail's claim item: a lease one sender holds while sending, then the outcome for
//! good (sent, or rejected by SES), so a retry never sends twice and finishes what a crash left.

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{
    EMAIL_REJECTED, EMAIL_SENDING, EMAIL_SENT, email_claim_item, email_claim_refusal, n, s,
};
use super::schema::{self, keys};
use super::{DynamoStore, unavailable};
use crate::domain::reach::invite_email_key;
use crate::domain::{Status, format_ts};
use crate::ports::{EmailClaimStore, EmailStart, StoreError};

/// Who may take the claim: nobody holds it, or the holder's lease ran out.
const CLAIM_CONDITION: &str =
    "attribute_not_exists(PK) OR (#state = :sending AND lease_until < :now)";

impl DynamoStore {
    /// The claim item's put and the binding of the e-mail's link, as one transaction's items.
    fn claim_and_bind_items(
        &self,
        id: Uuid,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let claim = Put::builder()
            .table_name(self.table())
            .set_item(Some(email_claim_item(id, now)))
            .condition_expression(CLAIM_CONDITION)
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s(EMAIL_SENDING))
            .expression_attribute_values(":now", n(now.timestamp()))
            // A refusal brings the claim item along: why it was refused costs no extra read.
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        let (pk, sk) = keys::verification(id);
        let bind = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            // The e-mail's link in place of an earlier attempt's: a retry never grows the item.
            .update_expression("SET #links.#msg = :link")
            // Stored timestamps share one format and sort as strings.
            .condition_expression("#status = :pending AND expires_at > :now")
            .expression_attribute_names("#links", "message_links")
            .expression_attribute_names("#msg", invite_email_key(0))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":link", s(token_hash))
            .expression_attribute_values(":pending", s(Status::Pending.as_str()))
            .expression_attribute_values(":now", s(format_ts(now)))
            .build()
            .map_err(unavailable)?;
        Ok(vec![
            TransactWriteItem::builder().put(claim).build(),
            TransactWriteItem::builder().update(bind).build(),
        ])
    }
}

impl EmailClaimStore for DynamoStore {
    async fn claim_email_and_bind(
        &self,
        id: Uuid,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<EmailStart, StoreError> {
        let items = self.claim_and_bind_items(id, token_hash, now)?;
        let err = match self
            .client()
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
        {
            Ok(_) => return Ok(EmailStart::Claimed),
            Err(err) => err,
        };
        let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
            err.as_service_error()
        else {
            return Err(unavailable(err));
        };
        let failed = |i: usize| {
            cancelled
                .cancellation_reasons()
                .get(i)
                .is_some_and(|r| r.code() == Some("ConditionalCheckFailed"))
        };
        if failed(1) {
            return Ok(EmailStart::NotPending);
        }
        if !failed(0) {
            // A conflicting concurrent transaction: not done, so the caller retries.
            return Err(unavailable(err));
        }
        let item = match cancelled.cancellation_reasons()[0].item() {
            Some(item) => item.clone(),
            // No item returned: it vanished since (released), or the service did not send it.
            None => self.get(keys::email_claim(id)).await?.unwrap_or_default(),
        };
        Ok(EmailStart::Refused(email_claim_refusal(&item)))
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
