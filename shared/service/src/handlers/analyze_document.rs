//! `analyze-document`: analyses each uploaded document, from the bucket's ObjectCreated
//! notifications (S3 -> SQS -> this function).
//!
//! Per object, in this order:
//! 1. the key must be an upload's (`uploads/<verification>/<document>`), the verification in
//!    progress, and the object version one not recorded yet (idempotent per version: the same
//!    event twice records once). A version the service does not take in (the verification
//!    closed, erased or unknown, its uploads used up) is deleted, with the reason in the log;
//! 2. what arrived is checked before anything else: a size past 10 MB is refused from the
//!    event's size, without a read (moto, like any emulator, enforces no POST policy);
//! 3. the upload is recorded as `analysing` with one conditional write that also counts it
//!    against `record::MAX_UPLOADS`; a new version of a form already posted counts too, and the
//!    record it replaces is kept in its `replaced`; the verification stays `in_progress`;
//! 4. that version is read (bounded) and analysed in a child process the kernel stops at its
//!    memory and CPU-time limits (`adapters::analysis_child`), waited for within a time limit;
//!    the first bytes decide its type (`documents::intake`); the reuse check then records the
//!    file's fingerprint (and a pay stub's figures') and compares the earlier submissions;
//! 5. the result is recorded with a conditional write, on that version's record (the current
//!    one, or one a later upload replaced meanwhile) while it is still being analysed.
//!
//! A failure is retried by the queue. The queue's last receive (`max_receives`) does not try the
//! analysis again: it records the document `undetermined`, with the reason, so no verification
//! waits on a document for good.

use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};

use crate::handlers::queue_message::receive_count;
use domain::documents::record::{
    self, DocumentRecord, DocumentState, MAX_UPLOAD_BYTES, MAX_UPLOADS,
};
use domain::documents::reuse::{
    self, FingerprintKey, REUSE_WINDOW_DAYS, file_fingerprint, stub_fingerprint, tenant_marks,
};
use domain::documents::{Analysis, Refusal};
use domain::{Status, Verification};
use ports::{Clock, DocumentStore, FingerprintStore, ObjectError, ObjectStore, VerificationStore};

mod notification;

pub use notification::{Arrival, arrivals};

/// The documents queue's maxReceiveCount (template.yaml and the local stack).
pub const DOCUMENT_MAX_RECEIVES: usize = 3;

/// The longest one analysis may run, waiting included (the function's timeout leaves room for
/// the writes); the child's CPU-time limit stops the work itself first.
pub const ANALYSIS_TIME_LIMIT: Duration = Duration::from_secs(30);

/// Conditional writes that meet a concurrent one read again and decide again, this many times.
const WRITE_TRIES: usize = 4;

/// The analysis itself: the file's analysis or refusal, or `Err` when it could not run at all
/// (retried). The functions run it in a child process (`adapters::analysis_child`); a test puts
/// a failing one in its place.
pub type Analyse =
    Arc<dyn Fn(&[u8], Option<&str>) -> Result<Result<Analysis, Refusal>, String> + Send + Sync>;

/// `documents::analyse` in this process, without the child's limits (handler tests).
pub fn in_process() -> Analyse {
    Arc::new(|bytes, tenant_name| Ok(domain::documents::analyse(bytes, tenant_name)))
}

/// What `analyze-document` needs.
pub struct AnalysisDeps<S, O, C> {
    pub store: S,
    pub objects: O,
    pub clock: C,
    pub analyse: Analyse,
    pub time_limit: Duration,
    pub max_receives: usize,
    /// The key of the reuse check's fingerprints and marks.
    pub fingerprint_key: FingerprintKey,
}

/// Entry point of the `analyze-document` function.
pub async fn analyze_documents<S, O, C>(
    deps: &AnalysisDeps<S, O, C>,
    event: SqsEvent,
) -> SqsBatchResponse
where
    S: VerificationStore + DocumentStore + FingerprintStore,
    O: ObjectStore,
    C: Clock,
{
    let mut response = SqsBatchResponse::default();
    for message in &event.records {
        let last = receive_count(message) >= deps.max_receives;
        let mut failed = false;
        for arrival in arrivals(message) {
            let span = tracing::info_span!("document", verification_id = %arrival.verification_id, document_id = %arrival.document_id);
            let _guard = span.enter();
            if let Err(e) = analyse_one(deps, arrival, last).await {
                tracing::warn!(error = %e, "document not analysed; retried");
                failed = true;
            }
        }
        if failed {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = message.message_id.clone().unwrap_or_default();
            response.batch_item_failures.push(failure);
        }
    }
    response
}

