//! Lambda for the API route served by `service::handlers::review_documents::review_documents`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::Settings::from_env()?;
    let deps = adapters::wiring::api(config, &adapters::aws_config().await);
    let deps = &deps;
    run(service_fn(move |req| {
        service::http::serve(req, move |req| {
            service::handlers::review_documents::review_documents(deps, req)
        })
    }))
    .await
}
