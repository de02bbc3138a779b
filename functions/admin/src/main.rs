//! `admin`: manage accounts, plans, API keys and webhook secrets in the service's table.
//!
//! Uses the standard AWS configuration (profile, region, `AWS_ENDPOINT_URL` for the local stack).

use clap::Parser;

#[derive(Parser)]
#[command(
    about = "Accounts, plans, API keys and webhook secrets of the Tenant Income Verification Service"
)]
struct Cli {
    /// DynamoDB table of the service.
    #[arg(long, env = "TABLE_NAME")]
    table: String,
    #[command(subcommand)]
    command: admin::Command,
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let sdk = shared::aws_config().await;
    let store =
        shared::adapters::dynamo::DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), cli.table);
    let plans = match std::env::var("PLANS") {
        Ok(raw) => shared::config::Plans::parse(&raw).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        }),
        Err(_) => shared::config::Plans::defaults(),
    };
    match admin::run(&store, &plans, cli.command, chrono::Utc::now()).await {
        Ok(out) => println!("{out}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
