//! Retention: arming a closed verification's erasure at the end of its account's retention,
//! erasing it when its marker fires (or re-arming it when the account's retention changed), and
//! the one road of every erasure, the sweep's and the landlord's (`erase_personal_data`): the
//! table's items, then the uploaded documents.
//!
//! Why markers that re-check: the erasure time depends on the account's retention, which the
//! operator may change after the marker was put. A marker only ever moves earlier
//! (`ErasureStore::arm_erasure`), so a shortened retention takes effect when the admin tool
//! re-arms the account's markers. A lengthened one needs no re-arming: the marker fires at the old
//! time, this module reads the account's current retention, and arms it again at the later time.

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use domain::Verification;
use domain::retention::{RetentionDays, closed_at};
use ports::{DocumentEraser, ErasureOutcome, ErasureStore, StoreError, VerificationStore};

/// TTL deletes late, never early: a marker gone more than this before its time was not the TTL's.
const EARLY_MARKER_SLACK: Duration = Duration::minutes(1);

/// The one road of every erasure: the store's (the verification, then every item that held its
/// personal data; see `ErasureStore::erase_verification`), then the verification's uploaded
/// documents (`DocumentEraser`). The uploads go for `Erased` and `AlreadyErased` alike, so a call
/// stopped half-way is finished by the next. A failure to erase them is the call's error: the
/// sweep reports the record and the API answers 500, so neither counts the erasure done while an
/// upload remains.
pub async fn erase_personal_data<S: ErasureStore, D: DocumentEraser>(
    store: &S,
    documents: &D,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<ErasureOutcome, StoreError> {
    let outcome = store.erase_verification(id, now).await?;
    if let ErasureOutcome::Erased(_) | ErasureOutcome::AlreadyErased(_) = outcome {
        let erased = documents
            .erase_uploads(id)
            .await
            .map_err(|e| StoreError::Unavailable(format!("uploaded documents: {e}")))?;
        if erased > 0 {
            tracing::info!(verification_id = %id, erased, "uploaded documents erased");
        }
    }
    Ok(outcome)
}

/// The account's retention; the default when the account is gone (its verifications still end).
async fn retention_of<S: ErasureStore>(
    store: &S,
    account_id: &str,
) -> Result<RetentionDays, StoreError> {
    Ok(store
        .retention_days(account_id)
        .await?
        .unwrap_or(RetentionDays::DEFAULT))
}

/// Arms the erasure of a closed verification at the end of its account's retention (nothing for
/// an open or an erased one). `expire-verifications` calls it when the expiry marker fires, by
/// which time every verification has closed.
pub async fn arm_erasure_of<S: ErasureStore>(
    store: &S,
    v: &Verification,
) -> Result<(), StoreError> {
    let (None, Some(closed)) = (v.erased_at, closed_at(v)) else {
        return Ok(());
    };
    let due = retention_of(store, &v.account_id)
        .await?
        .erasure_due(closed);
    store.arm_erasure(v.verification_id, due).await
}

/// An erasure marker's TTL deletion: erases the verification when it is due under its account's
/// current retention, else arms the marker again at the time now due. An erased one is erased
/// again: the record comes back when an earlier attempt failed half-way (an upload left, say), and
/// the erasure's rest is safe to repeat.
pub async fn erasure_marker_fired<S: VerificationStore + ErasureStore, D: DocumentEraser>(
    store: &S,
    documents: &D,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(v) = store.get_verification(id).await? else {
        return Ok(());
    };
    if v.erased_at.is_none() {
        let Some(closed) = closed_at(&v) else {
            return Ok(());
        };
        let due = retention_of(store, &v.account_id)
            .await?
            .erasure_due(closed);
        if due > now + EARLY_MARKER_SLACK {
            tracing::info!(verification_id = %id, "retention changed; erasure armed again");
            return store.arm_erasure(id, due).await;
        }
    }
    match erase_personal_data(store, documents, id, now).await? {
        ErasureOutcome::Erased(_) => {
            tracing::info!(verification_id = %id, "personal data erased at the end of retention")
        }
        ErasureOutcome::AlreadyErased(_) | ErasureOutcome::NotFound => {}
        ErasureOutcome::Open(_) => {
            tracing::warn!(verification_id = %id, "erasure marker of an open verification; ignored")
        }
    }
    Ok(())
}

/// The admin tool's re-arming after a change of the account's retention: every closed verification
/// of the account not yet erased gets its marker at the time now due (a marker only moves
/// earlier; a later time is armed when the earlier marker fires). How many were armed.
pub async fn rearm_account<S: ErasureStore>(
    store: &S,
    account_id: &str,
) -> Result<usize, StoreError> {
    let retention = retention_of(store, account_id).await?;
    let closed = store.closed_unerased(account_id).await?;
    for (id, closed_at) in &closed {
        store
            .arm_erasure(*id, retention.erasure_due(*closed_at))
            .await?;
    }
    Ok(closed.len())
}
