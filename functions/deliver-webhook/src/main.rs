//! SQS consumer: delivers signed webhooks, reporting only the failed messages.

use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::DeliverWebhookConfig::from_env()?;
    let deps = adapters::wiring::deliver_webhook(config, &adapters::aws_config().await);
    let deps = &deps;
    run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        Ok::<_, Error>(
            service::handlers::deliver_webhook::deliver_webhooks(deps, event.payload).await,
        )
    }))
    .await
}
