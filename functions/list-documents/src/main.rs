//! Lambda for the API route served by `shared::handlers::api::list_documents`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::ListDocumentsConfig::from_env()?;
    let (deps, links) = shared::wiring::list_documents(config, &shared::aws_config().await);
    let (deps, links) = (&deps, &links);
    run(service_fn(move |req| {
        shared::http::serve(req, move |req| {
            shared::handlers::api::list_documents(deps, links, req)
        })
    }))
    .await
}
