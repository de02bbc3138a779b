//! Stream consumer (the outbox): tenant e-mail on insert, webhook message on status change; and
//! for a new verification, its invite SMS and reminder schedules.

use aws_lambda_events::event::dynamodb::Event;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::PublishEventsConfig::from_env()?;
    let reach_config = shared::config::ReachConfig::from_env()?;
    let schedules = shared::config::ReminderSchedules::from_env()?;
    let sdk = shared::aws_config().await;
    let deps = shared::wiring::publish_events(config, &sdk);
    let reach = shared::wiring::publish_reach(reach_config, schedules, &sdk);
    let (deps, reach) = (&deps, &reach);
    run(service_fn(move |event: LambdaEvent<Event>| async move {
        // Boxed: both handlers' futures are deep, and nesting them in this block's would pass
        // the compiler's type-depth limit.
        let outbox = Box::pin(shared::handlers::publish_events::publish_events(
            deps,
            event.payload.clone(),
        ))
        .await;
        let reached = Box::pin(shared::handlers::reach_events::reach_events(
            reach,
            &event.payload,
        ))
        .await;
        Ok::<_, Error>(shared::handlers::reach_events::merge_responses(
            &event.payload,
            [outbox, reached],
        ))
    }))
    .await
}
