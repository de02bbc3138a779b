//! The notice claim in memory, with the adapter's condition (`adapters/dynamo/notices.rs`).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::MemoryStore;
use crate::adapters::dynamo::notice_refusal;
use crate::domain::reach::Notice;
use crate::ports::{NoticeClaim, NoticeStore, StoreError};

impl NoticeStore for MemoryStore {
    async fn claim_notice(
        &self,
        id: Uuid,
        notice: &Notice,
        token_hash: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<NoticeClaim, StoreError> {
        let mut t = self.lock();
        let key = (id, notice.key());
        let lease = t.notice_leases.get(&key).map(|l| l.timestamp());
        let v = t.verifications.get(&id);
        let open = v.is_some_and(|v| {
            notice.open_statuses().contains(&v.status)
                && v.expires_at > now
                && !v.notices_sent.contains(&notice.key())
        });
        if !open || lease.is_some_and(|until| until >= now.timestamp()) {
            return Ok(notice_refusal(v, lease, notice, now));
        }
        t.notice_leases.insert(key, lease_until);
        if let Some(v) = t.verifications.get_mut(&id) {
            v.message_links.insert(notice.key(), token_hash.to_string());
        }
        Ok(NoticeClaim::Claimed)
    }

    async fn mark_notice_sent(&self, id: Uuid, notice: &Notice) -> Result<(), StoreError> {
        let mut t = self.lock();
        t.notice_leases.remove(&(id, notice.key()));
        if let Some(v) = t.verifications.get_mut(&id)
            && !v.notices_sent.contains(&notice.key())
        {
            v.notices_sent.push(notice.key());
        }
        Ok(())
    }

    async fn release_notice(&self, id: Uuid, notice: &Notice) -> Result<(), StoreError> {
        self.lock().notice_leases.remove(&(id, notice.key()));
        Ok(())
    }
}
