//! The local stack: moto on loopback, the resources of template.yaml, a demo account, an HTTP
//! server that routes to the functions' handlers, and (for what moto lacks) the stream and queue
//! pumps. `make dev` runs it; the tests use the same pieces.

pub mod moto;
pub mod server;
pub mod stack;

use std::sync::Arc;

use shared::api::ApiDeps;
use shared::config::{Plans, Settings};
use shared::dynamo::DynamoStore;
use shared::ports::SystemClock;

/// Settings of the HTTP handlers for a local stack whose pages are served at `base_url`.
pub fn local_settings(table: &str, base_url: &str, lifetime: chrono::Duration) -> Settings {
    Settings {
        table_name: table.to_string(),
        public_base_url: Some(base_url.trim_end_matches('/').to_string()),
        plans: Plans::defaults(),
        allow_insecure_webhooks: true,
        verification_lifetime: lifetime,
    }
}

/// Builds the app that `server::route` serves.
pub fn app(sdk: &aws_config::SdkConfig, settings: Settings) -> Arc<server::App> {
    let store = DynamoStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        settings.table_name.clone(),
    );
    Arc::new(server::App {
        api: ApiDeps::new(store.clone(), SystemClock, settings),
        portal: shared::portal::PortalDeps {
            store,
            clock: SystemClock,
            live_provider: shared::sandbox::SandboxProvider,
            sandbox: shared::sandbox::SandboxProvider,
        },
    })
}
