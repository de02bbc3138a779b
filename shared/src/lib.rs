//! The library every function of the Tenant Income Verification Service links.
//!
//! - `domain`, `report`, `secrets`, `webhook`: types and rules, no AWS imports;
//! - `ports`: one trait per outside system (store, mailer, queue, income provider, clock);
//! - `dynamo` (and the other adapters): the AWS implementations of the ports;
//! - `api`, `http`: the HTTP handlers and their Lambda glue.

pub mod api;
pub mod config;
pub mod domain;
pub mod dynamo;
pub mod error;
pub mod http;
pub mod plaid;
pub mod portal;
pub mod ports;
pub mod report;
pub mod sandbox;
pub mod secrets;
pub mod webhook;

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
-> Result<api::ApiDeps<dynamo::DynamoStore, ports::SystemClock>, config::ConfigError> {
    let settings = config::Settings::from_env()?;
    let sdk = aws_config().await;
    let store = dynamo::DynamoStore::new(
        aws_sdk_dynamodb::Client::new(&sdk),
        settings.table_name.clone(),
    );
    Ok(api::ApiDeps::new(store, ports::SystemClock, settings))
}
