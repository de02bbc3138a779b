//! Fakes of the documents' ports: a versioned bucket in memory that counts its reads, erases a
//! verification's uploads and fails while set down, and a signer with fixed example credentials
//! (no AWS call).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use ports::upload_form::{
    SigningCredentials, UPLOAD_CONTENT_TYPE, UPLOAD_FORM_LIFETIME, UploadForm, UploadRules,
    upload_form,
};
use uuid::Uuid;

use domain::documents::record::{MAX_UPLOAD_BYTES, UPLOAD_PREFIX};
use ports::{DocumentEraser, ObjectError, ObjectStore, StoredObject, UploadSigner};

/// One key's versions, oldest first: (version id, bytes).
type Versions = Vec<(String, Vec<u8>)>;

/// A versioned bucket: the versions of each key, oldest first; clones share them. `reads`
/// counts `get_object` calls. Version ids are `v1`, `v2`, ... across the bucket. ETags are not
/// kept: `current_version` answers the current version whatever the ETag asked for.
#[derive(Clone, Default)]
pub struct MemoryObjects {
    objects: Arc<Mutex<HashMap<String, Versions>>>,
    versions: Arc<Mutex<usize>>,
    reads: Arc<Mutex<usize>>,
    down: Arc<Mutex<bool>>,
    deletes_down: Arc<Mutex<bool>>,
}

impl MemoryObjects {
    /// Stores a new version of `key`; its version id.
    pub fn put(&self, key: &str, bytes: &[u8]) -> String {
        let mut count = self.versions.lock().unwrap();
        *count += 1;
        let version = format!("v{count}");
        (self.objects.lock().unwrap().entry(key.to_string()))
            .or_default()
            .push((version.clone(), bytes.to_vec()));
        version
    }
    pub fn reads(&self) -> usize {
        *self.reads.lock().unwrap()
    }
    /// The keys stored, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.objects.lock().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    }
    /// The version ids of `key`, oldest first.
    pub fn versions(&self, key: &str) -> Vec<String> {
        (self.objects.lock().unwrap().get(key))
            .map(|vs| vs.iter().map(|(v, _)| v.clone()).collect())
            .unwrap_or_default()
    }
    /// Every read, deletion and erasure fails as unavailable while set.
    pub fn set_down(&self, down: bool) {
        *self.down.lock().unwrap() = down;
    }
    /// Only deletions and erasures fail while set.
    pub fn set_deletes_down(&self, down: bool) {
        *self.deletes_down.lock().unwrap() = down;
    }
    fn check(&self, deleting: bool) -> Result<(), ObjectError> {
        let down = *self.down.lock().unwrap() || (deleting && *self.deletes_down.lock().unwrap());
        match down {
            true => Err(ObjectError::Unavailable("injected outage".into())),
            false => Ok(()),
        }
    }
}

impl ObjectStore for MemoryObjects {
    async fn get_object(
        &self,
        key: &str,
        version_id: Option<&str>,
        max_bytes: u64,
    ) -> Result<StoredObject, ObjectError> {
        *self.reads.lock().unwrap() += 1;
        self.check(false)?;
        let objects = self.objects.lock().unwrap();
        let versions = objects.get(key).ok_or(ObjectError::Missing)?;
        let (version, bytes) = match version_id {
            Some(wanted) => versions.iter().find(|(v, _)| v == wanted),
            None => versions.last(),
        }
        .cloned()
        .ok_or(ObjectError::Missing)?;
        match bytes.len() as u64 {
            n if n > max_bytes => Err(ObjectError::TooLarge(n)),
            _ => Ok(StoredObject {
                bytes,
                version_id: Some(version),
            }),
        }
    }

    async fn current_version(&self, key: &str, _etag: &str) -> Result<Option<String>, ObjectError> {
        self.check(false)?;
        Ok(self.versions(key).pop())
    }

    async fn delete_version(&self, key: &str, version_id: &str) -> Result<(), ObjectError> {
        self.check(true)?;
        let mut objects = self.objects.lock().unwrap();
        if let Some(versions) = objects.get_mut(key) {
            versions.retain(|(v, _)| v != version_id);
            if versions.is_empty() {
                objects.remove(key);
            }
        }
        Ok(())
    }
}

impl DocumentEraser for MemoryObjects {
    async fn erase_uploads(&self, verification_id: Uuid) -> Result<usize, ObjectError> {
        self.check(true)?;
        let prefix = format!("{UPLOAD_PREFIX}{verification_id}/");
        let mut objects = self.objects.lock().unwrap();
        let erased = (objects.iter())
            .filter(|(key, _)| key.starts_with(&prefix))
            .map(|(_, versions)| versions.len())
            .sum();
        objects.retain(|key, _| !key.starts_with(&prefix));
        Ok(erased)
    }
}

/// Signs with AWS's documented example credentials, for a bucket at `https://<bucket>.example`.
#[derive(Clone)]
pub struct ExampleSigner {
    pub bucket: String,
}

impl UploadSigner for ExampleSigner {
    async fn upload_form(
        &self,
        key: &str,
        redirect: &str,
        now: DateTime<Utc>,
    ) -> Result<UploadForm, String> {
        let credentials = SigningCredentials {
            access_key_id: "AKIAIOSFODNN7EXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        };
        let rules = UploadRules {
            bucket: self.bucket.clone(),
            key: key.to_string(),
            content_type: UPLOAD_CONTENT_TYPE.into(),
            max_bytes: MAX_UPLOAD_BYTES,
            expires_at: now + UPLOAD_FORM_LIFETIME,
            redirect: Some(redirect.to_string()),
        };
        let endpoint = format!("https://{}.example", self.bucket);
        Ok(upload_form(
            &credentials,
            "us-east-1",
            &endpoint,
            &rules,
            now,
        ))
    }
}
