//! One typed configuration per function, parsed once at cold start from the environment (set by
//! template.yaml) or built in code by the local stack. Every variable follows the same rules: it is
//! trimmed, blank means unset, and a value that does not parse is refused with a message naming
//! the variable; only an unset variable falls back to its documented default.

mod analyze_document;
mod api;
mod deliver_webhook;
mod expire_verifications;
mod live_income;
mod provider_webhooks;
mod publish_events;
mod reach;
mod tenant_portal;

pub use analyze_document::{
    AnalyzeDocumentConfig, EraseVerificationDataConfig, ListDocumentsConfig,
};
pub use api::Settings;
pub use deliver_webhook::{DEFAULT_WEBHOOK_TIMEOUT, DeliverWebhookConfig};
pub use expire_verifications::ExpireVerificationsConfig;
pub use live_income::{LiveIncome, Provider, SANDBOX_FOR_LIVE_REFUSED};
pub use provider_webhooks::ProviderWebhooksConfig;
pub use publish_events::PublishEventsConfig;
pub use reach::{ReachConfig, ReminderSchedules, SmsBounds, parse_offsets, sms_countries};
pub use tenant_portal::{DocumentBucket, PlaidVariables, ProviderVariables, TenantPortalConfig};

use std::collections::HashMap;
use std::str::FromStr;

use domain::Mode;
use domain::plans::Plans;
use domain::webhook::LocalWebhookOrigins;

#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

/// Reads one variable by name.
type Lookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// Where the variables come from: the process environment at cold start, a map in tests and
/// tools. Reading through it keeps the rules (trim, blank = unset) in one place.
pub struct Env {
    lookup: Box<Lookup>,
}

impl Env {
    /// The process environment.
    pub fn process() -> Self {
        Env {
            lookup: Box::new(|name| std::env::var(name).ok()),
        }
    }

    /// Exactly these variables (tests, and tools that configure a function in code).
    pub fn from_pairs<K: ToString, V: ToString>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        let vars: HashMap<String, String> = pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env {
            lookup: Box::new(move |name| vars.get(name).cloned()),
        }
    }

    /// The trimmed value, or `None` when unset or blank.
    pub fn optional(&self, name: &str) -> Option<String> {
        (self.lookup)(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    pub fn required(&self, name: &str) -> Result<String, ConfigError> {
        self.optional(name)
            .ok_or_else(|| ConfigError(format!("{name} is not set")))
    }

    /// A positive whole number of seconds, or `None` when unset.
    pub fn positive_seconds<T>(&self, name: &str) -> Result<Option<T>, ConfigError>
    where
        T: FromStr + PartialOrd + Default,
    {
        self.optional(name)
            .map(|raw| {
                raw.parse::<T>()
                    .ok()
                    .filter(|s| *s > T::default())
                    .ok_or_else(|| {
                        ConfigError(format!(
                            "{name} must be a positive whole number of seconds, not '{raw}'"
                        ))
                    })
            })
            .transpose()
    }

    /// A base URL, without its trailing slash (links are `{base}/t/...`).
    pub fn base_url(&self, name: &str) -> Option<String> {
        self.optional(name)
            .map(|u| u.trim_end_matches('/').to_string())
    }

    /// The local receivers webhooks may reach (`LOCAL_WEBHOOK_ORIGINS`). The old switch that
    /// let every loopback address through is refused rather than ignored.
    pub fn local_webhook_origins(&self) -> Result<LocalWebhookOrigins, ConfigError> {
        if self.optional("ALLOW_INSECURE_WEBHOOKS").is_some() {
            return Err(ConfigError(format!(
                "ALLOW_INSECURE_WEBHOOKS is no longer read: list the local receivers in {}",
                LocalWebhookOrigins::ENV
            )));
        }
        match self.optional(LocalWebhookOrigins::ENV) {
            Some(raw) => LocalWebhookOrigins::parse(&raw)
                .map_err(|e| ConfigError(format!("{}: {e}", LocalWebhookOrigins::ENV))),
            None => Ok(LocalWebhookOrigins::default()),
        }
    }
}

/// `ORIGIN_SECRET_ARN`: the secret CloudFront's origin header must carry (template.yaml's
/// `EdgeProtection`). Unset, the HTTP functions check no origin header.
pub fn origin_secret_arn(env: &Env) -> Option<String> {
    env.optional("ORIGIN_SECRET_ARN")
}

/// Whether test-mode verifications e-mail the tenant (`TEST_MODE_DELIVERY`). A deployed stack
/// suppresses them, so a test key cannot make SES write to arbitrary addresses: the landlord
/// opens the `verification_url` of the create response instead. The local stack sends, so every
/// e-mail is still shown there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TestModeDelivery {
    #[default]
    Suppress,
    Send,
}

