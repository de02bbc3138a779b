//! The library every function of the Tenant Income Verification Service links.
//!
//! - `domain`: types and rules (income, report, keys, webhooks), no AWS imports and no I/O;
//! - `ports`: one trait per outside system (the store by role, mailer, queue, provider, clock);
//! - `adapters`: the AWS and provider implementations of the ports, and the test doubles;
//! - `handlers`: one module per function's logic, generic over the ports it uses;
//! - `http`, `routes`, `error`: the Lambda HTTP glue, the route table and the enveloped error;
//! - `config`, `wiring`: settings from the environment, and the adapters each function wires.

pub mod adapters;
pub mod config;
pub mod documents;
pub mod domain;
pub mod error;
pub mod handlers;
pub mod http;
pub mod json;
pub mod ports;
mod redact;
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
