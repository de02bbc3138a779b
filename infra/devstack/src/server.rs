//! A local HTTP server that routes like the HttpApi in template.yaml and calls the very handlers the
//! Lambda functions call. It stands in for API Gateway + Lambda on a machine without containers.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use adapters::dynamo::DynamoStore;
use domain::error::ApiError;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use ports::SystemClock;
use service::handlers::api::{self, ApiDeps};
use service::handlers::cancel_verification::cancel_verification;
use service::handlers::create_verification::create_verification;
use service::handlers::erase_verification_data::erase_verification_data;
use service::handlers::get_report::get_report;
use service::handlers::get_usage::get_usage;
use service::handlers::get_verification::get_verification;
use service::handlers::households;
use service::handlers::list_documents::list_documents;
use service::handlers::list_verifications::list_verifications;
use service::handlers::list_webhook_deliveries::list_webhook_deliveries;
use service::handlers::provider_webhooks::provider_webhooks;
use service::handlers::redeliver_webhook::redeliver_webhook;
use service::handlers::resend_verification::resend_verification;
use service::handlers::review_documents::review_documents;
use service::handlers::tenant_portal::tenant_portal;
use service::http::{ApiRequest, ApiResponse, parse_query};
use service::routes::{Function, Resolved, resolve};
use tokio::net::TcpListener;

/// Everything the routes need.
pub struct App {
    pub api: ApiDeps<DynamoStore, SystemClock>,
    /// The local stack has no bank-data provider: live verifications use the local sandbox (or
    /// none, or a Plaid on loopback in tests).
    pub portal: adapters::wiring::Portal,
    /// The documents bucket: `list-documents`' download links, and the uploads
    /// `erase-verification-data` erases.
    pub documents: adapters::s3::S3Objects,
    /// `provider-webhooks`: Plaid's webhooks, checked with the Plaid emulator's keys when the
    /// stack runs one (none otherwise: the route answers 404).
    pub provider_webhooks: adapters::wiring::ProviderWebhooks,
    /// The edge's origin check every HTTP function makes before its handler (off unless a test
    /// turns it on, as `EdgeProtection` does on AWS).
    pub origin: service::http::OriginCheck,
}

/// Which deps each HTTP function runs with: one `App` for all (the local stack), or one per
/// function (the least-privilege test gives each function AWS clients of its own).
pub trait Apps: Send + Sync + 'static {
    fn app(&self, function: Function) -> &App;
}

impl Apps for App {
    fn app(&self, _: Function) -> &App {
        self
    }
}

/// One `App` per HTTP function.
pub struct PerFunction(pub std::collections::HashMap<Function, Arc<App>>);

impl Apps for PerFunction {
    fn app(&self, function: Function) -> &App {
        &self.0[&function]
    }
}

/// Routes like the HttpApi of template.yaml (the table in `service::routes`), then, once the
/// function's origin check admitted the request (as `service::http::serve` does on AWS), calls its
/// handler.
pub async fn route<A: Apps + ?Sized>(apps: &A, req: ApiRequest) -> ApiResponse {
    match resolve(req.method.as_str(), &req.path) {
        Resolved::Function(function) => {
            let app = apps.app(function);
            match app.origin.admit(req) {
                Ok(req) => handle(app, function, req).await,
                Err(refused) => refused,
            }
        }
        Resolved::MethodNotAllowed { allow } => {
            api::error_response(&ApiError::MethodNotAllowed, &req.request_id)
                .with_header("allow", allow)
                .with_header("x-request-id", req.request_id.clone())
        }
        Resolved::NotFound => {
            api::error_response(&ApiError::NotFound("No such route".into()), &req.request_id)
                .with_header("x-request-id", req.request_id.clone())
        }
    }
}

