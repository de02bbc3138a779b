//! `DocumentStore` and `FingerprintStore` in memory: a verification's document entries, and each
//! fingerprint's submissions with the time each is kept until.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::MemoryStore;
use domain::{Mode, Status, Verification};
use ports::StoreError;

impl ports::DocumentStore for MemoryStore {
    async fn put_document(
        &self,
        current: &Verification,
        document_id: &str,
        record: &domain::documents::record::DocumentRecord,
    ) -> Result<bool, StoreError> {
        let mut t = self.lock();
        match t.verifications.get_mut(&current.verification_id) {
            Some(v)
                if v.status == Status::InProgress
                    && v.documents_rev == current.documents_rev
                    && v.erased_at.is_none() =>
            {
                v.documents.insert(document_id.to_string(), record.clone());
                v.uploads = current.uploads.max(record.number);
                v.documents_rev += 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

pub(super) type FingerprintSubmissions =
    HashMap<(Mode, String), HashMap<Uuid, (domain::documents::reuse::TenantMarks, DateTime<Utc>)>>;

impl ports::FingerprintStore for MemoryStore {
    async fn record_fingerprints(
        &self,
        mode: Mode,
        fingerprints: &[String],
        verification_id: Uuid,
        marks: &domain::documents::reuse::TenantMarks,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<domain::documents::reuse::TenantMarks>, StoreError> {
        let mut t = self.lock();
        let mut earlier = Vec::new();
        for fingerprint in fingerprints {
            let submissions = t
                .fingerprints
                .entry((mode, fingerprint.clone()))
                .or_default();
            earlier.extend(
                submissions
                    .iter()
                    .filter(|(id, (_, kept))| **id != verification_id && *kept > now)
                    .map(|(_, (m, _))| m.clone()),
            );
            submissions.insert(verification_id, (marks.clone(), until));
        }
        Ok(earlier)
    }
}
