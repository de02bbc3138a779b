//! Lambda for the API route served by `service::handlers::erase_verification_data::erase_verification_data`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::EraseVerificationDataConfig::from_env()?;
    let (deps, documents) =
        adapters::wiring::erase_verification_data(config, &adapters::aws_config().await);
    let (deps, documents) = (&deps, &documents);
    run(service_fn(move |req| {
        service::http::serve(req, move |req| {
            service::handlers::erase_verification_data::erase_verification_data(
                deps, documents, req,
            )
        })
    }))
    .await
}
