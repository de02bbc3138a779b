//! Configuration of `publish-events` and `retry-events` (the second redoes the first's work, with
//! the same resources: the tenant e-mail, the webhook queue, the invite SMS, the reminder
//! schedules).

use chrono::Duration;

use super::{
    ConfigError, Env, LiveIncome, PlaidVariables, ProviderVariables, ReminderSchedules, SmsBounds,
    TestModeDelivery, parse_offsets,
};

#[derive(Debug, Clone)]
pub struct PublishEventsConfig {
    pub table_name: String,
    pub sender_email: String,
    pub webhook_queue_url: String,
    pub retry_queue_url: String,
    /// Base URL of the tenant page, without a trailing slash.
    pub public_base_url: String,
    pub test_mode_delivery: TestModeDelivery,
    /// Where a new verification's reminder schedules go, and what they invoke.
    pub schedules: ReminderSchedules,
    /// `REMINDER_OFFSETS_SECONDS` (see `ReachConfig`): when the reminders fall.
    pub reminder_offsets: Vec<Duration>,
    /// The countries SMS may go to and the plans' SMS allowances.
    pub sms: SmsBounds,
    /// `INCOME_PROVIDERS`: the providers whose data the outbox reads after a webhook, and whose
    /// tenant users it closes once a verification ended.
    pub live_income: LiveIncome,
    /// Read only when `live_income` uses Plaid Check; checked when the deps are built.
    pub plaid: PlaidVariables,
    /// Read only when `live_income` uses Argyle; checked when the deps are built.
    pub argyle: ProviderVariables,
}

impl PublishEventsConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        let (live_income, plaid, argyle) = ProviderVariables::with_live_income(env)?;
        Ok(PublishEventsConfig {
            live_income,
            plaid,
            argyle,
            table_name: env.required("TABLE_NAME")?,
            sender_email: env.required("SENDER_EMAIL")?,
            webhook_queue_url: env.required("WEBHOOK_QUEUE_URL")?,
            retry_queue_url: env.required("RETRY_QUEUE_URL")?,
            public_base_url: env
                .base_url("PUBLIC_BASE_URL")
                .ok_or_else(|| ConfigError("PUBLIC_BASE_URL is not set".into()))?,
            test_mode_delivery: TestModeDelivery::from_env(env)?,
            schedules: ReminderSchedules::parse(env)?,
            reminder_offsets: parse_offsets(env.optional("REMINDER_OFFSETS_SECONDS").as_deref())?,
            sms: SmsBounds::parse(env)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::reach::DEFAULT_REMINDER_OFFSETS;

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
    fn every_resource_is_required_by_name() {
        let all = [
            ("TABLE_NAME", "t"),
            ("SENDER_EMAIL", "no-reply@example.com"),
            ("WEBHOOK_QUEUE_URL", "https://sqs/w"),
            ("RETRY_QUEUE_URL", "https://sqs/r"),
            ("PUBLIC_BASE_URL", "https://verify.example.com"),
            // Both functions create the reminder schedules (a retry, too).
            ("REMINDER_SCHEDULE_GROUP", "g"),
            (
                "REMINDER_FUNCTION_ARN",
                "arn:aws:lambda:us-east-1:1:function:r",
            ),
            ("REMINDER_SCHEDULER_ROLE_ARN", "arn:aws:iam::1:role/s"),
        ];
        let config = PublishEventsConfig::parse(&Env::from_pairs(all)).unwrap();
        assert_eq!(config.test_mode_delivery, TestModeDelivery::Suppress);
        assert_eq!(config.reminder_offsets, DEFAULT_REMINDER_OFFSETS.to_vec());
        for (name, _) in all {
            let vars = all.iter().filter(|(n, _)| *n != name).copied();
            let refused = PublishEventsConfig::parse(&Env::from_pairs(vars))
                .unwrap_err()
                .to_string();
            assert!(refused.contains(name), "{refused}");
        }
        let bad = all.into_iter().chain([("TEST_MODE_DELIVERY", "always")]);
        let refused = PublishEventsConfig::parse(&Env::from_pairs(bad)).unwrap_err();
        assert!(refused.to_string().contains("TEST_MODE_DELIVERY"));
    }
}
