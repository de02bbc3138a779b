//! `make dev`: the whole service on this machine, against moto.

use clap::Parser;
use devstack::{moto, stack};
use shared::dynamo::DynamoStore;

#[derive(Parser)]
#[command(about = "Run the Tenant Income Verification Service locally against moto")]
struct Args {
    /// Port of the local API and tenant page.
    #[arg(long, env = "DEV_PORT", default_value_t = 3000)]
    port: u16,
    /// Port of the local AWS emulator (moto).
    #[arg(long, env = "DEV_MOTO_PORT", default_value_t = 4566)]
    moto_port: u16,
    /// Link lifetime in seconds (7 days in production; shorten it to watch expiry happen).
    #[arg(long, env = "DEV_LINK_LIFETIME_SECONDS", default_value_t = 7 * 24 * 3600)]
    link_lifetime_seconds: i64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    tracing_subscriber_init();
    let moto = moto::Moto::start_on(args.moto_port)?;
    let sdk = moto.sdk_config().await;
    let names = stack::Resources::named("tiv-local");
    stack::bootstrap(&sdk, &names).await?;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let (live, test) = stack::seed_account(&store, stack::DEMO_ACCOUNT, "business", true).await?;
    stack::seed_account(&store, stack::OTHER_ACCOUNT, "pro", true).await?;
    stack::seed_fixtures(&store).await?;
    let base = format!("http://127.0.0.1:{}", args.port);
    let settings = devstack::local_settings(
        &names.table,
        &base,
        chrono::Duration::seconds(args.link_lifetime_seconds),
    );
    let app = devstack::app(&sdk, settings);
    let addr = devstack::server::spawn(app, args.port).await.map_err(|e| {
        format!(
            "cannot listen on 127.0.0.1:{}: {e} (set DEV_PORT to use another port)",
            args.port
        )
    })?;
    println!();
    println!("Tenant Income Verification Service, local stack");
    println!("  API base URL : http://{addr}/api/v1");
    println!("  moto (AWS)   : {}", moto.endpoint);
    println!("  demo API key : {test}   (test mode: sandbox income, not charged)");
    println!("  live key     : {live}");
    println!();
    println!("Try:");
    println!("  curl -s -X POST http://{addr}/api/v1/verify \\");
    println!("    -H 'Authorization: Bearer {test}' -H 'Content-Type: application/json' \\");
    println!(
        "    -d '{{\"tenant_email\":\"jane+good@example.com\",\"tenant_name\":\"Jane Doe\",\"property_address\":\"1 Main St\",\"monthly_rent\":1500}}'"
    );
    println!();
    println!("Ctrl-C stops everything.");
    tokio::signal::ctrl_c().await?;
    println!("stopping");
    drop(moto);
    Ok(())
}

fn tracing_subscriber_init() {
    shared::init_tracing();
}
