//! Invoked by a one-time EventBridge Scheduler schedule at a reminder point: the reminder e-mail
//! and SMS, each at most once. An error makes Lambda's asynchronous invocation retry it.

use lambda_runtime::{Error, LambdaEvent, run, service_fn};
use service::handlers::reach_events::ReminderPayload;

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::ReachConfig::from_env()?;
    let deps = adapters::wiring::send_reminders(config, &adapters::aws_config().await);
    let deps = &deps;
    run(service_fn(
        move |event: LambdaEvent<ReminderPayload>| async move {
            service::handlers::send_reminders::send_reminders(deps, event.payload).await?;
            Ok::<_, Error>(serde_json::json!({"sent": true}))
        },
    ))
    .await
}
