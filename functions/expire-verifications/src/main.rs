//! Stream consumer of TTL deletions of expiry and erasure markers: moves open verifications to
//! expired, and erases closed ones (their uploaded documents too) when their retention ends.

use aws_lambda_events::event::dynamodb::Event;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::ExpireVerificationsConfig::from_env()?;
    let deps = adapters::wiring::expire_verifications(config, &adapters::aws_config().await);
    let deps = &deps;
    run(service_fn(move |event: LambdaEvent<Event>| async move {
        Ok::<_, Error>(
            service::handlers::expire_verifications::expire_verifications(deps, event.payload)
                .await,
        )
    }))
    .await
}
