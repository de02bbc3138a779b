//! `WebhookHistoryStore` in memory: events by id (put once), attempts per subject (a verification
//! or a household).

use std::collections::HashMap;
use std::sync::MutexGuard;

use chrono::{DateTime, Utc};

use super::MemoryStore;
use domain::format_ts;
use domain::webhook_log::{
    DeliveryAttempt, DeliveryPage, SHORT_LOG_ATTEMPTS, StoredWebhookEvent, WebhookSubject,
};
use ports::{StoreError, WebhookHistoryStore};

#[derive(Default)]
pub(super) struct History {
    events: HashMap<String, StoredWebhookEvent>,
    /// Per subject: (sort key, account, attempt), kept sorted by the sort key.
    attempts: HashMap<WebhookSubject, Vec<(String, String, DeliveryAttempt)>>,
}

impl MemoryStore {
    fn history(&self) -> MutexGuard<'_, History> {
        self.webhook_history
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts one redelivery of the event if it exists and `allowed` holds for it: the event after.
    pub(super) fn count_redelivery_if(
        &self,
        event_id: &str,
        allowed: impl FnOnce(&StoredWebhookEvent) -> bool,
    ) -> Option<StoredWebhookEvent> {
        match self.history().events.get_mut(event_id) {
            Some(event) if allowed(event) => {
                event.redeliveries += 1;
                Some(event.clone())
            }
            _ => None,
        }
    }

    /// Removes the verification's stored events but its `erased` one (`ErasureStore`).
    pub(super) fn remove_events_of(&self, id: uuid::Uuid) {
        self.history().events.retain(|event_id, event| {
            event.subject != WebhookSubject::Verification(id) || event_id.ends_with("_erased")
        });
    }
}

impl MemoryStore {
    /// Removes the household's stored events (its `household.completed`), with a member's erasure.
    pub(super) fn remove_household_events(&self, id: uuid::Uuid) {
        let household = WebhookSubject::Household(id);
        self.history()
            .events
            .retain(|_, event| event.subject != household);
    }
}

impl WebhookHistoryStore for MemoryStore {
    async fn put_webhook_event(&self, event: &StoredWebhookEvent) -> Result<bool, StoreError> {
        // The subject is read under the table's lock, held while the event is put, as the
        // adapter's one transaction checks it.
        let tables = self.lock();
        if !event.outlives_erasure() && Self::subject_erased(&tables, event.subject) {
            return Ok(false);
        }
        self.history()
            .events
            .entry(event.message.webhook_id.clone())
            .or_insert_with(|| event.clone());
        Ok(true)
    }

    async fn get_webhook_event(
        &self,
        event_id: &str,
    ) -> Result<Option<StoredWebhookEvent>, StoreError> {
        Ok(self.history().events.get(event_id).cloned())
    }

    async fn request_redelivery(
        &self,
        event_id: &str,
        _now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(self.count_redelivery_if(event_id, |_| true).is_some())
    }

    async fn record_delivery_attempt(
        &self,
        account_id: &str,
        attempt: &DeliveryAttempt,
    ) -> Result<(), StoreError> {
        let key = format!(
            "{}#{}#{:03}",
            format_ts(attempt.attempted_at),
            attempt.event_id,
            attempt.attempt
        );
        let mut history = self.history();
        let list = history.attempts.entry(attempt.subject).or_default();
        list.retain(|(k, _, _)| *k != key);
        list.push((key, account_id.to_string(), attempt.clone()));
        list.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(())
    }

    async fn list_delivery_attempts(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> Result<DeliveryPage, StoreError> {
        let history = self.history();
        let all = history
            .attempts
            .get(&subject)
            .map(Vec::as_slice)
            .unwrap_or_default();
        Ok(DeliveryPage {
            items: all
                .iter()
                .rev()
                .skip(offset as usize)
                .take(limit as usize)
                .map(|(_, _, a)| a.clone())
                .collect(),
            total: all.len() as u64,
        })
    }

    async fn delivery_page_if_short(
        &self,
        subject: WebhookSubject,
        offset: u32,
        limit: u32,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        let logged = self.history().attempts.get(&subject).map_or(0, Vec::len);
        if logged > SHORT_LOG_ATTEMPTS as usize {
            return Ok(None);
        }
        Ok(Some(
            self.list_delivery_attempts(subject, offset, limit).await?,
        ))
    }
}
