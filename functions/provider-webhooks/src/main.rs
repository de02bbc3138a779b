//! Lambda for the data providers' webhooks (`POST /webhooks/providers/plaid`).

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::ProviderWebhooksConfig::from_env()?;
    let deps = adapters::wiring::provider_webhooks(config, &adapters::aws_config().await).await?;
    let deps = &deps;
    run(service_fn(move |req| {
        service::http::serve(req, move |req| {
            service::handlers::provider_webhooks::provider_webhooks(deps, req)
        })
    }))
    .await
}
