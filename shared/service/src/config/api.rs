//! Configuration of the API functions (create, get, cancel, list verifications; usage; the report
//! PDF `get-report`).

use chrono::Duration;

use super::{ConfigError, Env, LiveIncome, plans_from_env, sms_countries};
use domain::VERIFICATION_LIFETIME;
use domain::plans::Plans;
use domain::reach::PhoneRegion;
use domain::sms::SmsCountries;
use domain::webhook::LocalWebhookOrigins;

/// Settings of the HTTP API functions.
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
    /// The region a `tenant_phone` without a country code is read in (`SMS_DEFAULT_REGION`, US).
    pub sms_region: PhoneRegion,
    /// The countries a `tenant_phone` may belong to (`SMS_COUNTRIES`, US and CA).
    pub sms_countries: SmsCountries,
    /// `DOCUMENT_BUCKET` set: the stack takes uploaded documents, so `document` is a method a
    /// create may name.
    pub documents: bool,
}

impl Settings {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        let verification_lifetime = env
            .positive_seconds::<i64>("VERIFICATION_LIFETIME_SECONDS")?
            .map_or(VERIFICATION_LIFETIME, Duration::seconds);
        Ok(Settings {
            table_name: env.required("TABLE_NAME")?,
            public_base_url: env.base_url("PUBLIC_BASE_URL"),
            plans: plans_from_env(env)?,
            local_webhook_origins: env.local_webhook_origins()?,
            verification_lifetime,
            live_income: LiveIncome::from_env(env)?,
            sms_region: match env.optional("SMS_DEFAULT_REGION") {
                None => PhoneRegion::default(),
                Some(code) => PhoneRegion::parse(&code).ok_or_else(|| {
                    ConfigError(format!(
                        "SMS_DEFAULT_REGION must be a region code such as US, not '{code}'"
                    ))
                })?,
            },
            sms_countries: sms_countries(env)?,
            documents: env.optional("DOCUMENT_BUCKET").is_some(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_settings_parse_with_defaults_for_unset_variables() {
        let settings = Settings::parse(&Env::from_pairs([
            ("TABLE_NAME", "t"),
            ("PUBLIC_BASE_URL", "https://verify.example.com/"),
        ]))
        .unwrap();
        assert_eq!(settings.table_name, "t");
        assert_eq!(
            settings.public_base_url.as_deref(),
            Some("https://verify.example.com")
        );
        assert_eq!(settings.plans, Plans::defaults());
        assert_eq!(settings.verification_lifetime, VERIFICATION_LIFETIME);
        assert_eq!(settings.live_income, LiveIncome::none());
        assert_eq!(settings.sms_region, PhoneRegion::default());
        assert_eq!(settings.sms_countries, SmsCountries::default());
    }

    #[test]
    fn api_settings_refuse_bad_values_by_name() {
        for (name, value) in [
            ("TABLE_NAME", ""),
            ("VERIFICATION_LIFETIME_SECONDS", "soon"),
            ("PLANS", "[]"),
            ("INCOME_PROVIDERS", "bank"),
            ("LOCAL_WEBHOOK_ORIGINS", "http://10.0.0.1:80"),
            ("SMS_DEFAULT_REGION", "Atlantis"),
            ("SMS_COUNTRIES", "US,Atlantis"),
        ] {
            let mut vars = vec![("TABLE_NAME", "t")];
            vars.retain(|(n, _)| *n != name);
            vars.push((name, value));
            let refused = Settings::parse(&Env::from_pairs(vars))
                .unwrap_err()
                .to_string();
            assert!(refused.contains(name), "{name}: {refused}");
        }
    }
}
