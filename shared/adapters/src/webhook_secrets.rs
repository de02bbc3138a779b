//! The accounts' webhook signing secrets in Secrets Manager: one secret per account, named
//! `<prefix><account id>`, its text the JSON of `WebhookSecrets`. Away from the table, so no
//! stream record ever carries one; encrypted under the stack's own KMS key, whose key policy lets
//! only deliver-webhook decrypt at run time (template.yaml, `WebhookSecretsKey`).
//!
//! deliver-webhook reads through a cache of bounded lifetime (`SECRETS_CACHE_LIFETIME`): a warm
//! function reads each account's secret once in that time, and a rotation takes effect within it.
//! The previous secret keeps signing for the rotation's overlap (24 hours by default), far longer.
//! The admin tool writes and rotates, with no cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_secretsmanager::Client;
use aws_sdk_secretsmanager::error::ProvideErrorMetadata;
use aws_sdk_secretsmanager::operation::create_secret::CreateSecretError;
use aws_sdk_secretsmanager::operation::put_secret_value::PutSecretValueError;

use ports::{StoreError, WebhookSecretStore, WebhookSecrets};

/// How long deliver-webhook signs with a secret it read before reading it again.
pub const SECRETS_CACHE_LIFETIME: Duration = Duration::from_secs(300);

/// Each account's secrets as read, with when; entries older than the lifetime are read again.
#[derive(Clone, Default)]
pub struct SecretsCache {
    lifetime: Duration,
    entries: Arc<Mutex<HashMap<String, (Instant, WebhookSecrets)>>>,
}

impl SecretsCache {
    pub fn new(lifetime: Duration) -> Self {
        SecretsCache {
            lifetime,
            entries: Default::default(),
        }
    }

    /// The account's secrets read at most `lifetime` before `now`.
    pub fn get(&self, account_id: &str, now: Instant) -> Option<WebhookSecrets> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (read_at, secrets) = entries.get(account_id)?;
        (now.saturating_duration_since(*read_at) < self.lifetime).then(|| secrets.clone())
    }

    pub fn put(&self, account_id: &str, secrets: &WebhookSecrets, now: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.insert(account_id.to_string(), (now, secrets.clone()));
    }
}

/// The secrets of every account, under one name prefix.
#[derive(Clone)]
pub struct SecretsManagerWebhookSecrets {
    client: Client,
    prefix: String,
    /// The key new secrets are encrypted under (the admin tool's; deliver-webhook creates none).
    kms_key_id: Option<String>,
    cache: Option<SecretsCache>,
}

impl std::fmt::Debug for SecretsManagerWebhookSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsManagerWebhookSecrets")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn unavailable<E: ProvideErrorMetadata>(e: &E) -> StoreError {
    // The code says what to fix (AccessDeniedException, ...) without quoting a name or a value.
    StoreError::Unavailable(format!(
        "Secrets Manager: {}",
        e.code().unwrap_or("no answer")
    ))
}

impl SecretsManagerWebhookSecrets {
    /// deliver-webhook's: reads only, through a cache of `lifetime`.
    pub fn reader(client: Client, prefix: &str, lifetime: Duration) -> Self {
        SecretsManagerWebhookSecrets {
            client,
            prefix: prefix.to_string(),
            kms_key_id: None,
            cache: Some(SecretsCache::new(lifetime)),
        }
    }

    /// The admin tool's: reads and writes, no cache; new secrets are encrypted under `kms_key_id`.
    pub fn writer(client: Client, prefix: &str, kms_key_id: &str) -> Self {
        SecretsManagerWebhookSecrets {
            client,
            prefix: prefix.to_string(),
            kms_key_id: Some(kms_key_id.to_string()),
            cache: None,
        }
    }

    /// The secret's name of an account.
    pub fn name(&self, account_id: &str) -> String {
        format!("{}{account_id}", self.prefix)
    }

    async fn read(&self, account_id: &str) -> Result<WebhookSecrets, StoreError> {
        let text = match crate::secrets::secret_string(&self.client, &self.name(account_id)).await {
            Ok(text) => text,
            // No secret yet: the account has none (deliver-webhook logs it as a set-up fault).
            Err(code) if code == "ResourceNotFoundException" => {
                return Ok(WebhookSecrets::default());
            }
            Err(code) => return Err(StoreError::Unavailable(format!("Secrets Manager: {code}"))),
        };
        serde_json::from_str(&text)
            .map_err(|_| StoreError::Corrupt("webhook secrets are not their JSON".into()))
    }
}

impl WebhookSecretStore for SecretsManagerWebhookSecrets {
    async fn get_webhook_secrets(&self, account_id: &str) -> Result<WebhookSecrets, StoreError> {
        let Some(cache) = &self.cache else {
            return self.read(account_id).await;
        };
        if let Some(secrets) = cache.get(account_id, Instant::now()) {
            return Ok(secrets);
        }
        // A failed read is not cached: the next batch asks again.
        let secrets = self.read(account_id).await?;
        cache.put(account_id, &secrets, Instant::now());
        Ok(secrets)
    }

    async fn put_webhook_secrets(
        &self,
        account_id: &str,
        secrets: &WebhookSecrets,
    ) -> Result<(), StoreError> {
        let text =
            serde_json::to_string(secrets).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let name = self.name(account_id);
        // A new version of the account's secret; the first write creates it, under the key.
        for _ in 0..2 {
            let put = (self.client.put_secret_value())
                .secret_id(&name)
                .secret_string(&text)
                .send()
                .await;
            match put {
                Ok(_) => return Ok(()),
                Err(e)
                    if !matches!(
                        e.as_service_error(),
                        Some(PutSecretValueError::ResourceNotFoundException(_))
                    ) =>
                {
                    return Err(unavailable(&e));
                }
                Err(_) => {}
            }
            let create = (self.client.create_secret())
                .name(&name)
                .description("Webhook signing secrets of one account (current, previous)")
                .set_kms_key_id(self.kms_key_id.clone())
                .secret_string(&text)
                .send()
                .await;
            match create {
                Ok(_) => return Ok(()),
                // Created meanwhile by another writer: put a version on it.
                Err(e)
                    if matches!(
                        e.as_service_error(),
                        Some(CreateSecretError::ResourceExistsException(_))
                    ) => {}
                Err(e) => return Err(unavailable(&e)),
            }
        }
        Err(StoreError::Unavailable(
            "Secrets Manager: the secret kept appearing and vanishing".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(current: &str) -> WebhookSecrets {
        WebhookSecrets {
            current: Some(current.into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_cached_secret_is_read_again_once_its_lifetime_has_passed() {
        let cache = SecretsCache::new(Duration::from_secs(300));
        let start = Instant::now();
        assert!(cache.get("a", start).is_none());
        cache.put("a", &secrets("whsec_one"), start);
        let held = cache.get("a", start + Duration::from_secs(299));
        assert!(held == Some(secrets("whsec_one")));
        assert!(cache.get("a", start + Duration::from_secs(300)).is_none());
        assert!(cache.get("b", start).is_none());
        cache.put("a", &secrets("whsec_two"), start + Duration::from_secs(300));
        let renewed = cache.get("a", start + Duration::from_secs(301));
        assert!(renewed == Some(secrets("whsec_two")));
    }

    #[test]
    fn a_cache_of_no_lifetime_holds_nothing() {
        let cache = SecretsCache::new(Duration::ZERO);
        let now = Instant::now();
        cache.put("a", &secrets("whsec_one"), now);
        assert!(cache.get("a", now).is_none());
    }
}
