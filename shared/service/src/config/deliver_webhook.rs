//! Configuration of `deliver-webhook`.

use std::time::Duration;

use super::{ConfigError, Env};
use domain::webhook::LocalWebhookOrigins;

/// How long one delivery attempt may take when `WEBHOOK_TIMEOUT_SECONDS` is unset.
pub const DEFAULT_WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
pub struct DeliverWebhookConfig {
    pub table_name: String,
    pub webhook_queue_url: String,
    /// The name prefix of the accounts' signing secrets in Secrets Manager
    /// (`WEBHOOK_SECRETS_PREFIX`): each account's secret is `<prefix><account id>`.
    pub webhook_secrets_prefix: String,
    /// One delivery attempt's time limit (`WEBHOOK_TIMEOUT_SECONDS`, 10 s when unset).
    pub timeout: Duration,
    /// The only non-public receivers webhooks may reach (empty in a deployed stack).
    pub local_webhook_origins: LocalWebhookOrigins,
}

impl DeliverWebhookConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(DeliverWebhookConfig {
            table_name: env.required("TABLE_NAME")?,
            webhook_queue_url: env.required("WEBHOOK_QUEUE_URL")?,
            webhook_secrets_prefix: env.required("WEBHOOK_SECRETS_PREFIX")?,
            timeout: env
                .positive_seconds::<u64>("WEBHOOK_TIMEOUT_SECONDS")?
                .map_or(DEFAULT_WEBHOOK_TIMEOUT, Duration::from_secs),
            local_webhook_origins: env.local_webhook_origins()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: [(&str, &str); 3] = [
        ("TABLE_NAME", "t"),
        ("WEBHOOK_QUEUE_URL", "https://sqs/w"),
        ("WEBHOOK_SECRETS_PREFIX", "stack/webhook-secrets/"),
    ];

    #[test]
    fn the_timeout_defaults_only_when_unset() {
        let config = DeliverWebhookConfig::parse(&Env::from_pairs(BASE)).unwrap();
        assert_eq!(config.timeout, DEFAULT_WEBHOOK_TIMEOUT);
        let set = BASE.into_iter().chain([("WEBHOOK_TIMEOUT_SECONDS", "3")]);
        let config = DeliverWebhookConfig::parse(&Env::from_pairs(set)).unwrap();
        assert_eq!(config.timeout, Duration::from_secs(3));
        let bad = BASE.into_iter().chain([("WEBHOOK_TIMEOUT_SECONDS", "10s")]);
        let refused = DeliverWebhookConfig::parse(&Env::from_pairs(bad)).unwrap_err();
        assert!(
            refused.to_string().contains("WEBHOOK_TIMEOUT_SECONDS"),
            "{refused}"
        );
    }

    #[test]
    fn the_secrets_prefix_is_required() {
        let without = BASE
            .into_iter()
            .filter(|(k, _)| *k != "WEBHOOK_SECRETS_PREFIX");
        let refused = DeliverWebhookConfig::parse(&Env::from_pairs(without)).unwrap_err();
        assert!(
            refused.to_string().contains("WEBHOOK_SECRETS_PREFIX"),
            "{refused}"
        );
    }

    #[test]
    fn the_queue_is_required() {
        let refused =
            DeliverWebhookConfig::parse(&Env::from_pairs([("TABLE_NAME", "t")])).unwrap_err();
        assert!(
            refused.to_string().contains("WEBHOOK_QUEUE_URL"),
            "{refused}"
        );
    }
}
