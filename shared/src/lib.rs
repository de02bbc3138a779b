//! The library every function of the Tenant Income Verification Service links.
//!
//! - `domain`, `report`, `secrets`, `webhook`: types and rules, no AWS imports;
//! - `ports`: one trait per outside system (store, mailer, queue, income provider, clock);
//! - `dynamo` (and the other adapters): the AWS implementations of the ports;
//! - `api`, `http`: the HTTP handlers and their Lambda glue.

pub mod adapters;
pub mod config;
pub mod domain;
pub mod error;
pub mod handlers;
pub mod http;
pub mod ports;
mod redact;

/// Logging set up once per cold start: JSON lines for CloudWatch, level from `RUST_LOG`.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter)
        .with_current_span(true)
        .with_span_list(false)
        .with_target(false)
        .without_time()
        .try_init();
}

/// Loads the AWS configuration once (region, credentials, endpoint from the environment).
pub async fn aws_config() -> aws_config::SdkConfig {
    aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await
}

/// Builds the HTTP functions' dependencies from the environment.
pub async fn api_deps_from_env()
-> Result<handlers::api::ApiDeps<adapters::dynamo::DynamoStore, ports::SystemClock>, config::ConfigError> {
    let settings = config::Settings::from_env()?;
    let sdk = aws_config().await;
    let store = adapters::dynamo::DynamoStore::new(
        aws_sdk_dynamodb::Client::new(&sdk),
        settings.table_name.clone(),
    );
    Ok(handlers::api::ApiDeps::new(store, ports::SystemClock, settings))
}

/// Builds `publish-events`' and `retry-events`' dependencies from the environment.
pub async fn outbox_deps_from_env() -> Result<
    handlers::publish_events::OutboxDeps<adapters::dynamo::DynamoStore, adapters::aws::SesMailer, adapters::aws::SqsQueue, ports::SystemClock>,
    config::ConfigError,
> {
    let sdk = aws_config().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    Ok(handlers::publish_events::OutboxDeps {
        store: adapters::dynamo::DynamoStore::new(
            aws_sdk_dynamodb::Client::new(&sdk),
            config::required("TABLE_NAME")?,
        ),
        mailer: adapters::aws::SesMailer::new(
            aws_sdk_sesv2::Client::new(&sdk),
            config::required("SENDER_EMAIL")?,
        ),
        queue: adapters::aws::SqsQueue::new(sqs.clone(), config::required("WEBHOOK_QUEUE_URL")?),
        retry_queue: adapters::aws::SqsQueue::new(sqs, config::required("RETRY_QUEUE_URL")?),
        clock: ports::SystemClock,
        public_base_url: config::required("PUBLIC_BASE_URL")?,
        test_mode_delivery: config::TestModeDelivery::from_env()?,
        retry_backoff: handlers::retry_events::DEFAULT_RETRY_BACKOFF.to_vec(),
    })
}

/// Builds `deliver-webhook`'s dependencies from the environment.
pub async fn delivery_deps_from_env() -> Result<
    handlers::deliver_webhook::DeliveryDeps<adapters::dynamo::DynamoStore, adapters::aws::SqsQueue, ports::SystemClock>,
    config::ConfigError,
> {
    let sdk = aws_config().await;
    let timeout = std::env::var("WEBHOOK_TIMEOUT_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(handlers::deliver_webhook::DEFAULT_TIMEOUT, std::time::Duration::from_secs);
    let local_origins = config::local_webhook_origins()?;
    Ok(handlers::deliver_webhook::DeliveryDeps {
        store: adapters::dynamo::DynamoStore::new(
            aws_sdk_dynamodb::Client::new(&sdk),
            config::required("TABLE_NAME")?,
        ),
        queue: adapters::aws::SqsQueue::new(
            aws_sdk_sqs::Client::new(&sdk),
            config::required("WEBHOOK_QUEUE_URL")?,
        ),
        clock: ports::SystemClock,
        client: handlers::deliver_webhook::WebhookClient::new(timeout, local_origins),
        backoff: handlers::deliver_webhook::DEFAULT_BACKOFF.to_vec(),
    })
}

/// Builds `expire-verifications`' dependencies from the environment.
pub async fn expiry_deps_from_env()
-> Result<handlers::expire_verifications::ExpiryDeps<adapters::dynamo::DynamoStore, ports::SystemClock>, config::ConfigError> {
    let sdk = aws_config().await;
    Ok(handlers::expire_verifications::ExpiryDeps {
        store: adapters::dynamo::DynamoStore::new(
            aws_sdk_dynamodb::Client::new(&sdk),
            config::required("TABLE_NAME")?,
        ),
        clock: ports::SystemClock,
    })
}

/// Builds `tenant-portal`'s dependencies from the environment. `INCOME_PROVIDER` picks the
/// income of live verifications: `plaid` (credentials from Secrets Manager, read here once) or
/// `none`; the sandbox is never selectable here (only the local stack builds it, in code).
pub async fn portal_deps_from_env() -> Result<
    handlers::tenant_portal::PortalDeps<adapters::dynamo::DynamoStore, ports::SystemClock, handlers::tenant_portal::LiveProvider>,
    config::ConfigError,
> {
    let live_income = config::LiveIncome::from_env()?;
    let sdk = aws_config().await;
    let live_provider = match live_income {
        config::LiveIncome::Plaid => {
            let secrets = aws_sdk_secretsmanager::Client::new(&sdk);
            let plaid_config =
                adapters::plaid::config::PlaidConfig::load(&secrets, |name| std::env::var(name).ok())
                    .await
                    .map_err(|e| config::ConfigError(e.to_string()))?;
            handlers::tenant_portal::LiveProvider::Plaid(
                adapters::plaid::PlaidIncomeProvider::new(plaid_config)
                    .map_err(|e| config::ConfigError(e.to_string()))?,
            )
        }
        config::LiveIncome::None => handlers::tenant_portal::LiveProvider::None,
        // from_env never gives it; refusing keeps that true even if it changed.
        config::LiveIncome::LocalSandbox => {
            return Err(config::ConfigError(config::SANDBOX_FOR_LIVE_REFUSED.into()));
        }
    };
    Ok(handlers::tenant_portal::PortalDeps {
        store: adapters::dynamo::DynamoStore::new(
            aws_sdk_dynamodb::Client::new(&sdk),
            config::required("TABLE_NAME")?,
        ),
        clock: ports::SystemClock,
        live_provider,
        sandbox: adapters::sandbox::SandboxProvider,
    })
}
