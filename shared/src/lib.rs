//! The library every function of the Tenant Income Verification Service links, above the `domain`
//! (rules, no I/O) and `ports` (traits) crates:
//!
//! - `handlers`: one module per function's logic, generic over the ports it uses;
//! - `http`, `routes`: the Lambda HTTP glue and the route table;
//! - `adapters`: the AWS and provider implementations of the ports;
//! - `config`, `wiring`: settings from the environment, and the adapters each function wires.

pub mod adapters;
pub mod config;
pub mod handlers;
pub mod http;
pub mod routes;
pub mod wiring;

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
