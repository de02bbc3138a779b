//! The local stack: moto on loopback, the resources of template.yaml, a demo account, an HTTP
//! server that routes to the functions' handlers, and (for what moto lacks) the stream and queue
//! pumps. `make dev` runs it; the tests use the same pieces.

pub mod moto;
pub mod pump;
pub mod receiver;
pub mod server;
pub mod stack;

use std::sync::Arc;

use shared::adapters::dynamo::DynamoStore;
use shared::config::{Plans, Settings};
use shared::domain::webhook::LocalWebhookOrigins;
use shared::handlers::api::ApiDeps;
use shared::handlers::tenant_portal::LiveProvider;
use shared::ports::SystemClock;

/// Settings of the HTTP handlers for a local stack whose pages are served at `base_url`. No
/// webhook receiver is listed yet: the stack adds its own once it is listening (tests add theirs).
pub fn local_settings(table: &str, base_url: &str, lifetime: chrono::Duration) -> Settings {
    Settings {
        table_name: table.to_string(),
        public_base_url: Some(base_url.trim_end_matches('/').to_string()),
        plans: Plans::defaults(),
        local_webhook_origins: LocalWebhookOrigins::default(),
        verification_lifetime: lifetime,
        // The local stack has no bank-data provider: live keys use the sandbox, marked as local.
        live_income: shared::config::LiveIncome::LocalSandbox,
    }
}

/// Builds the app that `server::route` serves, with the income provider `settings` name for live
/// verifications (the local sandbox, or none).
pub fn app(sdk: &aws_config::SdkConfig, settings: Settings) -> Arc<server::App> {
    let live_provider = match settings.live_income {
        shared::config::LiveIncome::LocalSandbox => LiveProvider::local_sandbox(),
        // The local stack holds no Plaid credentials: tests that need Plaid use `app_with`.
        _ => LiveProvider::None,
    };
    app_with(sdk, settings, live_provider)
}

/// The app with a given income provider for live verifications (tests: none, or Plaid on loopback).
pub fn app_with(
    sdk: &aws_config::SdkConfig,
    settings: Settings,
    live_provider: LiveProvider,
) -> Arc<server::App> {
    let store = DynamoStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        settings.table_name.clone(),
    );
    Arc::new(server::App {
        api: ApiDeps::new(store.clone(), SystemClock, settings),
        portal: shared::handlers::tenant_portal::PortalDeps {
            store,
            clock: SystemClock,
            live_provider,
            sandbox: shared::adapters::sandbox::SandboxProvider,
        },
    })
}

/// The stream and queue functions' dependencies, wired to the local resources.
pub struct Workers {
    pub outbox: pump::Outbox,
    pub expiry: pump::Expiry,
    pub delivery: pump::Delivery,
}

impl Workers {
    /// `backoff` is the webhook and outbox retry schedule (tests pass zeros to retry at once);
    /// `local_origins` the only non-public receivers webhooks may reach (share the API's list).
    pub fn new(
        sdk: &aws_config::SdkConfig,
        names: &stack::Resources,
        created: &stack::Created,
        base_url: &str,
        backoff: Vec<u32>,
        local_origins: &LocalWebhookOrigins,
    ) -> Self {
        let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(sdk), names.table.clone());
        let queue = shared::adapters::sqs::SqsQueue::new(
            aws_sdk_sqs::Client::new(sdk),
            created.webhook_queue_url.clone(),
        );
        Workers {
            outbox: shared::handlers::publish_events::OutboxDeps {
                store: store.clone(),
                mailer: shared::adapters::ses::SesMailer::new(
                    aws_sdk_sesv2::Client::new(sdk),
                    names.sender.clone(),
                ),
                queue: queue.clone(),
                retry_queue: shared::adapters::sqs::SqsQueue::new(
                    aws_sdk_sqs::Client::new(sdk),
                    created.retry_queue_url.clone(),
                ),
                clock: SystemClock,
                public_base_url: base_url.to_string(),
                // The local stack shows every e-mail, test mode included.
                test_mode_delivery: shared::config::TestModeDelivery::Send,
                // Same zeros as the webhook back-off in tests: a failed retry is visible at once.
                retry_backoff: backoff.clone(),
            },
            expiry: shared::handlers::expire_verifications::ExpiryDeps {
                store: store.clone(),
                clock: SystemClock,
            },
            delivery: shared::handlers::deliver_webhook::DeliveryDeps {
                store,
                queue,
                clock: SystemClock,
                client: shared::adapters::webhook_client::WebhookClient::new(
                    std::time::Duration::from_secs(10),
                    local_origins.clone(),
                ),
                backoff,
            },
        }
    }
}
