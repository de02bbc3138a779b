//! What moto's EventBridge Scheduler lacks: it stores one-time `at(...)` schedules but never fires
//! them. This pump lists the reminder group's schedules, invokes `send-reminders` with each due
//! schedule's input (as the scheduler's asynchronous invocation would), and deletes it once it
//! ran (`ActionAfterCompletion: DELETE`). A failed invocation is retried on the next passes, at
//! most `ATTEMPTS` times in all (Lambda's asynchronous invocation: the first try and two retries),
//! so the pump is bounded.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime, Utc};
use ports::store::prelude::*;
use ports::{Clock, Mailer, Queue, Texter};
use service::handlers::reach_events::ReminderPayload;
use service::handlers::send_reminders::ReachDeps;

/// Invocations of one schedule before it is given up (Lambda async: 1 + 2 retries).
pub const ATTEMPTS: u32 = 3;

/// When an `at(yyyy-mm-ddThh:mm:ss)` expression (UTC) falls.
pub fn at_time(expression: &str) -> Option<DateTime<Utc>> {
    let inner = expression.strip_prefix("at(")?.strip_suffix(')')?;
    NaiveDateTime::parse_from_str(inner, "%Y-%m-%dT%H:%M:%S")
        .ok()
        .map(|t| t.and_utc())
}

/// Fires the reminder schedules of `group` that are due at `now`. Returns how many it invoked.
pub async fn pump_schedules_once<S, M, T, Q, C>(
    client: &aws_sdk_scheduler::Client,
    group: &str,
    reach: &ReachDeps<S, M, T, Q, C>,
    attempts: &mut HashMap<String, u32>,
    now: DateTime<Utc>,
) -> Result<usize, String>
where
    S: Store,
    M: Mailer,
    T: Texter,
    Q: Queue,
    C: Clock,
{
    let listed = client
        .list_schedules()
        .group_name(group)
        .send()
        .await
        .map_err(|e| format!("list schedules: {e}"))?;
    let mut fired = 0;
    for summary in listed.schedules() {
        let Some(name) = summary.name() else { continue };
        let schedule = client
            .get_schedule()
            .group_name(group)
            .name(name)
            .send()
            .await
            .map_err(|e| format!("get schedule: {e}"))?;
        let due = schedule
            .schedule_expression()
            .and_then(at_time)
            .is_some_and(|at| at <= now);
        if !due {
            continue;
        }
        let input = schedule.target().and_then(|t| t.input()).unwrap_or("{}");
        let done = match serde_json::from_str::<ReminderPayload>(input) {
            Ok(payload) => {
                fired += 1;
                let result =
                    service::handlers::send_reminders::send_reminders(reach, payload).await;
                let tried = attempts.entry(name.to_string()).or_insert(0);
                *tried += 1;
                match result {
                    Ok(()) => true,
                    Err(e) if *tried < ATTEMPTS => {
                        tracing::warn!(schedule = %name, error = %e, "reminder failed; retried on the next pass");
                        false
                    }
                    Err(e) => {
                        tracing::error!(schedule = %name, error = %e, "reminder failed on every attempt; dropped");
                        true
                    }
                }
            }
            Err(e) => {
                tracing::error!(schedule = %name, error = %e, "unreadable schedule input; dropped");
                true
            }
        };
        if done {
            attempts.remove(name);
            client
                .delete_schedule()
                .group_name(group)
                .name(name)
                .send()
                .await
                .map_err(|e| format!("delete schedule: {e}"))?;
        }
    }
    Ok(fired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_expressions_read_back() {
        let t = at_time("at(2026-11-24T10:15:30)").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-24T10:15:30+00:00");
        assert_eq!(at_time("rate(5 minutes)"), None);
    }
}
