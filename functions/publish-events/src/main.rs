//! Stream consumer (the outbox): tenant e-mail on insert, webhook message on status change.

use aws_lambda_events::event::dynamodb::Event;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::PublishEventsConfig::from_env()?;
    let deps = shared::wiring::publish_events(config, &shared::aws_config().await);
    let deps = &deps;
    run(service_fn(move |event: LambdaEvent<Event>| async move {
        Ok::<_, Error>(shared::handlers::publish_events::publish_events(deps, event.payload).await)
    }))
    .await
}
