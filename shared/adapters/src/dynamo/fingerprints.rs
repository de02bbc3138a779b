//! The submissions of each document fingerprint (`FingerprintStore`): one item per fingerprint
//! and verification, `FINGERPRINT#<mode>#<fingerprint>` / `SUBMISSION#<verification>`, holding
//! only the tenant's keyed marks and its TTL. The item of a verification is written again on a
//! retry (same key, same marks), so a retried analysis adds nothing.
//!
//! Each submission is listed first under its verification, `SUBMITTED#<verification>` /
//! `<the fingerprint's PK>` (keys and TTL only), so the erasure finds and deletes every
//! submission of the verification (`erase_fingerprints`) without knowing its documents.

use chrono::{DateTime, Utc};
use futures::future::try_join_all;
use uuid::Uuid;

use super::items::{Item, n, s, with_key};
use super::{DynamoStore, unavailable};
use domain::Mode;
use domain::documents::reuse::TenantMarks;
use ports::{FingerprintStore, StoreError};
use service::table_schema::{TTL_ATTRIBUTE, keys};

/// Earlier submissions read per fingerprint: one is enough to tell; the cap bounds the read.
const SUBMISSIONS_READ: i32 = 50;

const EMAIL_MARK: &str = "email_mark";
const NAME_MARK: &str = "name_mark";

impl FingerprintStore for DynamoStore {
    async fn record_fingerprints(
        &self,
        mode: Mode,
        fingerprints: &[String],
        verification_id: Uuid,
        marks: &TenantMarks,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<TenantMarks>, StoreError> {
        let own_sk = keys::submission(verification_id);
        // Listed before it is written: every submission an erasure must reach is listed.
        let listed = fingerprints
            .iter()
            .map(|fingerprint| self.list_submission(mode, fingerprint, verification_id, until));
        try_join_all(listed).await?;
        let each = fingerprints.iter().map(|fingerprint| {
            let own_sk = own_sk.clone();
            async move {
                let (earlier, ()) = futures::try_join!(
                    self.submissions(mode, fingerprint, now),
                    self.put_submission(mode, fingerprint, verification_id, marks, until)
                )?;
                Ok::<_, StoreError>(
                    earlier
                        .into_iter()
                        .filter(|(sk, _)| *sk != own_sk)
                        .map(|(_, m)| m)
                        .collect::<Vec<_>>(),
                )
            }
        });
        Ok(try_join_all(each).await?.into_iter().flatten().collect())
    }
}

impl DynamoStore {
    /// Deletes every fingerprint submission of the verification, then its list: each listed
    /// submission first, so a call stopped half-way leaves its list for the next call.
    pub(super) async fn erase_fingerprints(&self, verification_id: Uuid) -> Result<(), StoreError> {
        let list = keys::submitted(verification_id);
        let listed = self.partition_keys(&list, None).await?;
        let submissions = listed.iter().map(|fingerprint_pk| {
            let key = (fingerprint_pk.clone(), keys::submission(verification_id));
            async move { self.delete_item(&key).send().await.map_err(unavailable) }
        });
        try_join_all(submissions).await?;
        let lists = listed.iter().map(|fingerprint_pk| {
            let key = (list.clone(), fingerprint_pk.clone());
            async move { self.delete_item(&key).send().await.map_err(unavailable) }
        });
        try_join_all(lists).await?;
        Ok(())
    }

    async fn list_submission(
        &self,
        mode: Mode,
        fingerprint: &str,
        verification_id: Uuid,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let key = (
            keys::submitted(verification_id),
            keys::fingerprint(mode, fingerprint),
        );
        let mut item = Item::new();
        item.insert(TTL_ATTRIBUTE.into(), n(until.timestamp()));
        self.put_item(with_key(item, key))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// The submissions of one fingerprint not yet past their time (TTL deletes late), by SK.
    async fn submissions(
        &self,
        mode: Mode,
        fingerprint: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, TenantMarks)>, StoreError> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("PK = :pk")
            .filter_expression("#ttl > :now")
            .projection_expression("SK, #email, #name")
            .expression_attribute_names("#ttl", TTL_ATTRIBUTE)
            .expression_attribute_names("#email", EMAIL_MARK)
            .expression_attribute_names("#name", NAME_MARK)
            .expression_attribute_values(":pk", s(keys::fingerprint(mode, fingerprint)))
            .expression_attribute_values(":now", n(now.timestamp()))
            .limit(SUBMISSIONS_READ)
            .send()
            .await
            .map_err(unavailable)?;
        let text = |item: &Item, name: &str| {
            item.get(name)
                .and_then(|v| v.as_s().ok())
                .map(String::to_string)
        };
        Ok(out
            .items
            .unwrap_or_default()
            .iter()
            .filter_map(|item| {
                Some((
                    text(item, "SK")?,
                    TenantMarks {
                        email: text(item, EMAIL_MARK)?,
                        name: text(item, NAME_MARK),
                    },
                ))
            })
            .collect())
    }

    async fn put_submission(
        &self,
        mode: Mode,
        fingerprint: &str,
        verification_id: Uuid,
        marks: &TenantMarks,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut item = Item::new();
        item.insert(EMAIL_MARK.into(), s(&marks.email));
        if let Some(name) = &marks.name {
            item.insert(NAME_MARK.into(), s(name));
        }
        item.insert(TTL_ATTRIBUTE.into(), n(until.timestamp()));
        let key = keys::fingerprint_submission(mode, fingerprint, verification_id);
        self.put_item(with_key(item, key))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}
