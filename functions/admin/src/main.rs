//! `admin`: manage accounts, plans, API keys and webhook secrets in the service's table.
//!
//! Uses the standard AWS configuration (profile, region, `AWS_ENDPOINT_URL` for the local stack).

use clap::Parser;

#[derive(Parser)]
#[command(
    about = "Accounts, plans, API keys and webhook secrets of the Tenant Income Verification Service"
)]
struct Cli {
    /// DynamoDB table of the service (every command but income-report).
    #[arg(long, env = "TABLE_NAME")]
    table: Option<String>,
    #[command(subcommand)]
    command: admin::Command,
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    // Offline: no table, no AWS configuration.
    if let admin::Command::IncomeReport(args) = &cli.command {
        finish(admin::income_report(args));
    }
    let Some(table) = cli.table.as_deref() else {
        eprintln!("error: --table (or TABLE_NAME) is required for this command");
        std::process::exit(2)
    };
    // PLANS follows the functions' rule (unset: the defaults; a bad value is refused).
    let plans =
        service::config::plans_from_env(&service::config::Env::process()).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    let store = adapters::wiring::store(&adapters::aws_config().await, table);
    finish(admin::run(&store, &plans, cli.command, chrono::Utc::now()).await);
}

fn finish(result: Result<String, String>) -> ! {
    match result {
        Ok(out) => {
            println!("{out}");
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
