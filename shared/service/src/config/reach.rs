//! Configuration of the tenant's reminders and SMS: `send-reminders`, and where the outbox
//! (`publish-events`, `retry-events`) creates the reminder schedules.

use chrono::Duration;

use super::{ConfigError, Env, TestModeDelivery, plans_from_env};
use domain::plans::Plans;
use domain::reach::DEFAULT_REMINDER_OFFSETS;
use domain::sms::SmsCountries;

/// `SMS_COUNTRIES`: the destination countries SMS may go to, comma-separated region codes
/// (default `US,CA`). Read by the API (a create refuses other numbers) and by every sender (a
/// number the list no longer allows is not texted).
pub fn sms_countries(env: &Env) -> Result<SmsCountries, ConfigError> {
    match env.optional("SMS_COUNTRIES") {
        None => Ok(SmsCountries::default()),
        Some(raw) => SmsCountries::parse(&raw).ok_or_else(|| {
            ConfigError(format!(
                "SMS_COUNTRIES must be region codes such as US,CA, comma-separated, not '{raw}'"
            ))
        }),
    }
}

/// What bounds the texts a sender sends: the countries, and each plan's monthly SMS allowance.
#[derive(Debug, Clone)]
pub struct SmsBounds {
    pub countries: SmsCountries,
    pub plans: Plans,
}

impl Default for SmsBounds {
    fn default() -> Self {
        SmsBounds {
            countries: SmsCountries::default(),
            plans: Plans::defaults(),
        }
    }
}

impl SmsBounds {
    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(SmsBounds {
            countries: sms_countries(env)?,
            plans: plans_from_env(env)?,
        })
    }
}

/// Where the outbox puts the reminder schedules, and what they invoke.
#[derive(Debug, Clone)]
pub struct ReminderSchedules {
    /// The EventBridge Scheduler schedule group (`REMINDER_SCHEDULE_GROUP`).
    pub group: String,
    /// `send-reminders`' ARN (`REMINDER_FUNCTION_ARN`).
    pub target_arn: String,
    /// The role the scheduler invokes it with (`REMINDER_SCHEDULER_ROLE_ARN`).
    pub role_arn: String,
}

impl ReminderSchedules {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(ReminderSchedules {
            group: env.required("REMINDER_SCHEDULE_GROUP")?,
            target_arn: env.required("REMINDER_FUNCTION_ARN")?,
            role_arn: env.required("REMINDER_SCHEDULER_ROLE_ARN")?,
        })
    }
}

#[derive(Debug, Clone)]
pub struct ReachConfig {
    pub table_name: String,
    pub sender_email: String,
    /// The webhook queue (`verification.reminder_sent`).
    pub webhook_queue_url: String,
    /// Base URL of the tenant page, without a trailing slash.
    pub public_base_url: String,
    pub test_mode_delivery: TestModeDelivery,
    /// `REMINDER_OFFSETS_SECONDS`: comma-separated seconds before expiry (default 72 h and 24 h;
    /// the local stack shortens them with the lifetime).
    pub reminder_offsets: Vec<Duration>,
    pub sms: SmsBounds,
}

/// Parses `REMINDER_OFFSETS_SECONDS` (at most two positive whole numbers of seconds).
pub fn parse_offsets(raw: Option<&str>) -> Result<Vec<Duration>, ConfigError> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_REMINDER_OFFSETS.to_vec());
    };
    let refuse = || {
        ConfigError(format!(
            "REMINDER_OFFSETS_SECONDS must be one or two positive whole numbers of seconds, comma-separated, not '{raw}'"
        ))
    };
    let offsets = raw
        .split(',')
        .map(|part| {
            part.trim()
                .parse::<i64>()
                .ok()
                .filter(|s| *s > 0)
                .map(Duration::seconds)
                .ok_or_else(refuse)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if offsets.is_empty() || offsets.len() > 2 {
        return Err(refuse());
    }
    Ok(offsets)
}

impl ReachConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(ReachConfig {
            table_name: env.required("TABLE_NAME")?,
            sender_email: env.required("SENDER_EMAIL")?,
            webhook_queue_url: env.required("WEBHOOK_QUEUE_URL")?,
            public_base_url: env
                .base_url("PUBLIC_BASE_URL")
                .ok_or_else(|| ConfigError("PUBLIC_BASE_URL is not set".into()))?,
            test_mode_delivery: TestModeDelivery::from_env(env)?,
            reminder_offsets: parse_offsets(env.optional("REMINDER_OFFSETS_SECONDS").as_deref())?,
            sms: SmsBounds::parse(env)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_default_to_72h_and_24h_and_refuse_nonsense() {
        assert_eq!(
            parse_offsets(None).unwrap(),
            vec![Duration::hours(72), Duration::hours(24)]
        );
        assert_eq!(
            parse_offsets(Some("420, 180")).unwrap(),
            vec![Duration::minutes(7), Duration::minutes(3)]
        );
        for bad in ["", "0", "-5", "1,2,3", "soon", "60,"] {
            let refused = parse_offsets(Some(bad)).unwrap_err().to_string();
            assert!(
                refused.contains("REMINDER_OFFSETS_SECONDS"),
                "{bad}: {refused}"
            );
        }
    }

    #[test]
    fn sms_countries_default_to_us_and_ca_and_refuse_unknown_codes() {
        let unset = SmsBounds::parse(&Env::from_pairs([("SMS_COUNTRIES", " ")])).unwrap();
        assert_eq!(unset.countries, SmsCountries::default());
        assert_eq!(unset.plans, Plans::defaults());
        let gb = sms_countries(&Env::from_pairs([("SMS_COUNTRIES", "gb")])).unwrap();
        assert_eq!(gb.names(), "GB");
        let refused = sms_countries(&Env::from_pairs([("SMS_COUNTRIES", "US,Mars")]))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("SMS_COUNTRIES"), "{refused}");
    }

    #[test]
    fn every_resource_is_required_by_name() {
        let all = [
            ("TABLE_NAME", "t"),
            ("SENDER_EMAIL", "no-reply@example.com"),
            ("WEBHOOK_QUEUE_URL", "https://sqs/w"),
            ("PUBLIC_BASE_URL", "https://verify.example.com"),
        ];
        let config = ReachConfig::parse(&Env::from_pairs(all)).unwrap();
        assert_eq!(config.test_mode_delivery, TestModeDelivery::Suppress);
        assert_eq!(config.reminder_offsets.len(), 2);
        for (name, _) in all {
            let vars = all.iter().filter(|(n, _)| *n != name).copied();
            let refused = ReachConfig::parse(&Env::from_pairs(vars))
                .unwrap_err()
                .to_string();
            assert!(refused.contains(name), "{refused}");
        }
        let schedules = [
            ("REMINDER_SCHEDULE_GROUP", "g"),
            (
                "REMINDER_FUNCTION_ARN",
                "arn:aws:lambda:us-east-1:1:function:f",
            ),
            ("REMINDER_SCHEDULER_ROLE_ARN", "arn:aws:iam::1:role/r"),
        ];
        assert_eq!(
            ReminderSchedules::parse(&Env::from_pairs(schedules))
                .unwrap()
                .group,
            "g"
        );
        for (name, _) in schedules {
            let vars = schedules.iter().filter(|(n, _)| *n != name).copied();
            let refused = ReminderSchedules::parse(&Env::from_pairs(vars))
                .unwrap_err()
                .to_string();
            assert!(refused.contains(name), "{refused}");
        }
    }
}
