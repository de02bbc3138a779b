//! How the Plaid adapter reaches Plaid: the base URL from the environment, the credentials from a
//! Secrets Manager secret read once at cold start (never from the environment, where they would
//! sit in the function's configuration for anyone allowed to read it).
//!
//! The secret is a JSON object `{"client_id": "...", "secret": "..."}`; the function gets only its
//! ARN (`PLAID_SECRET_ARN`) and may read only that secret. A missing, unreadable or malformed
//! secret fails the cold start with a message naming what is wrong, never a value.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use reqwest::Url;
use serde::Deserialize;

/// Whole-request timeout when none is configured. Lambda functions answer the tenant page, so a
/// slow Plaid must turn into "try again" well before API Gateway's own 30 s limit.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How to reach Plaid. `secret` is never printed: `Debug` redacts it.
#[derive(Clone)]
pub struct PlaidConfig {
    /// `https://production.plaid.com` or `https://sandbox.plaid.com`; plain `http` only on a
    /// loopback address (tests).
    pub base_url: String,
    pub client_id: String,
    pub secret: String,
    pub timeout: Duration,
}

impl fmt::Debug for PlaidConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaidConfig")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("secret", &"<redacted>")
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why the Plaid adapter could not be set up. The texts name variables and error codes, never
/// values.
#[derive(Debug, thiserror::Error)]
pub enum PlaidConfigError {
    #[error("{0} is not set")]
    Missing(&'static str),
    #[error("PLAID_BASE_URL must be https without credentials (http only on a loopback address)")]
    InvalidBaseUrl,
    #[error("the Plaid secret (PLAID_SECRET_ARN) could not be read from Secrets Manager: {0}")]
    SecretUnreadable(String),
    #[error(
        "the Plaid secret (PLAID_SECRET_ARN) must be a JSON object with non-empty string keys client_id and secret"
    )]
    SecretMalformed,
    #[error("the Plaid HTTP client could not be built")]
    Client,
}

#[derive(Deserialize)]
struct SecretFields {
    client_id: String,
    secret: String,
}

impl PlaidConfig {
    /// The configuration from the secret's JSON text and the base URL.
    pub fn from_secret_json(base_url: &str, secret_json: &str) -> Result<Self, PlaidConfigError> {
        // serde's message could quote the secret: only the fact of the failure is kept.
        let fields: SecretFields =
            serde_json::from_str(secret_json).map_err(|_| PlaidConfigError::SecretMalformed)?;
        let (client_id, secret) = (fields.client_id.trim(), fields.secret.trim());
        if client_id.is_empty() || secret.is_empty() {
            return Err(PlaidConfigError::SecretMalformed);
        }
        parse_base_url(base_url)?;
        Ok(PlaidConfig {
            base_url: base_url.trim().to_string(),
            client_id: client_id.to_string(),
            secret: secret.to_string(),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// Reads `PLAID_BASE_URL` and `PLAID_SECRET_ARN` through `get` (the environment in
    /// production), then the secret from Secrets Manager.
    pub async fn load(
        secrets: &aws_sdk_secretsmanager::Client,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, PlaidConfigError> {
        let read = |name: &'static str| {
            get(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .ok_or(PlaidConfigError::Missing(name))
        };
        let base_url = read("PLAID_BASE_URL")?;
        parse_base_url(&base_url)?;
        let arn = read("PLAID_SECRET_ARN")?;
        let text = crate::secrets::secret_string(secrets, &arn)
            .await
            .map_err(PlaidConfigError::SecretUnreadable)?;
        Self::from_secret_json(&base_url, &text)
    }
}

/// The base URL without a trailing slash, and whether it is a plain-http loopback URL (tests).
pub(crate) fn parse_base_url(raw: &str) -> Result<(String, bool), PlaidConfigError> {
    let url = Url::parse(raw.trim()).map_err(|_| PlaidConfigError::InvalidBaseUrl)?;
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(PlaidConfigError::InvalidBaseUrl);
    }
    // Only a literal loopback address: a name like `localhost` is resolved by DNS.
    let loopback = url
        .host_str()
        .map(|h| h.trim_start_matches('[').trim_end_matches(']'))
        .and_then(|h| h.parse::<IpAddr>().ok())
        .is_some_and(|ip| ip.is_loopback());
    let plain_http = match url.scheme() {
        "https" => false,
        "http" if loopback => true,
        _ => return Err(PlaidConfigError::InvalidBaseUrl),
    };
    Ok((url.as_str().trim_end_matches('/').to_string(), plain_http))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(
            parse_base_url("https://sandbox.plaid.com/").unwrap(),
            ("https://sandbox.plaid.com".to_string(), false)
        );
        assert!(parse_base_url("http://127.0.0.1:8080").unwrap().1);
        assert!(parse_base_url("http://production.plaid.com").is_err());
        assert!(parse_base_url("https://user:pw@production.plaid.com").is_err());
        assert!(parse_base_url("not a url").is_err());
    }

    #[test]
    fn secret_json_needs_both_keys() {
        let ok = PlaidConfig::from_secret_json(
            "https://sandbox.plaid.com",
            r#"{"client_id":"cid","secret":"s3cr3t"}"#,
        )
        .unwrap();
        assert_eq!(
            (ok.client_id.as_str(), ok.secret.as_str()),
            ("cid", "s3cr3t")
        );
        assert!(!format!("{ok:?}").contains("s3cr3t"));
        for bad in [
            "s3cr3t",
            r#"{"client_id":"cid"}"#,
            r#"{"client_id":"cid","secret":"  "}"#,
            r#"{"client_id":1,"secret":"s3cr3t"}"#,
        ] {
            let e = PlaidConfig::from_secret_json("https://sandbox.plaid.com", bad).unwrap_err();
            assert!(matches!(e, PlaidConfigError::SecretMalformed), "{bad}");
            assert!(!e.to_string().contains("s3cr3t"));
        }
    }
}
