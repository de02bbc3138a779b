//! What the upload, the analysis and the erasure of documents need: the documents' writes on the
//! verification, the uploaded objects (read, and erased with the verification's personal data),
//! and the signed upload form.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::upload_form::UploadForm;
use crate::{CountedRefusal, Metered, StoreError};
use domain::documents::record::DocumentRecord;
use domain::documents::reuse::TenantMarks;
use domain::documents::review::DocumentReview;
use domain::metering::PresentedKey;
use domain::plans::Plans;
use domain::{Mode, Status, Verification};

/// The documents of a verification, written one entry at a time.
pub trait DocumentStore: Send + Sync {
    /// One conditional write: sets `documents[document_id]` to `record`, `uploads` to at least
    /// `record.number`, and raises `documents_rev`, only while the verification is in progress and
    /// its `documents_rev` is still `current`'s. false when refused (nothing written): the caller
    /// reads again and decides again.
    fn put_document(
        &self,
        current: &Verification,
        document_id: &str,
        record: &DocumentRecord,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// Why a metered review (`ReviewStore::meter_and_review`) was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewRefusal {
    /// No such verification of the key's account and mode.
    NotFound,
    /// The key's own verification, not completed: its status as read at the request's time.
    NotCompleted(Status),
    /// The key's own completed verification, whose report is not from documents (or was erased).
    NoDocuments,
    /// Reviewed before: the review that stands.
    AlreadyReviewed(Box<DocumentReview>),
}

impl CountedRefusal for ReviewRefusal {}

/// An API review that carries its own metering (`ReviewStore::meter_and_review`).
pub struct MeteredReview<'a> {
    pub key: &'a PresentedKey,
    pub now: DateTime<Utc>,
    pub plans: &'a Plans,
    pub verification_id: Uuid,
    pub review: &'a DocumentReview,
}

/// The landlord's review of a verification's documents.
pub trait ReviewStore: Send + Sync {
    /// Counts the request as `MeterStore::meter_api_request` does AND sets the report's
    /// `document_review` to `review.review`, in ONE transaction (the one metered-write road of
    /// `MeterStore`), only if the verification is of the key's account and mode, completed, its
    /// report has documents and no review yet: of concurrent reviews exactly one is kept.
    fn meter_and_review(
        &self,
        review: &MeteredReview<'_>,
    ) -> impl Future<Output = Result<Metered<(), ReviewRefusal>, StoreError>> + Send;
}

/// The submissions of each document fingerprint, across every account, kept for
/// `documents::reuse::REUSE_WINDOW_DAYS` (test and live apart): keyed hashes only.
pub trait FingerprintStore: Send + Sync {
    /// Records that `verification_id`'s tenant (`marks`) submitted `fingerprints` (in `mode`),
    /// kept until `until`, and answers the marks of every other verification's submission of any
    /// of them not yet past its time at `now`. Writing again the same submission changes nothing.
    fn record_fingerprints(
        &self,
        mode: Mode,
        fingerprints: &[String],
        verification_id: Uuid,
        marks: &TenantMarks,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<TenantMarks>, StoreError>> + Send;
}

/// Why an uploaded object could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    /// Gone (deleted, or never there): nothing to analyse.
    #[error("no such object")]
    Missing,
    /// Larger than the caller's limit: refused without reading it.
    #[error("the object is {0} bytes")]
    TooLarge(u64),
    #[error("storage unavailable: {0}")]
    Unavailable(String),
}

/// One version of an uploaded object, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredObject {
    pub bytes: Vec<u8>,
    /// The S3 version read (None in a bucket without versioning).
    pub version_id: Option<String>,
}

/// The uploaded objects, one version at a time: the documents bucket is versioned, so a form
/// posted twice leaves two versions, each analysed and kept apart.
pub trait ObjectStore: Send + Sync {
    /// The bytes of `version_id` of `key` (the current version when None), refused as
    /// `TooLarge` past `max_bytes` (never read whole then).
    fn get_object(
        &self,
        key: &str,
        version_id: Option<&str>,
        max_bytes: u64,
    ) -> impl Future<Output = Result<StoredObject, ObjectError>> + Send;

    /// The version id of `key`'s current version when its ETag is `etag`; None when the key is
    /// gone, holds another object now, or the bucket keeps no versions. For a notification that
    /// names no version (a local emulator's).
    fn current_version(
        &self,
        key: &str,
        etag: &str,
    ) -> impl Future<Output = Result<Option<String>, ObjectError>> + Send;

    /// Deletes one version of `key` for good (an upload the service does not take in). Deleting
    /// a version already gone is success.
    fn delete_version(
        &self,
        key: &str,
        version_id: &str,
    ) -> impl Future<Output = Result<(), ObjectError>> + Send;
}

/// Erases a verification's uploaded objects (`uploads/<verification id>/...`), for the erasure of
/// its personal data (`handlers::retention::erase_personal_data`).
pub trait DocumentEraser: Send + Sync {
    /// Deletes every version and delete marker under the verification's upload prefix; how many
    /// were deleted. Safe to repeat: none left is success (0). An error leaves some objects: the caller reports it
    /// and calls again, and the next call deletes what remains.
    fn erase_uploads(
        &self,
        verification_id: Uuid,
    ) -> impl Future<Output = Result<usize, ObjectError>> + Send;
}

/// No documents bucket (a stack configured without one): no upload exists, nothing to erase.
impl<D: DocumentEraser> DocumentEraser for Option<D> {
    async fn erase_uploads(&self, verification_id: Uuid) -> Result<usize, ObjectError> {
        match self {
            Some(documents) => documents.erase_uploads(verification_id).await,
            None => Ok(0),
        }
    }
}

/// Signs the browser's upload form for one object key.
pub trait UploadSigner: Send + Sync {
    /// The form that lets a browser POST one file of at most `record::MAX_UPLOAD_BYTES` to
    /// `key` until a few minutes after `now`; S3 then redirects the browser to `redirect`.
    fn upload_form(
        &self,
        key: &str,
        redirect: &str,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<UploadForm, String>> + Send;
}

/// Links that download one uploaded object, signed for a few minutes.
pub trait DownloadSigner: Send + Sync {
    /// A GET link to `version_id` of `key` (the version analysed; the current one when None),
    /// valid `DOWNLOAD_LINK_SECONDS`, that S3 serves as an attachment named `file_name`.
    fn download_link(
        &self,
        key: &str,
        version_id: Option<&str>,
        file_name: &str,
    ) -> impl Future<Output = Result<String, String>> + Send;
}

/// How long a download link works: five minutes.
pub const DOWNLOAD_LINK_SECONDS: u64 = 300;
