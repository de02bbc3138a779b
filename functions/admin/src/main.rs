//! `admin`: manage accounts, plans and API keys in the service's table, and the accounts' webhook
//! signing secrets in Secrets Manager.
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
    /// Name prefix of the accounts' webhook signing secrets in Secrets Manager (the stack's
    /// output WebhookSecretsPrefix; rotate-webhook-secret only).
    #[arg(long, env = "WEBHOOK_SECRETS_PREFIX")]
    webhook_secrets_prefix: Option<String>,
    /// The KMS key new webhook secrets are encrypted under (the stack's output
    /// WebhookSecretsKeyArn; rotate-webhook-secret only).
    #[arg(long, env = "WEBHOOK_SECRETS_KEY_ARN")]
    webhook_secrets_key: Option<String>,
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
    let sdk = adapters::aws_config().await;
    let store = adapters::wiring::store(&sdk, table);
    let secrets = match (&cli.webhook_secrets_prefix, &cli.webhook_secrets_key) {
        (Some(prefix), Some(key)) => {
            Some(adapters::wiring::webhook_secrets_writer(&sdk, prefix, key))
        }
        _ => None,
    };
    let now = chrono::Utc::now();
    finish(admin::run(&store, secrets.as_ref(), &plans, cli.command, now).await);
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
