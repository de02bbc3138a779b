//! The uploaded documents in S3, a versioned bucket: reading one version of an upload and deleting
//! one not taken in (`ObjectStore`), erasing every version of a verification's uploads
//! (`DocumentEraser`), and signing the browser's upload form with the function's own
//! credentials (`UploadSigner`, through `ports::upload_form`).

use aws_sdk_s3::config::{ProvideCredentials, SharedCredentialsProvider};
use aws_sdk_s3::operation::get_object::GetObjectError;
use aws_sdk_s3::types::{Delete, ObjectIdentifier};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use domain::documents::record::{MAX_UPLOAD_BYTES, UPLOAD_PREFIX};
use ports::upload_form::{
    SigningCredentials, UPLOAD_CONTENT_TYPE, UPLOAD_FORM_LIFETIME, UploadForm, UploadRules,
    upload_form,
};
use ports::{
    DOWNLOAD_LINK_SECONDS, DocumentEraser, DownloadSigner, ObjectError, ObjectStore, StoredObject,
    UploadSigner,
};

/// The documents bucket, read through the SDK.
#[derive(Clone)]
pub struct S3Objects {
    pub client: aws_sdk_s3::Client,
    pub bucket: String,
}

impl S3Objects {
    pub fn new(sdk: &aws_config::SdkConfig, bucket: &str) -> Self {
        S3Objects {
            client: s3_client(sdk),
            bucket: bucket.to_string(),
        }
    }
}

/// An S3 client; path-style addressing when an endpoint is set (a local emulator).
pub fn s3_client(sdk: &aws_config::SdkConfig) -> aws_sdk_s3::Client {
    let config = aws_sdk_s3::config::Builder::from(sdk)
        .force_path_style(sdk.endpoint_url().is_some())
        .build();
    aws_sdk_s3::Client::from_conf(config)
}

impl ObjectStore for S3Objects {
    async fn get_object(
        &self,
        key: &str,
        version_id: Option<&str>,
        max_bytes: u64,
    ) -> Result<StoredObject, ObjectError> {
        let out = self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .set_version_id(version_id.map(String::from))
            .send()
            .await
            .map_err(|e| match e.as_service_error() {
                Some(GetObjectError::NoSuchKey(_)) => ObjectError::Missing,
                _ if e.raw_response().is_some_and(|r| r.status().as_u16() == 404) => {
                    ObjectError::Missing
                }
                _ => ObjectError::Unavailable(e.to_string()),
            })?;
        let length = u64::try_from(out.content_length().unwrap_or(0)).unwrap_or(0);
        if length > max_bytes {
            return Err(ObjectError::TooLarge(length));
        }
        let version_id = out.version_id().map(String::from);
        let bytes = out
            .body
            .collect()
            .await
            .map_err(|e| ObjectError::Unavailable(e.to_string()))?
            .into_bytes();
        if bytes.len() as u64 > max_bytes {
            return Err(ObjectError::TooLarge(bytes.len() as u64));
        }
        Ok(StoredObject {
            bytes: bytes.to_vec(),
            version_id,
        })
    }

    async fn current_version(&self, key: &str, etag: &str) -> Result<Option<String>, ObjectError> {
        let out = self
            .client
            .head_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await;
        let out = match out {
            Ok(out) => out,
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 404) => {
                return Ok(None);
            }
            Err(e) => return Err(ObjectError::Unavailable(format!("head: {e}"))),
        };
        let same = out.e_tag().map(|t| t.trim_matches('"')) == Some(etag.trim_matches('"'));
        Ok(out.version_id().filter(|_| same).map(String::from))
    }

    async fn delete_version(&self, key: &str, version_id: &str) -> Result<(), ObjectError> {
        self.client
            .delete_object()
            .bucket(&self.bucket)
            .key(key)
            .version_id(version_id)
            .send()
            .await
            .map_err(|e| ObjectError::Unavailable(format!("delete: {e}")))?;
        Ok(())
    }
}

/// At most this many rounds of one listed page (up to 1,000 versions) and its deletion per
/// erasure call. A verification takes in 12 uploads, but a tenant may post every form signed for
/// it, so the count is not fixed: past the bound the call fails, and the caller's retry goes on.
pub const ERASE_ROUNDS: usize = 10;

