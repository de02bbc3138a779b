//! Lambda for the tenant page behind the secure link (`/t/{verification_id}/{token}`).

use lambda_http::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::TenantPortalConfig::from_env()?;
    let sdk = adapters::aws_config().await;
    let origin = adapters::wiring::origin_check_from_env(&sdk).await?;
    let deps = adapters::wiring::tenant_portal(config, &sdk).await?;
    let (deps, origin) = (&deps, &origin);
    run(service_fn(move |req| {
        service::http::serve(req, origin, move |req| {
            service::handlers::tenant_portal::tenant_portal(deps, req)
        })
    }))
    .await
}
