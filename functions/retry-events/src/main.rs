//! SQS consumer of the retry queue: redoes outbox work that failed (tenant e-mail, webhook
//! enqueue, invite SMS, reminder schedules, household work) with a growing back-off, reporting
//! only what failed again.
// The retry future nests the whole outbox path (store, SES, SNS, Scheduler, SQS) in one type.
#![recursion_limit = "256"]

use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::PublishEventsConfig::from_env()?;
    let deps = adapters::wiring::publish_events(config, &adapters::aws_config().await).await?;
    let deps = &deps;
    run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        Ok::<_, Error>(service::handlers::retry_events::retry_events(deps, event.payload).await)
    }))
    .await
}
