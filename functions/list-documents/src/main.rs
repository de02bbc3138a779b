//! Lambda for the API route served by `service::handlers::list_documents::list_documents`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::ListDocumentsConfig::from_env()?;
    let sdk = adapters::aws_config().await;
    let origin = adapters::wiring::origin_check_from_env(&sdk).await?;
    let (deps, links) = adapters::wiring::list_documents(config, &sdk);
    let (deps, links, origin) = (&deps, &links, &origin);
    run(service_fn(move |req| {
        service::http::serve(req, origin, move |req| {
            service::handlers::list_documents::list_documents(deps, links, req)
        })
    }))
    .await
}
