//! Lambda for the data providers' webhooks (`POST /webhooks/providers/plaid`).

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::ProviderWebhooksConfig::from_env()?;
    let sdk = adapters::aws_config().await;
    let origin = adapters::wiring::origin_check_from_env(&sdk).await?;
    let deps = adapters::wiring::provider_webhooks(config, &sdk).await?;
    let (deps, origin) = (&deps, &origin);
    run(service_fn(move |req| {
        service::http::serve(req, origin, move |req| {
            service::handlers::provider_webhooks::provider_webhooks(deps, req)
        })
    }))
    .await
}
