//! The scheduler port on EventBridge Scheduler: one-time `at(...)` schedules in the service's
//! schedule group that invoke `send-reminders` and delete themselves after running.

use aws_sdk_scheduler::operation::create_schedule::CreateScheduleError;
use aws_sdk_scheduler::types::{
    ActionAfterCompletion, FlexibleTimeWindow, FlexibleTimeWindowMode, RetryPolicy, Target,
};

use ports::{OneTimeSchedule, Scheduler, StoreError};

/// Where the schedules live and what they invoke.
#[derive(Clone)]
pub struct EventBridgeScheduler {
    client: aws_sdk_scheduler::Client,
    group: String,
    target_arn: String,
    role_arn: String,
}

impl EventBridgeScheduler {
    pub fn new(
        client: aws_sdk_scheduler::Client,
        group: impl Into<String>,
        target_arn: impl Into<String>,
        role_arn: impl Into<String>,
    ) -> Self {
        EventBridgeScheduler {
            client,
            group: group.into(),
            target_arn: target_arn.into(),
            role_arn: role_arn.into(),
        }
    }
}

/// `at(yyyy-mm-ddThh:mm:ss)` in UTC (the expression takes no zone suffix; the zone is separate).
pub fn at_expression(at: chrono::DateTime<chrono::Utc>) -> String {
    format!("at({})", at.format("%Y-%m-%dT%H:%M:%S"))
}

impl Scheduler for EventBridgeScheduler {
    async fn create_once(&self, schedule: &OneTimeSchedule) -> Result<(), StoreError> {
        let bad = |e: aws_sdk_scheduler::error::BuildError| StoreError::Unavailable(e.to_string());
        let target = Target::builder()
            .arn(&self.target_arn)
            .role_arn(&self.role_arn)
            .input(&schedule.payload)
            // Scheduler's own retries of the invocation (the function's failures are retried by
            // Lambda's asynchronous invocation).
            .retry_policy(
                RetryPolicy::builder()
                    .maximum_retry_attempts(10)
                    .maximum_event_age_in_seconds(6 * 3600)
                    .build(),
            )
            .build()
            .map_err(bad)?;
        let window = FlexibleTimeWindow::builder()
            .mode(FlexibleTimeWindowMode::Off)
            .build()
            .map_err(bad)?;
        let result = self
            .client
            .create_schedule()
            .name(&schedule.name)
            .group_name(&self.group)
            .schedule_expression(at_expression(schedule.at))
            .schedule_expression_timezone("UTC")
            .flexible_time_window(window)
            .target(target)
            .action_after_completion(ActionAfterCompletion::Delete)
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            // Created by an earlier attempt (a redelivered stream record): done.
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(CreateScheduleError::ConflictException(_))
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(StoreError::Unavailable(
                aws_sdk_scheduler::error::DisplayErrorContext(&e).to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_expressions_have_no_zone_suffix() {
        let t = chrono::DateTime::parse_from_rfc3339("2026-11-24T10:15:30.250Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(at_expression(t), "at(2026-11-24T10:15:30)");
    }
}
