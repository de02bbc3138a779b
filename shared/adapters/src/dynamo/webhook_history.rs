//! The webhook history items: outgoing events (put once, when first queued; a redelivery request
//! is a counted update the stream turns into a queued message) and delivery attempts (one
//! partition per subject, a verification or a household, sorted by time, so a page is one Query
//! read backwards).

use aws_sdk_dynamodb::types::{ConditionCheck, Put, Select, TransactWriteItem};
use chrono::{DateTime, Utc};

use super::contention::send_update;
use super::items::{Item, from_item, n, s, to_item};
use super::metering::refused_item;
use super::{DynamoStore, unavailable, written};
use domain::format_ts;
use domain::webhook_log::{
    DeliveryAttempt, DeliveryPage, SHORT_LOG_ATTEMPTS, StoredWebhookEvent, WebhookSubject,
    history_ttl,
};
use ports::{StoreError, WebhookHistoryStore};
use service::table_schema::{self as schema, keys};

/// The stored item of an event.
pub fn webhook_event_item(event: &StoredWebhookEvent) -> Result<Item, StoreError> {
    let mut item = to_item(event)?;
    let (pk, sk) = keys::webhook_event(&event.message.webhook_id);
    item.insert(schema::PK.into(), s(pk));
    item.insert(schema::SK.into(), s(sk));
    item.insert(
        schema::TTL_ATTRIBUTE.into(),
        n(history_ttl(event.stored_at)),
    );
    Ok(item)
}

/// The stored item of an attempt (with the account it belongs to).
pub fn delivery_attempt_item(
    account_id: &str,
    attempt: &DeliveryAttempt,
) -> Result<Item, StoreError> {
    let mut item = to_item(attempt)?;
    item.insert(schema::PK.into(), s(keys::deliveries(attempt.subject)));
    item.insert(
        schema::SK.into(),
        s(keys::delivery_attempt(
            &format_ts(attempt.attempted_at),
            &attempt.event_id,
            attempt.attempt,
        )),
    );
    item.insert("account_id".into(), s(account_id));
    item.insert(
        schema::TTL_ATTRIBUTE.into(),
        n(history_ttl(attempt.attempted_at)),
    );
    Ok(item)
}

impl WebhookHistoryStore for DynamoStore {
    async fn put_webhook_event(&self, event: &StoredWebhookEvent) -> Result<bool, StoreError> {
        if event.outlives_erasure() {
            let result = self
                .put_item(webhook_event_item(event)?)
                .condition_expression("attribute_not_exists(PK)")
                .send()
                .await;
            // Stored already (a retry): the first one stands.
            return written(result).map(|_| true);
        }
        self.put_unless_erased(event).await
    }

    async fn get_webhook_event(
        &self,
        event_id: &str,
    ) -> Result<Option<StoredWebhookEvent>, StoreError> {
        self.read(keys::webhook_event(event_id)).await
    }

    async fn request_redelivery(
        &self,
        event_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        // The metered redelivery's transaction writes this item too: contention is retried.
        let result = send_update(
            self.update_item(&keys::webhook_event(event_id))
                .update_expression("ADD redeliveries :one SET redelivery_requested_at = :now")
                .condition_expression("attribute_exists(PK)")
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":now", s(format_ts(now))),
        )
        .await?;
        written(result)
    }

    async fn record_delivery_attempt(
        &self,
        account_id: &str,
        attempt: &DeliveryAttempt,
    ) -> Result<(), StoreError> {
        self.put_item(delivery_attempt_item(account_id, attempt)?)
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn list_delivery_attempts(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> Result<DeliveryPage, StoreError> {
        let pk = keys::deliveries(subject);
        let wanted = (offset + limit) as usize;
        let (page, total) = tokio::join!(self.newest_attempts(&pk, wanted), self.count(&pk));
        let items = page?
            .into_iter()
            .skip(offset as usize)
            .take(limit as usize)
            .map(from_item)
            .collect::<Result<Vec<DeliveryAttempt>, _>>()?;
        Ok(DeliveryPage {
            items,
            total: total?,
        })
    }

    async fn delivery_page_if_short(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        let read = self
            .client()
            .query()
            .table_name(self.table())
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s(keys::deliveries(subject)))
            .scan_index_forward(false)
            .limit(SHORT_LOG_ATTEMPTS as i32)
            .send()
            .await
            .map_err(unavailable)?;
        // No key to go on from: the whole log was read (DynamoDB gives one whenever the limit
        // was reached, even if nothing follows; then the log is listed the usual way).
        if read.last_evaluated_key.is_some() {
            return Ok(None);
        }
        let all = read.items.unwrap_or_default();
        let total = all.len() as u64;
        let items = all
            .into_iter()
            .skip(offset as usize)
            .take(limit as usize)
            .map(from_item)
            .collect::<Result<Vec<DeliveryAttempt>, _>>()?;
        Ok(Some(DeliveryPage { items, total }))
    }
}

impl DynamoStore {
    /// One transaction: the event's put (only when not stored yet) and a check that its subject
    /// (the verification or household item) is not erased. False when the subject is erased;
    /// true when the event is stored, by this call or before.
    async fn put_unless_erased(&self, event: &StoredWebhookEvent) -> Result<bool, StoreError> {
        let put = Put::builder()
            .table_name(self.table())
            .set_item(Some(webhook_event_item(event)?))
            .condition_expression("attribute_not_exists(PK)")
            .build()
            .map_err(unavailable)?;
        let (pk, sk) = match event.subject {
            WebhookSubject::Verification(id) => keys::verification(id),
            WebhookSubject::Household(id) => keys::household(id),
        };
        let check = ConditionCheck::builder()
            .table_name(self.table())
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .condition_expression("attribute_not_exists(erased_at)")
            .build()
            .map_err(unavailable)?;
        let items = vec![
            TransactWriteItem::builder().put(put).build(),
            TransactWriteItem::builder().condition_check(check).build(),
        ];
        let Err(reasons) = self.transact_with_reasons(items).await? else {
            return Ok(true);
        };
        match (refused_item(&reasons, 0), refused_item(&reasons, 1)) {
            (_, Some(_)) => Ok(false),
            // Stored already (a retry): the first one stands.
            (Some(_), None) => Ok(true),
            (None, None) => Err(StoreError::Unavailable(
                "the event's transaction was refused for no condition of its own".into(),
            )),
        }
    }

    /// The newest `wanted` items of a partition (one Query read backwards, paged if DynamoDB
    /// splits it).
    async fn newest_attempts(&self, pk: &str, wanted: usize) -> Result<Vec<Item>, StoreError> {
        let mut out = Vec::new();
        let mut start = None;
        while out.len() < wanted {
            let page = self
                .client()
                .query()
                .table_name(self.table())
                .key_condition_expression("PK = :pk")
                .expression_attribute_values(":pk", s(pk))
                .scan_index_forward(false)
                .limit((wanted - out.len()) as i32)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            out.extend(page.items.unwrap_or_default());
            start = page.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        out.truncate(wanted);
        Ok(out)
    }

    /// The number of items of a partition (a COUNT Query: keys only, no items returned).
    async fn count(&self, pk: &str) -> Result<u64, StoreError> {
        let mut total = 0u64;
        let mut start = None;
        loop {
            let page = self
                .client()
                .query()
                .table_name(self.table())
                .key_condition_expression("PK = :pk")
                .expression_attribute_values(":pk", s(pk))
                .select(Select::Count)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            total += page.count.max(0) as u64;
            start = page.last_evaluated_key;
            if start.is_none() {
                return Ok(total);
            }
        }
    }
}
