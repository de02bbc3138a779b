//! Configuration read once at cold start from the environment (set by template.yaml, or by the
//! local stack).

use chrono::Duration;

use crate::domain::{Plan, VERIFICATION_LIFETIME};
use crate::webhook::LocalWebhookOrigins;

/// The plans the service sells. Defaults are those of the reference product (design §3); a
/// deployment can replace them with the `PLANS` environment variable (a JSON array of plans).
#[derive(Debug, Clone, PartialEq)]
pub struct Plans(Vec<Plan>);

impl Plans {
    pub fn new(plans: Vec<Plan>) -> Self {
        Plans(plans)
    }

    pub fn defaults() -> Self {
        let plan = |name: &str, verifications, requests, api_access| Plan {
            name: name.to_string(),
            verifications_per_month: verifications,
            api_requests_per_day: requests,
            api_access,
        };
        Plans(vec![
            plan("starter", 10, 0, false),
            plan("pro", 50, 100, true),
            plan("business", 200, 500, true),
        ])
    }

    pub fn get(&self, name: &str) -> Option<&Plan> {
        self.0.iter().find(|p| p.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Plan> {
        self.0.iter()
    }

    pub fn parse(raw: &str) -> Result<Self, String> {
        let plans: Vec<Plan> = serde_json::from_str(raw)
            .map_err(|e| format!("PLANS is not a JSON array of plans: {e}"))?;
        if plans.is_empty() {
            return Err("PLANS is empty".into());
        }
        Ok(Plans(plans))
    }
}

/// Settings of the HTTP functions.
#[derive(Debug, Clone)]
pub struct Settings {
    pub table_name: String,
    /// Base URL of the tenant page, e.g. `https://verify.example.com`; links are `{base}/t/...`.
    /// Unset: the API's own host (the tenant page is a route of the same HttpApi).
    pub public_base_url: Option<String>,
    pub plans: Plans,
    /// Local stack and tests only: the exact receivers a webhook URL may name although they are
    /// not public https. Empty in a deployed stack.
    pub local_webhook_origins: LocalWebhookOrigins,
    /// 7 days; the local stack may shorten it to show expiry happening.
    pub verification_lifetime: Duration,
}

#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

pub fn required(name: &str) -> Result<String, ConfigError> {
    var(name).ok_or_else(|| ConfigError(format!("{name} is not set")))
}

/// The local receivers webhooks may reach (`LOCAL_WEBHOOK_ORIGINS`), read once at cold start.
/// The old switch that let every loopback address through is refused rather than ignored.
pub fn local_webhook_origins() -> Result<LocalWebhookOrigins, ConfigError> {
    if var("ALLOW_INSECURE_WEBHOOKS").is_some() {
        return Err(ConfigError(format!(
            "ALLOW_INSECURE_WEBHOOKS is no longer read: list the local receivers in {}",
            LocalWebhookOrigins::ENV
        )));
    }
    LocalWebhookOrigins::from_env().map_err(ConfigError)
}

impl Settings {
    pub fn from_env() -> Result<Self, ConfigError> {
        let plans = match var("PLANS") {
            Some(raw) => Plans::parse(&raw).map_err(ConfigError)?,
            None => Plans::defaults(),
        };
        let verification_lifetime = match var("VERIFICATION_LIFETIME_SECONDS") {
            Some(raw) => {
                Duration::seconds(raw.parse::<i64>().ok().filter(|s| *s > 0).ok_or_else(|| {
                    ConfigError("VERIFICATION_LIFETIME_SECONDS must be a positive integer".into())
                })?)
            }
            None => VERIFICATION_LIFETIME,
        };
        Ok(Settings {
            table_name: required("TABLE_NAME")?,
            public_base_url: var("PUBLIC_BASE_URL").map(|u| u.trim_end_matches('/').to_string()),
            plans,
            local_webhook_origins: local_webhook_origins()?,
            verification_lifetime,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_plans_match_the_design() {
        let plans = Plans::defaults();
        let pro = plans.get("pro").unwrap();
        assert_eq!(
            (pro.verifications_per_month, pro.api_requests_per_day),
            (50, 100)
        );
        let business = plans.get("business").unwrap();
        assert_eq!(
            (
                business.verifications_per_month,
                business.api_requests_per_day
            ),
            (200, 500)
        );
        assert!(!plans.get("starter").unwrap().api_access);
    }

    #[test]
    fn plans_parse_from_json() {
        let plans = Plans::parse(r#"[{"name":"x","verifications_per_month":1,"api_requests_per_day":2,"api_access":true}]"#).unwrap();
        assert_eq!(plans.get("x").unwrap().api_requests_per_day, 2);
        assert!(Plans::parse("[]").is_err());
        assert!(Plans::parse("nope").is_err());
    }
}