impl TestModeDelivery {
    pub fn parse(raw: Option<&str>) -> Result<Self, ConfigError> {
        match raw.map(str::trim) {
            None | Some("") | Some("suppress") => Ok(TestModeDelivery::Suppress),
            Some("send") => Ok(TestModeDelivery::Send),
            Some(other) => Err(ConfigError(format!(
                "TEST_MODE_DELIVERY must be suppress or send, not '{other}'"
            ))),
        }
    }

    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::parse(env.optional("TEST_MODE_DELIVERY").as_deref())
    }

    /// Whether messages of a verification in `mode` go out (live ones always).
    pub fn delivers(self, mode: Mode) -> bool {
        mode == Mode::Live || self == TestModeDelivery::Send
    }
}

/// `PLANS` (a JSON array of plans), or the defaults when it is unset: the same rule for the
/// functions and `admin`.
pub fn plans_from_env(env: &Env) -> Result<Plans, ConfigError> {
    match env.optional("PLANS") {
        Some(raw) => Plans::parse(&raw).map_err(ConfigError),
        None => Ok(Plans::defaults()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_is_unset_and_values_are_trimmed() {
        let env = Env::from_pairs([("A", "  x "), ("B", "   ")]);
        assert_eq!(env.optional("A").as_deref(), Some("x"));
        assert_eq!(env.optional("B"), None);
        let missing = env.required("B").unwrap_err().to_string();
        assert!(missing.contains("B is not set"), "{missing}");
    }

    #[test]
    fn seconds_must_be_positive_whole_numbers() {
        let env = Env::from_pairs([("T", "10"), ("Z", "0"), ("N", "ten"), ("M", "-5")]);
        assert_eq!(env.positive_seconds::<u64>("T").unwrap(), Some(10));
        assert_eq!(env.positive_seconds::<u64>("UNSET").unwrap(), None);
        for name in ["Z", "N", "M"] {
            let refused = env.positive_seconds::<i64>(name).unwrap_err().to_string();
            assert!(refused.contains(name), "{refused}");
        }
    }

    #[test]
    fn local_webhook_origins_are_parsed_or_refused_by_name() {
        let env = Env::from_pairs([("LOCAL_WEBHOOK_ORIGINS", "http://127.0.0.1:3001")]);
        let origins = env.local_webhook_origins().unwrap();
        assert!(origins.allows(&"http://127.0.0.1:3001/webhooks".parse().unwrap()));
        let bad = Env::from_pairs([("LOCAL_WEBHOOK_ORIGINS", "https://example.com")]);
        let refused = bad.local_webhook_origins().unwrap_err().to_string();
        assert!(refused.contains("LOCAL_WEBHOOK_ORIGINS"), "{refused}");
        let old = Env::from_pairs([("ALLOW_INSECURE_WEBHOOKS", "true")]);
        let refused = old.local_webhook_origins().unwrap_err().to_string();
        assert!(refused.contains("ALLOW_INSECURE_WEBHOOKS"), "{refused}");
    }

    #[test]
    fn plans_from_env_default_only_when_unset() {
        assert_eq!(
            plans_from_env(&Env::from_pairs([("PLANS", " ")])).unwrap(),
            Plans::defaults()
        );
        let refused = plans_from_env(&Env::from_pairs([("PLANS", "{}")])).unwrap_err();
        assert!(refused.to_string().contains("PLANS"), "{refused}");
    }
}