/// Calls the handler of an HTTP function, as its `main.rs` does (after the origin check).
pub async fn handle(app: &App, function: Function, req: ApiRequest) -> ApiResponse {
    match function {
        Function::CreateVerification => create_verification(&app.api, req).await,
        Function::GetVerification => get_verification(&app.api, req).await,
        Function::CancelVerification => cancel_verification(&app.api, req).await,
        Function::ListVerifications => list_verifications(&app.api, req).await,
        Function::GetUsage => get_usage(&app.api, req).await,
        Function::GetReport => get_report(&app.api, req).await,
        Function::ListDocuments => list_documents(&app.api, &app.documents, req).await,
        Function::ListWebhookDeliveries => list_webhook_deliveries(&app.api, req).await,
        Function::RedeliverWebhook => redeliver_webhook(&app.api, req).await,
        Function::ResendVerification => resend_verification(&app.api, req).await,
        Function::CreateHousehold => households::create_household(&app.api, req).await,
        Function::GetHousehold => households::get_household(&app.api, req).await,
        Function::CancelHousehold => households::cancel_household(&app.api, req).await,
        Function::EraseVerificationData => {
            erase_verification_data(&app.api, &app.documents, req).await
        }
        Function::ReviewDocuments => review_documents(&app.api, req).await,
        Function::TenantPortal => tenant_portal(&app.portal, req).await,
        Function::ProviderWebhooks => provider_webhooks(&app.provider_webhooks, req).await,
        Function::PublishEvents
        | Function::RetryEvents
        | Function::DeliverWebhook
        | Function::ExpireVerifications
        | Function::SendReminders
        | Function::AnalyzeDocument => {
            unreachable!("{} has no HTTP route", function.name())
        }
    }
}

/// Largest body the local server reads (API Gateway's own limit is far higher; the handler
/// enforces the service's).
const MAX_READ: usize = 1024 * 1024;

async fn to_api_request(req: hyper::Request<Incoming>) -> Result<ApiRequest, ApiResponse> {
    let (parts, body) = req.into_parts();
    let request_id = uuid::Uuid::new_v4().to_string();
    let body = match Limited::new(body, MAX_READ).collect().await {
        Ok(collected) => collected.to_bytes().to_vec(),
        Err(_) => {
            return Err(api::error_response(
                &ApiError::PayloadTooLarge { limit: MAX_READ },
                &request_id,
            ));
        }
    };
    Ok(ApiRequest {
        method: parts.method,
        path: parts.uri.path().to_string(),
        query: parse_query(parts.uri.query().unwrap_or("")),
        headers: parts.headers,
        body,
        request_id,
    })
}

fn to_hyper(resp: ApiResponse) -> hyper::Response<Full<Bytes>> {
    service::http::to_http(resp, |body| Full::new(Bytes::from(body.into_bytes())))
}

/// Serves `app` on `listener` until the task is dropped.
pub async fn serve<A: Apps>(listener: TcpListener, app: Arc<A>) {
    serve_kicking(listener, app, None).await
}

/// Bumped after each request is answered: what `make dev`'s pumps wait on, so that a write is
/// pumped as soon as it is made rather than at the next tick.
pub type Kick = Arc<tokio::sync::watch::Sender<u64>>;

/// Bumps `kick`.
pub fn kick(kick: &Kick) {
    kick.send_modify(|n| *n = n.wrapping_add(1));
}

/// `serve`, bumping `kick` (if any) after each request.
pub async fn serve_kicking<A: Apps>(listener: TcpListener, app: Arc<A>, after: Option<Kick>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let (app, after) = (app.clone(), after.clone());
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let (app, after) = (app.clone(), after.clone());
                async move {
                    let resp = match to_api_request(req).await {
                        Ok(req) => route(&*app, req).await,
                        Err(resp) => resp,
                    };
                    if let Some(after) = &after {
                        kick(after);
                    }
                    Ok::<_, Infallible>(to_hyper(resp))
                }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Binds 127.0.0.1:`port` (0 for any free port) and serves in the background.
pub async fn spawn<A: Apps>(app: Arc<A>, port: u16) -> std::io::Result<SocketAddr> {
    spawn_kicking(app, port, None).await
}

/// `spawn`, bumping `kick` (if any) after each request.
pub async fn spawn_kicking<A: Apps>(
    app: Arc<A>,
    port: u16,
    kick: Option<Kick>,
) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(serve_kicking(listener, app, kick));
    Ok(addr)
}

/// Waits for the next bump of `kick` (one made since the last wait counts) or `idle`, whichever
/// comes first: a pump's pause between two polls of a source with nothing new.
pub async fn kicked_or(kicks: &mut tokio::sync::watch::Receiver<u64>, idle: std::time::Duration) {
    let _ = tokio::time::timeout(idle, kicks.changed()).await;
}
