//! Stream consumer (the outbox): tenant e-mail, invite SMS and reminder schedules on insert,
//! webhook message on status change, a resent round's e-mail and SMS; failed work goes to the
//! retry queue.

use aws_lambda_events::event::dynamodb::Event;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::PublishEventsConfig::from_env()?;
    let deps = adapters::wiring::publish_events(config, &adapters::aws_config().await).await?;
    let deps = &deps;
    run(service_fn(move |event: LambdaEvent<Event>| async move {
        // Boxed: the handler's future is deep, and nesting it in this block's would pass the
        // compiler's type-depth limit.
        let response = Box::pin(service::handlers::publish_events::publish_events(
            deps,
            event.payload,
        ))
        .await;
        Ok::<_, Error>(response)
    }))
    .await
}
