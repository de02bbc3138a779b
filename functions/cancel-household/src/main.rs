//! Lambda for the API route served by `service::handlers::households::cancel_household`.

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::Settings::from_env()?;
    let sdk = adapters::aws_config().await;
    let origin = adapters::wiring::origin_check_from_env(&sdk).await?;
    let deps = adapters::wiring::api(config, &sdk);
    let (deps, origin) = (&deps, &origin);
    run(service_fn(move |req| {
        service::http::serve(req, origin, move |req| {
            service::handlers::households::cancel_household(deps, req)
        })
    }))
    .await
}
