//! The service: what each function does, over the ports, and the glue around it. It names no AWS
//! SDK and no provider's client (the `adapters` crate implements the ports and wires them):
//!
//! - `handlers`: one module per function's logic, generic over the ports it uses;
//! - `http`, `routes`: the Lambda HTTP glue and the route table;
//! - `config`: settings from the environment, parsed once per cold start;
//! - `sandbox`: the income provider of test mode (invented income, no outside call);
//! - `table_schema`: the table's item layout, which the stream handlers read records by.

pub mod config;
pub mod handlers;
pub mod http;
pub mod routes;
pub mod sandbox;
pub mod table_schema;

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
