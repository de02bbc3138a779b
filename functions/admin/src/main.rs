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
    // PLANS follows the functions' rule (unset: the defaults; a bad value is refused).
    let plans =
        shared::config::Plans::from_env(&shared::config::Env::process()).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    let store = shared::wiring::store(&shared::aws_config().await, &cli.table);
    match admin::run(&store, &plans, cli.command, chrono::Utc::now()).await {
        Ok(out) => println!("{out}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
