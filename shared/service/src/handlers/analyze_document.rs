//! `analyze-document`: analyses each uploaded document, from the bucket's ObjectCreated
//! notifications (S3 -> SQS -> this function).
//!
//! Per object, in this order:
//! 1. the key must be an upload's (`uploads/<verification>/<document>`), the verification in
//!    progress, and the object one not recorded yet (idempotent per key and ETag: the same event
//!    twice records once);
//! 2. what arrived is checked before anything else: a size past 10 MB is refused from the
//!    event's size, without a read (moto, like any emulator, enforces no POST policy);
//! 3. the upload is recorded as `analysing` with one conditional write that also counts it
//!    against `record::MAX_UPLOADS`; the verification stays `in_progress` meanwhile;
//! 4. the object is read (bounded) and analysed in a child process the kernel stops at its
//!    memory and CPU-time limits (`adapters::analysis_child`), waited for within a time limit;
//!    the first bytes decide its type (`documents::intake`); the reuse check then records the
//!    file's fingerprint (and a pay stub's figures') and compares the earlier submissions;
//! 5. the result is recorded with a conditional write, only if that upload is still the one
//!    being analysed.
//!
//! A failure is retried by the queue. The queue's last receive (`max_receives`) does not try the
//! analysis again: it records the document `undetermined`, with the reason, so no verification
//! waits on a document for good.

use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use serde::Deserialize;
use uuid::Uuid;

use crate::handlers::queue_message::receive_count;
use domain::documents::record::{
    self, DocumentRecord, DocumentState, MAX_UPLOAD_BYTES, MAX_UPLOADS, parse_object_key,
};
use domain::documents::reuse::{
    self, FingerprintKey, REUSE_WINDOW_DAYS, file_fingerprint, stub_fingerprint, tenant_marks,
};
use domain::documents::{Analysis, Refusal};
use domain::{Status, Verification};
use ports::{Clock, DocumentStore, FingerprintStore, ObjectError, ObjectStore, VerificationStore};

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

#[derive(Deserialize)]
struct Notification {
    #[serde(rename = "Records", default)]
    records: Vec<S3Record>,
}

#[derive(Deserialize)]
struct S3Record {
    #[serde(rename = "eventName", default)]
    event_name: String,
    s3: S3Entity,
}

#[derive(Deserialize)]
struct S3Entity {
    object: S3Object,
}

#[derive(Deserialize)]
struct S3Object {
    key: String,
    #[serde(default)]
    size: u64,
    #[serde(rename = "eTag", default)]
    etag: String,
}

/// One object to analyse, from its notification.
#[derive(Debug, Clone)]
pub struct Arrival {
    pub verification_id: Uuid,
    pub document_id: String,
    pub key: String,
    pub size: u64,
    pub etag: String,
}

/// Keys in notifications are URL-encoded, with `+` for a space.
fn decode_key(raw: &str) -> String {
    let spaced = raw.replace('+', " ");
    let bytes = spaced.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => match u8::from_str_radix(&String::from_utf8_lossy(hex), 16) {
                Ok(b) => {
                    out.push(b);
                    i += 3;
                }
                Err(_) => {
                    out.push(b'%');
                    i += 1;
                }
            },
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The uploads a queue message announces (none for S3's test event or another event).
pub fn arrivals(message: &SqsMessage) -> Vec<Arrival> {
    let Some(notification) = message
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Notification>(b).ok())
    else {
        return vec![];
    };
    notification
        .records
        .into_iter()
        .filter(|r| r.event_name.starts_with("ObjectCreated:"))
        .filter_map(|r| {
            let key = decode_key(&r.s3.object.key);
            let (verification_id, document_id) = parse_object_key(&key)?;
            Some(Arrival {
                verification_id,
                document_id,
                key,
                size: r.s3.object.size,
                etag: r.s3.object.etag,
            })
        })
        .collect()
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
            if let Err(e) = analyse_one(deps, &arrival, last).await {
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
    arrival: &Arrival,
    last: bool,
) -> Result<(), String>
where
    S: VerificationStore + DocumentStore + FingerprintStore,
    O: ObjectStore,
    C: Clock,
{
    let v = match claim(deps, arrival).await? {
        Entry::Done => {
            tracing::info!("document recorded before; nothing to do");
            return Ok(());
        }
        Entry::Skip(why) => {
            tracing::info!(why, "document not taken in");
            return Ok(());
        }
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
            .get_object(&arrival.key, MAX_UPLOAD_BYTES)
            .await
        {
            Ok(bytes) => run_analysis(deps, bytes, &v).await?,
            Err(ObjectError::TooLarge(bytes)) => Outcome::Refused(too_large(bytes)),
            Err(ObjectError::Missing) => Outcome::Refused("the file is no longer there".into()),
            Err(e @ ObjectError::Unavailable(_)) => return Err(e.to_string()),
        }
    };
    finish(deps, arrival, outcome).await
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
        let number = match v.documents.get(&arrival.document_id) {
            Some(d) if d.etag == arrival.etag && d.state == DocumentState::Analysing => {
                return Ok(Entry::Analysing(Box::new(v)));
            }
            Some(d) if d.etag == arrival.etag => return Ok(Entry::Done),
            // The same form posted again within its lifetime: the new object replaces the old.
            Some(d) => d.number,
            None if v.uploads >= MAX_UPLOADS => {
                return Ok(Entry::Skip("the verification's uploads are used up"));
            }
            None => v.uploads + 1,
        };
        let mut entry = DocumentRecord::arrived(number, &arrival.etag, arrival.size, now);
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
        let Some(current) = v
            .documents
            .get(&arrival.document_id)
            .filter(|d| d.etag == arrival.etag && d.state == DocumentState::Analysing)
        else {
            // Recorded by another attempt, or replaced by a newer upload.
            return Ok(());
        };
        if v.effective_status(deps.clock.now()) != Status::InProgress {
            return Ok(());
        }
        let mut entry = current.clone();
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
            .put_document(&v, &arrival.document_id, &entry)
            .await
            .map_err(|e| e.to_string())?
        {
            return Ok(());
        }
    }
    Err("the verification kept changing".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_decoded_and_only_uploads_of_created_objects_count() {
        assert_eq!(decode_key("uploads/a+b%2Fc"), "uploads/a b/c");
        let id = Uuid::new_v4();
        let body = serde_json::json!({"Records": [
            {"eventName": "ObjectCreated:Post", "s3": {"object": {"key": format!("uploads/{id}/d1"), "size": 10, "eTag": "e1"}}},
            {"eventName": "ObjectRemoved:Delete", "s3": {"object": {"key": format!("uploads/{id}/d2"), "size": 0, "eTag": "e2"}}},
            {"eventName": "ObjectCreated:Put", "s3": {"object": {"key": "elsewhere/x", "size": 1, "eTag": "e3"}}},
        ]});
        let mut message = SqsMessage::default();
        message.body = Some(body.to_string());
        let found = arrivals(&message);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].verification_id, found[0].document_id.as_str()),
            (id, "d1")
        );
        message.body = Some(r#"{"Service":"Amazon S3","Event":"s3:TestEvent"}"#.into());
        assert!(arrivals(&message).is_empty());
    }
}