/// Why DeleteObjects rather than DeleteObject per version: one request per listed page whatever
/// the count, and S3 still authorizes each entry as `s3:DeleteObjectVersion`. Every version and
/// every delete marker is listed and deleted by its version id, so nothing of the upload is left
/// as an older version. The answer lists what S3 could not delete in a 200, so any listed error
/// fails the call. Each round lists from the start: what was deleted is gone, so no marker is
/// carried between deletions.
impl DocumentEraser for S3Objects {
    async fn erase_uploads(&self, verification_id: Uuid) -> Result<usize, ObjectError> {
        let unavailable = |e: String| ObjectError::Unavailable(e);
        let prefix = format!("{UPLOAD_PREFIX}{verification_id}/");
        let mut erased = 0;
        for _ in 0..ERASE_ROUNDS {
            let page = self
                .client
                .list_object_versions()
                .bucket(&self.bucket)
                .prefix(&prefix)
                .send()
                .await
                .map_err(|e| unavailable(format!("list: {e}")))?;
            let versions = (page.versions().iter()).map(|v| (v.key(), v.version_id()));
            let markers = (page.delete_markers().iter()).map(|m| (m.key(), m.version_id()));
            let entries = versions
                .chain(markers)
                .filter_map(|(key, version)| Some((key?, version)))
                .map(|(key, version)| {
                    ObjectIdentifier::builder()
                        .key(key)
                        .set_version_id(version.map(String::from))
                        .build()
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| unavailable(e.to_string()))?;
            if entries.is_empty() {
                return Ok(erased);
            }
            let count = entries.len();
            let delete = Delete::builder()
                .set_objects(Some(entries))
                .quiet(true)
                .build()
                .map_err(|e| unavailable(e.to_string()))?;
            let out = self
                .client
                .delete_objects()
                .bucket(&self.bucket)
                .delete(delete)
                .send()
                .await
                .map_err(|e| unavailable(format!("delete: {e}")))?;
            if let Some(first) = out.errors().first() {
                return Err(unavailable(format!(
                    "delete: {} of {count} versions refused ({})",
                    out.errors().len(),
                    first.code().unwrap_or("no code")
                )));
            }
            erased += count;
            if !page.is_truncated().unwrap_or(false) {
                return Ok(erased);
            }
        }
        Err(unavailable(format!(
            "more versions than {ERASE_ROUNDS} pages; the next call erases the rest"
        )))
    }
}

/// Signs upload forms for the documents bucket with the function's role credentials (fetched
/// from the SDK's provider at each signature, so rotated credentials are used).
#[derive(Clone)]
pub struct S3UploadSigner {
    pub credentials: SharedCredentialsProvider,
    pub region: String,
    pub bucket: String,
    /// The form's action: the bucket's URL.
    pub endpoint: String,
}

impl S3UploadSigner {
    /// The signer for `bucket`; `endpoint` is the bucket's URL (None: the regional
    /// virtual-hosted one).
    pub fn new(sdk: &aws_config::SdkConfig, bucket: &str, endpoint: Option<&str>) -> Option<Self> {
        let region = sdk.region()?.to_string();
        let endpoint = endpoint
            .map(String::from)
            .unwrap_or_else(|| format!("https://{bucket}.s3.{region}.amazonaws.com"));
        Some(S3UploadSigner {
            credentials: sdk.credentials_provider()?,
            region,
            bucket: bucket.to_string(),
            endpoint,
        })
    }
}

impl UploadSigner for S3UploadSigner {
    async fn upload_form(
        &self,
        key: &str,
        redirect: &str,
        now: DateTime<Utc>,
    ) -> Result<UploadForm, String> {
        let credentials = self
            .credentials
            .provide_credentials()
            .await
            .map_err(|e| format!("credentials: {e}"))?;
        let signing = SigningCredentials {
            access_key_id: credentials.access_key_id().to_string(),
            secret_access_key: credentials.secret_access_key().to_string(),
            session_token: credentials.session_token().map(String::from),
        };
        let rules = UploadRules {
            bucket: self.bucket.clone(),
            key: key.to_string(),
            content_type: UPLOAD_CONTENT_TYPE.to_string(),
            max_bytes: MAX_UPLOAD_BYTES,
            expires_at: now + UPLOAD_FORM_LIFETIME,
            redirect: Some(redirect.to_string()),
        };
        Ok(upload_form(
            &signing,
            &self.region,
            &self.endpoint,
            &rules,
            now,
        ))
    }
}

impl DownloadSigner for S3Objects {
    async fn download_link(
        &self,
        key: &str,
        version_id: Option<&str>,
        file_name: &str,
    ) -> Result<String, String> {
        let config = aws_sdk_s3::presigning::PresigningConfig::expires_in(
            std::time::Duration::from_secs(DOWNLOAD_LINK_SECONDS),
        )
        .map_err(|e| e.to_string())?;
        let request = self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .set_version_id(version_id.map(String::from))
            .response_content_disposition(format!("attachment; filename=\"{file_name}\""))
            .response_content_type(UPLOAD_CONTENT_TYPE)
            .presigned(config)
            .await
            .map_err(|e| e.to_string())?;
        Ok(request.uri().to_string())
    }
}
