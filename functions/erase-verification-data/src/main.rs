//! Lambda for the API route served by `service::handlers::erase_verification_data::erase_verification_data`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::EraseVerificationDataConfig::from_env()?;
    let sdk = adapters::aws_config().await;
    let origin = adapters::wiring::origin_check_from_env(&sdk).await?;
    let (deps, documents) = adapters::wiring::erase_verification_data(config, &sdk);
    let (deps, documents, origin) = (&deps, &documents, &origin);
    run(service_fn(move |req| {
        service::http::serve(req, origin, move |req| {
            service::handlers::erase_verification_data::erase_verification_data(
                deps, documents, req,
            )
        })
    }))
    .await
}
