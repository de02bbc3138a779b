//! How the Argyle adapter reaches Argyle: the base URL from the environment
//! (`ARGYLE_BASE_URL`), the API key from a Secrets Manager secret (`ARGYLE_SECRET_ARN`) read once
//! at cold start, never from the environment.
//!
//! The secret is a JSON object `{"api_key_id": "...", "api_key_secret": "..."}`, the pair Argyle
//! Console issues, and the `webhook_secret` our webhook subscription was made with (read only by
//! `provider-webhooks`, which needs it to check Argyle's signatures). A missing, unreadable or malformed secret fails the cold start with a message
//! naming what is wrong, never a value.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

use crate::plaid::config::parse_base_url;

/// Whole-request timeout when none is configured: the tenant page must answer well before API
/// Gateway's 30 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(8);

/// How to reach Argyle. `api_key_secret` is never printed: `Debug` redacts it.
#[derive(Clone)]
pub struct ArgyleConfig {
    /// `https://api.argyle.com` or `https://api-sandbox.argyle.com` (the `/v2` paths are added
    /// per call); plain `http` only on a loopback address (tests).
    pub base_url: String,
    pub api_key_id: String,
    pub api_key_secret: String,
    /// The `secret` of our subscription to Argyle's webhooks, if the secret holds one.
    pub webhook_secret: Option<String>,
    pub timeout: Duration,
}

impl fmt::Debug for ArgyleConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArgyleConfig")
            .field("base_url", &self.base_url)
            .field("api_key_id", &self.api_key_id)
            .field("api_key_secret", &"<redacted>")
            .field(
                "webhook_secret",
                &self.webhook_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why the Argyle adapter could not be set up. The texts name variables and error codes, never
/// values.
#[derive(Debug, thiserror::Error)]
pub enum ArgyleConfigError {
    #[error("{0} is not set")]
    Missing(&'static str),
    #[error("ARGYLE_BASE_URL must be https without credentials (http only on a loopback address)")]
    InvalidBaseUrl,
    #[error("the Argyle secret (ARGYLE_SECRET_ARN) could not be read from Secrets Manager: {0}")]
    SecretUnreadable(String),
    #[error(
        "the Argyle secret (ARGYLE_SECRET_ARN) must be a JSON object with non-empty string keys api_key_id and api_key_secret"
    )]
    SecretMalformed,
    #[error(
        "the Argyle secret (ARGYLE_SECRET_ARN) has no webhook_secret, which checks Argyle's webhooks"
    )]
    NoWebhookSecret,
    #[error("the Argyle HTTP client could not be built")]
    Client,
}

#[derive(Deserialize)]
struct SecretFields {
    api_key_id: String,
    api_key_secret: String,
    #[serde(default)]
    webhook_secret: Option<String>,
}

impl ArgyleConfig {
    /// The configuration from the secret's JSON text and the base URL.
    pub fn from_secret_json(base_url: &str, secret_json: &str) -> Result<Self, ArgyleConfigError> {
        let fields: SecretFields =
            serde_json::from_str(secret_json).map_err(|_| ArgyleConfigError::SecretMalformed)?;
        let (id, secret) = (fields.api_key_id.trim(), fields.api_key_secret.trim());
        if id.is_empty() || secret.is_empty() || id.contains(':') {
            return Err(ArgyleConfigError::SecretMalformed);
        }
        base_url_of(base_url)?;
        Ok(ArgyleConfig {
            base_url: base_url.trim().to_string(),
            api_key_id: id.to_string(),
            api_key_secret: secret.to_string(),
            webhook_secret: (fields.webhook_secret.as_deref().map(str::trim))
                .filter(|w| !w.is_empty())
                .map(str::to_string),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// Reads `ARGYLE_BASE_URL` and `ARGYLE_SECRET_ARN` through `get` (the environment in
    /// production), then the secret from Secrets Manager.
    pub async fn load(
        secrets: &aws_sdk_secretsmanager::Client,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ArgyleConfigError> {
        let read = |name: &'static str| {
            get(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .ok_or(ArgyleConfigError::Missing(name))
        };
        let base_url = read("ARGYLE_BASE_URL")?;
        base_url_of(&base_url)?;
        let arn = read("ARGYLE_SECRET_ARN")?;
        let text = crate::secrets::secret_string(secrets, &arn)
            .await
            .map_err(ArgyleConfigError::SecretUnreadable)?;
        Self::from_secret_json(&base_url, &text)
    }
}

/// The base URL without a trailing slash, and whether it is plain-http loopback (tests); the
/// same rules as Plaid's.
pub(super) fn base_url_of(raw: &str) -> Result<(String, bool), ArgyleConfigError> {
    parse_base_url(raw).map_err(|_| ArgyleConfigError::InvalidBaseUrl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_json_needs_both_keys() {
        let ok = ArgyleConfig::from_secret_json(
            "https://api-sandbox.argyle.com",
            r#"{"api_key_id":"kid","api_key_secret":"s3cr3t"}"#,
        )
        .unwrap();
        assert_eq!(
            (ok.api_key_id.as_str(), ok.api_key_secret.as_str()),
            ("kid", "s3cr3t")
        );
        assert!(!format!("{ok:?}").contains("s3cr3t"));
        assert_eq!(ok.webhook_secret, None);
        let with_webhooks = ArgyleConfig::from_secret_json(
            "https://api-sandbox.argyle.com",
            r#"{"api_key_id":"kid","api_key_secret":"s3cr3t","webhook_secret":"wh00k"}"#,
        )
        .unwrap();
        assert_eq!(with_webhooks.webhook_secret.as_deref(), Some("wh00k"));
        assert!(!format!("{with_webhooks:?}").contains("wh00k"));
        for bad in [
            "s3cr3t",
            r#"{"api_key_id":"kid"}"#,
            r#"{"api_key_id":"kid","api_key_secret":"  "}"#,
            r#"{"api_key_id":"k:id","api_key_secret":"s3cr3t"}"#,
            r#"{"client_id":"kid","secret":"s3cr3t"}"#,
        ] {
            let e = ArgyleConfig::from_secret_json("https://api.argyle.com", bad).unwrap_err();
            assert!(matches!(e, ArgyleConfigError::SecretMalformed), "{bad}");
            assert!(!e.to_string().contains("s3cr3t"));
        }
        assert!(matches!(
            ArgyleConfig::from_secret_json(
                "http://api.argyle.com",
                r#"{"api_key_id":"kid","api_key_secret":"s"}"#
            ),
            Err(ArgyleConfigError::InvalidBaseUrl)
        ));
    }
}
