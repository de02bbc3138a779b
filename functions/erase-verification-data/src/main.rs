//! Lambda for the API route served by `shared::handlers::api::erase_verification_data`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::EraseVerificationDataConfig::from_env()?;
    let (deps, documents) =
        shared::wiring::erase_verification_data(config, &shared::aws_config().await);
    let (deps, documents) = (&deps, &documents);
    run(service_fn(move |req| {
        shared::http::serve(req, move |req| {
            shared::handlers::api::erase_verification_data(deps, documents, req)
        })
    }))
    .await
}
