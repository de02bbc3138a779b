//! Invoked by a one-time EventBridge Scheduler schedule at a reminder point: the reminder e-mail
//! and SMS, each at most once. An error makes Lambda's asynchronous invocation retry it.

use lambda_runtime::{Error, LambdaEvent, run, service_fn};
use shared::handlers::reach_events::ReminderPayload;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::ReachConfig::from_env()?;
    let deps = shared::wiring::send_reminders(config, &shared::aws_config().await);
    let deps = &deps;
    run(service_fn(
        move |event: LambdaEvent<ReminderPayload>| async move {
            shared::handlers::send_reminders::send_reminders(deps, event.payload).await?;
            Ok::<_, Error>(serde_json::json!({"sent": true}))
        },
    ))
    .await
}
