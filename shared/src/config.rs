//! Configuration read once at cold start from the environment (set by template.yaml, or by the
//! local stack).

use chrono::Duration;

use crate::domain::webhook::LocalWebhookOrigins;
use crate::domain::{Plan, VERIFICATION_LIFETIME};

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
    /// Where live verifications get their income; without a provider, live creates are refused.
    pub live_income: LiveIncome,
}

/// Where the income of live verifications comes from (test verifications always use the sandbox).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveIncome {
    /// No real provider: live verifications are refused at create (403 `live_mode_unavailable`).
    None,
    /// Bank income through Plaid.
    Plaid,
    /// The local stack only (`make dev`, tests): sandbox scenarios stand in for live data and the
    /// report says `local_sandbox: true`. Built in code; no environment variable selects it.
    LocalSandbox,
}

pub const SANDBOX_FOR_LIVE_REFUSED: &str = "INCOME_PROVIDER=sandbox is refused: live verifications \
get income only from a real provider (plaid) or none (live creates are refused); the sandbox serves \
test keys, and live keys only in the local stack";

impl LiveIncome {
    /// `INCOME_PROVIDER`: `plaid`, or `none` / unset (live verifications refused).
    pub fn parse(raw: Option<&str>) -> Result<Self, ConfigError> {
        match raw.map(str::trim).unwrap_or("") {
            "" | "none" => Ok(LiveIncome::None),
            "plaid" => Ok(LiveIncome::Plaid),
            "sandbox" => Err(ConfigError(SANDBOX_FOR_LIVE_REFUSED.into())),
            _ => Err(ConfigError("INCOME_PROVIDER must be plaid or none".into())),
        }
    }

    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(var("INCOME_PROVIDER").as_deref())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

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

    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(var("TEST_MODE_DELIVERY").as_deref())
    }
}

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
            live_income: LiveIncome::from_env()?,
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
    fn the_sandbox_can_not_be_configured_for_live_verifications() {
        assert_eq!(LiveIncome::parse(Some("plaid")).unwrap(), LiveIncome::Plaid);
        assert_eq!(LiveIncome::parse(Some("none")).unwrap(), LiveIncome::None);
        assert_eq!(LiveIncome::parse(None).unwrap(), LiveIncome::None);
        let refused = LiveIncome::parse(Some("sandbox")).unwrap_err();
        assert!(
            refused.to_string().contains("sandbox is refused"),
            "{refused}"
        );
        assert!(LiveIncome::parse(Some("Sandbox")).is_err());
        assert!(LiveIncome::parse(Some("local_sandbox")).is_err());
    }

    #[test]
    fn test_mode_delivery_defaults_to_suppress_and_refuses_unknown_values() {
        assert_eq!(
            TestModeDelivery::parse(None).unwrap(),
            TestModeDelivery::Suppress
        );
        assert_eq!(
            TestModeDelivery::parse(Some("suppress")).unwrap(),
            TestModeDelivery::Suppress
        );
        assert_eq!(
            TestModeDelivery::parse(Some("send")).unwrap(),
            TestModeDelivery::Send
        );
        assert!(TestModeDelivery::parse(Some("Send")).is_err());
        assert!(TestModeDelivery::parse(Some("yes")).is_err());
    }

    #[test]
    fn plans_parse_from_json() {
        let plans = Plans::parse(r#"[{"name":"x","verifications_per_month":1,"api_requests_per_day":2,"api_access":true}]"#).unwrap();
        assert_eq!(plans.get("x").unwrap().api_requests_per_day, 2);
        assert!(Plans::parse("[]").is_err());
        assert!(Plans::parse("nope").is_err());
    }
}
