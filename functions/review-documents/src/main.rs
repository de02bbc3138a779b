//! Lambda for the API route served by `shared::handlers::api::review_documents`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::Settings::from_env()?;
    let deps = shared::wiring::api(config, &shared::aws_config().await);
    let deps = &deps;
    run(service_fn(move |req| {
        shared::http::serve(req, move |req| {
            shared::handlers::api::review_documents(deps, req)
        })
    }))
    .await
}