/// What was found when the upload's entry was read.
enum Entry {
    /// Recorded before (this object, analysed or refused): nothing to do.
    Done,
    /// Not to be recorded (closed verification, cap reached, unknown verification).
    Skip(&'static str),
    /// Recorded as `analysing` (now or by an earlier attempt), with the verification as read
    /// for it: the analysis takes the tenant's name and e-mail from it, not from another read.
    Analysing(Box<Verification>),
}

async fn analyse_one<S, O, C>(
    deps: &AnalysisDeps<S, O, C>,
    mut arrival: Arrival,
    last: bool,
) -> Result<(), String>
where
    S: VerificationStore + DocumentStore + FingerprintStore,
    O: ObjectStore,
    C: Clock,
{
    if arrival.version_id.is_none() {
        arrival.version_id = (deps.objects)
            .current_version(&arrival.key, &arrival.etag)
            .await
            .map_err(|e| e.to_string())?;
    }
    let arrival = &arrival;
    let v = match claim(deps, arrival).await? {
        Entry::Done => {
            tracing::info!("document recorded before; nothing to do");
            return Ok(());
        }
        Entry::Skip(why) => return refuse_version(&deps.objects, arrival, why).await,
        Entry::Analysing(v) => v,
    };
    let outcome = if last {
        Outcome::Analysed(Box::new(record::unfinished(&format!(
            "it failed {} times",
            deps.max_receives - 1
        ))))
    } else {
        match deps
            .objects
            .get_object(
                &arrival.key,
                arrival.version_id.as_deref(),
                MAX_UPLOAD_BYTES,
            )
            .await
        {
            Ok(object) => run_analysis(deps, object.bytes, &v).await?,
            Err(ObjectError::TooLarge(bytes)) => Outcome::Refused(too_large(bytes)),
            Err(ObjectError::Missing) => Outcome::Refused("the file is no longer there".into()),
            Err(e @ ObjectError::Unavailable(_)) => return Err(e.to_string()),
        }
    };
    finish(deps, arrival, outcome).await
}

/// Deletes a version the service does not take in, so no file stays in the bucket outside the
/// verification's trace (a form signed before the verification closed, posted after). A failed
/// delete is retried by the queue. Without a version id (an unversioned bucket) the object is
/// left: deleting by key alone could remove the version that was analysed.
async fn refuse_version<O: ObjectStore>(
    objects: &O,
    arrival: &Arrival,
    why: &'static str,
) -> Result<(), String> {
    let Some(version) = &arrival.version_id else {
        tracing::info!(why, "document not taken in; no version to delete");
        return Ok(());
    };
    (objects.delete_version(&arrival.key, version).await).map_err(|e| e.to_string())?;
    tracing::info!(why, "document not taken in; its version deleted");
    Ok(())
}

fn too_large(bytes: u64) -> String {
    Refusal::TooLarge {
        bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
        limit: MAX_UPLOAD_BYTES as usize,
    }
    .to_string()
}

enum Outcome {
    Analysed(Box<Analysis>),
    Refused(String),
}

/// Runs the analysis on a blocking thread within the time limit, then the reuse check; a panic,
/// a timeout or a store failure is an error (retried). `v` is the verification as the claim
/// read it: the tenant's name and e-mail do not change while it is in progress.
async fn run_analysis<S, O, C>(
    deps: &AnalysisDeps<S, O, C>,
    bytes: Vec<u8>,
    v: &Verification,
) -> Result<Outcome, String>
where
    S: FingerprintStore,
    C: Clock,
{
    let tenant_name = v.tenant_name.clone();
    let analyse = deps.analyse.clone();
    let key = deps.fingerprint_key.clone();
    let task = tokio::task::spawn_blocking(move || {
        let file = file_fingerprint(key.bytes(), &bytes);
        analyse(&bytes, tenant_name.as_deref()).map(|r| r.map(|a| (a, file)))
    });
    match tokio::time::timeout(deps.time_limit, task).await {
        Ok(Ok(Err(not_run))) => Err(format!("the analysis did not run: {not_run}")),
        Ok(Ok(Ok(Ok((mut analysis, file))))) => {
            check_reuse(deps, v, &mut analysis, file).await?;
            tracing::info!(
                kind = ?analysis.kind,
                verdict = ?analysis.verdict,
                "document analysed"
            );
            Ok(Outcome::Analysed(Box::new(analysis)))
        }
        Ok(Ok(Ok(Err(refusal)))) => {
            tracing::info!(refusal = %refusal, "document refused");
            Ok(Outcome::Refused(refusal.to_string()))
        }
        Ok(Err(e)) => Err(format!("the analysis stopped: {e}")),
        Err(_) => Err(format!(
            "the analysis ran past {} s",
            deps.time_limit.as_secs()
        )),
    }
}

/// The reuse check: records this submission of the file (and of a pay stub's figures) under the
/// tenant's marks, and fails when another tenant submitted either within the window.
async fn check_reuse<S, O, C>(
    deps: &AnalysisDeps<S, O, C>,
    v: &Verification,
    analysis: &mut Analysis,
    file: String,
) -> Result<(), String>
where
    S: FingerprintStore,
    C: Clock,
{
    let key = deps.fingerprint_key.bytes();
    let mut fingerprints = vec![file];
    if let domain::documents::Fields::PayStub(stub) = &analysis.fields {
        fingerprints.extend(stub_fingerprint(key, stub));
    }
    let marks = tenant_marks(key, &v.tenant_email, v.tenant_name.as_deref());
    let now = deps.clock.now();
    let earlier = deps
        .store
        .record_fingerprints(
            v.mode,
            &fingerprints,
            v.verification_id,
            &marks,
            now,
            now + chrono::Duration::days(REUSE_WINDOW_DAYS),
        )
        .await
        .map_err(|e| e.to_string())?;
    analysis.set_check(reuse::reuse_check(&marks, &earlier));
    Ok(())
}

/// The verification the upload belongs to, as stored now.
async fn read<S: VerificationStore>(
    store: &S,
    arrival: &Arrival,
) -> Result<Option<Verification>, String> {
    store
        .get_verification(arrival.verification_id)
        .await
        .map_err(|e| e.to_string())
}

/// Records the upload (step 3), or finds it recorded.
async fn claim<S, O, C>(deps: &AnalysisDeps<S, O, C>, arrival: &Arrival) -> Result<Entry, String>
where
    S: VerificationStore + DocumentStore,
    C: Clock,
{
    for _ in 0..WRITE_TRIES {
        let now = deps.clock.now();
        let Some(v) = read(&deps.store, arrival).await? else {
            return Ok(Entry::Skip("no such verification"));
        };
        if v.effective_status(now) != Status::InProgress {
            return Ok(Entry::Skip("the verification is not in progress"));
        }
        let version = arrival.version_id.as_deref();
        let previous = v.documents.get(&arrival.document_id).cloned();
        if let Some(found) = previous
            .clone()
            .as_mut()
            .and_then(|d| d.find_object_mut(&arrival.etag, version))
        {
            return Ok(match found.state {
                DocumentState::Analysing => Entry::Analysing(Box::new(v)),
                _ => Entry::Done,
            });
        }
        // Every version counts, the same form posted again too: the caps bound the tries.
        if v.uploads >= MAX_UPLOADS {
            return Ok(Entry::Skip("the verification's uploads are used up"));
        }
        let mut entry = DocumentRecord::arrived(v.uploads + 1, &arrival.etag, arrival.size, now);
        entry.version_id = arrival.version_id.clone();
        if let Some(previous) = &previous {
            entry = entry.replacing(previous);
        }
        if arrival.size > MAX_UPLOAD_BYTES {
            entry.state = DocumentState::Refused;
            entry.refusal = Some(too_large(arrival.size));
        }
        if deps
            .store
            .put_document(&v, &arrival.document_id, &entry)
            .await
            .map_err(|e| e.to_string())?
        {
            return Ok(match entry.state {
                DocumentState::Analysing => Entry::Analysing(Box::new(v)),
                _ => Entry::Done,
            });
        }
    }
    Err("the verification kept changing".into())
}

/// Records the outcome (step 5), while that upload is still the one being analysed.
async fn finish<S, O, C>(
    deps: &AnalysisDeps<S, O, C>,
    arrival: &Arrival,
    outcome: Outcome,
) -> Result<(), String>
where
    S: VerificationStore + DocumentStore,
    C: Clock,
{
    for _ in 0..WRITE_TRIES {
        let Some(v) = read(&deps.store, arrival).await? else {
            return Ok(());
        };
        let Some(mut record) = v.documents.get(&arrival.document_id).cloned() else {
            return Ok(());
        };
        let version = arrival.version_id.as_deref();
        // The current record, or the one a newer upload replaced while this one was analysed.
        let Some(entry) = (record.find_object_mut(&arrival.etag, version))
            .filter(|d| d.state == DocumentState::Analysing)
        else {
            // Recorded by another attempt.
            return Ok(());
        };
        if v.effective_status(deps.clock.now()) != Status::InProgress {
            return Ok(());
        }
        match &outcome {
            Outcome::Analysed(analysis) => {
                entry.state = DocumentState::Analysed;
                entry.analysis = Some(analysis.as_ref().clone());
            }
            Outcome::Refused(why) => {
                entry.state = DocumentState::Refused;
                entry.refusal = Some(why.clone());
            }
        }
        if deps
            .store
            .put_document(&v, &arrival.document_id, &record)
            .await
            .map_err(|e| e.to_string())?
        {
            return Ok(());
        }
    }
    Err("the verification kept changing".into())
}
