//! Lambda for the tenant page behind the secure link (`/t/{verification_id}/{token}`).

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::init_tracing();
    let config = shared::config::TenantPortalConfig::from_env()?;
    let deps = shared::wiring::tenant_portal(config, &shared::aws_config().await).await?;
    let deps = &deps;
    run(service_fn(move |req| {
        shared::http::serve(req, move |req| {
            shared::handlers::tenant_portal::tenant_portal(deps, req)
        })
    }))
    .await
}
