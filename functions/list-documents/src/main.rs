//! Lambda for the API route served by `service::handlers::list_documents::list_documents`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::ListDocumentsConfig::from_env()?;
    let (deps, links) = adapters::wiring::list_documents(config, &adapters::aws_config().await);
    let (deps, links) = (&deps, &links);
    run(service_fn(move |req| {
        service::http::serve(req, move |req| {
            service::handlers::list_documents::list_documents(deps, links, req)
        })
    }))
    .await
}
