//! Fakes of the documents' ports: a bucket in memory that counts its reads, erases a
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
use ports::{DocumentEraser, ObjectError, ObjectStore, UploadSigner};

/// Objects by key; clones share them. `reads` counts `get_object` calls.
#[derive(Clone, Default)]
pub struct MemoryObjects {
    objects: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    reads: Arc<Mutex<usize>>,
    down: Arc<Mutex<bool>>,
}

impl MemoryObjects {
    pub fn put(&self, key: &str, bytes: &[u8]) {
        self.objects
            .lock()
            .unwrap()
            .insert(key.to_string(), bytes.to_vec());
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
    /// Every read and erasure fails as unavailable while set.
    pub fn set_down(&self, down: bool) {
        *self.down.lock().unwrap() = down;
    }
}

impl ObjectStore for MemoryObjects {
    async fn get_object(&self, key: &str, max_bytes: u64) -> Result<Vec<u8>, ObjectError> {
        *self.reads.lock().unwrap() += 1;
        if *self.down.lock().unwrap() {
            return Err(ObjectError::Unavailable("injected outage".into()));
        }
        let bytes = self
            .objects
            .lock()
            .unwrap()
            .get(key)
            .cloned()
            .ok_or(ObjectError::Missing)?;
        match bytes.len() as u64 {
            n if n > max_bytes => Err(ObjectError::TooLarge(n)),
            _ => Ok(bytes),
        }
    }
}

impl DocumentEraser for MemoryObjects {
    async fn erase_uploads(&self, verification_id: Uuid) -> Result<usize, ObjectError> {
        if *self.down.lock().unwrap() {
            return Err(ObjectError::Unavailable("injected outage".into()));
        }
        let prefix = format!("{UPLOAD_PREFIX}{verification_id}/");
        let mut objects = self.objects.lock().unwrap();
        let before = objects.len();
        objects.retain(|key, _| !key.starts_with(&prefix));
        Ok(before - objects.len())
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
