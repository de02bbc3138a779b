//! `make dev`: the whole service on this machine, against moto: the API and the tenant page, the
//! e-mails (printed here with their link), the webhooks (received and verified by a local
//! receiver) and the expiry (swept every few seconds).

use std::sync::Arc;
use std::time::Duration;

use adapters::dynamo::DynamoStore;
use clap::Parser;
use devstack::pump::{
    StreamPump, TtlDeletions, pump_documents_once, pump_retry_once, pump_sqs_once, sweep_ttl,
};
use devstack::{Workers, moto, stack};
use ports::WebhookSecrets;
use ports::store::prelude::*;

#[derive(Parser)]
#[command(about = "Run the Tenant Income Verification Service locally against moto")]
struct Args {
    /// Port of the local API and tenant page; the webhook receiver listens on the next one.
    #[arg(long, env = "DEV_PORT", default_value_t = 3000)]
    port: u16,
    /// Port of the local AWS emulator (moto).
    #[arg(long, env = "DEV_MOTO_PORT", default_value_t = 4566)]
    moto_port: u16,
    /// Link lifetime in seconds (7 days in production; shorten it to watch expiry happen).
    #[arg(long, env = "DEV_LINK_LIFETIME_SECONDS", default_value_t = 7 * 24 * 3600)]
    link_lifetime_seconds: i64,
    /// Reminder points in seconds before expiry, comma-separated (72 h and 24 h in production);
    /// with a short lifetime, e.g. `DEV_LINK_LIFETIME_SECONDS=600 DEV_REMINDER_OFFSETS_SECONDS=420,180`.
    #[arg(long, env = "DEV_REMINDER_OFFSETS_SECONDS")]
    reminder_offsets_seconds: Option<String>,
    /// The demo account's plan: a name from `PLANS` (a JSON array of plans, as a deployment takes
    /// it) or from the default plans (starter, pro, business). A fuzzing run needs a plan whose
    /// daily API request allowance covers it.
    #[arg(long, env = "DEV_DEMO_PLAN", default_value = "business")]
    demo_plan: String,
    /// Live keys' income: `sandbox` (scenarios, reports marked local_sandbox), or an ordered list
    /// of `plaid` (Plaid Check at the local Plaid emulator) and `argyle` (Argyle at the local
    /// Argyle emulator), e.g. `plaid,argyle`: Link, the waiting page, the signed webhook.
    #[arg(long, env = "DEV_LIVE_PROVIDER", default_value = "sandbox")]
    live_provider: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Uploads are analysed as the function does: in a child of this binary (`analysis_child`).
    adapters::analysis_child::serve_if_child();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // Logs (JSON, as in CloudWatch) go to stderr; stdout keeps the friendly lines.
    tracing_subscriber::fmt()
        .json()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,aws=warn")),
        )
        .with_current_span(true)
        .without_time()
        .init();
    let env = service::config::Env::process();
    let plans = service::config::plans_from_env(&env)?;
    if plans.get(&args.demo_plan).is_none() {
        return Err(format!(
            "DEV_DEMO_PLAN {:?} is not a plan (see PLANS)",
            args.demo_plan
        )
        .into());
    }
    let extra_origins = env.local_webhook_origins()?;
    let moto = moto::Moto::start_on(args.moto_port).map_err(|e| {
        format!(
            "moto on port {}: {e} (set DEV_MOTO_PORT to use another port)",
            args.moto_port
        )
    })?;
    let sdk = moto.sdk_config().await;
    let names = stack::Resources::named("tiv-local");
    let created = stack::bootstrap(&sdk, &names).await?;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let (live, test) =
        stack::seed_account(&store, stack::DEMO_ACCOUNT, &args.demo_plan, true).await?;
    stack::seed_account(&store, stack::OTHER_ACCOUNT, "pro", true).await?;
    stack::seed_fixtures(&store).await?;
    let secret = domain::secrets::generate_webhook_secret();
    let secrets = WebhookSecrets {
        current: Some(secret.clone()),
        previous: None,
        previous_valid_until: None,
    };
    stack::webhook_secrets::writer(&sdk, &names, &created)
        .put_webhook_secrets(stack::DEMO_ACCOUNT, &secrets)
        .await?;

    let base = format!("http://127.0.0.1:{}", args.port);
    let mut settings = devstack::local_settings(
        &names.table,
        &base,
        chrono::Duration::seconds(args.link_lifetime_seconds),
    );
    settings.plans = plans;
    // SMS_COUNTRIES (and PLANS' SMS allowances), as a deployed stack reads them.
    let sms = service::config::SmsBounds::parse(&env)?;
    settings.sms_countries = sms.countries.clone();
    // Webhooks may reach the demo receiver below and nothing else on this machine, except the
    // receivers `LOCAL_WEBHOOK_ORIGINS` names (infra/stack.sh: the client tests' own).
    settings.local_webhook_origins = extra_origins;
    let local_origins = settings.local_webhook_origins.clone();
    // The Plaid emulator: its keys check Plaid's webhook route; with DEV_LIVE_PROVIDER=plaid it
    // is the live keys' bank, and its reports turn ready (and are signalled) right after Link.
    let plaid = devstack::plaid_emulator::PlaidEmulator::start(true).await?;
    // The Argyle emulator, when listed: its accounts sync right after Link, and its signed
    // webhook goes to the stack's Argyle route.
    let kinds = devstack::live_kinds(&args.live_provider)?;
    let live_real = !kinds.is_empty();
    let argyle = match kinds.contains(&service::config::Provider::Argyle) {
        true => Some(devstack::argyle_emulator::ArgyleEmulator::start(true).await?),
        false => None,
    };
    if let Some(argyle) = &argyle {
        argyle.subscribe(&format!("{base}/webhooks/providers/argyle"));
    }
    let live_provider = || {
        use adapters::live_provider::{LiveProvider, Provider};
        if kinds.is_empty() {
            return LiveProvider::local_sandbox();
        }
        LiveProvider::of(kinds.iter().map(|kind| match (kind, &argyle) {
            (service::config::Provider::Argyle, Some(argyle)) => {
                Provider::Argyle(argyle.provider())
            }
            _ => Provider::PlaidCheck(plaid.provider(&base)),
        }))
    };
    if live_real {
        settings.live_income = service::config::LiveIncome::of(&kinds);
    }
    let verifiers = adapters::wiring::WebhookVerifiers {
        plaid: Some(plaid.verifier()),
        argyle: argyle.as_ref().map(|a| a.verifier()),
    };
    let app = devstack::app_with_webhooks(&sdk, settings, live_provider(), verifiers);
    // Each answered request kicks the stream pump below, which kicks the queue pumps when it
    // queued something: a write is pumped at once, not at the next tick (the ticks stay, as the
    // longest pause). One kick per hop keeps moto's load what it was.
    let kick: devstack::server::Kick = Arc::new(tokio::sync::watch::Sender::new(0));
    let queued: devstack::server::Kick = Arc::new(tokio::sync::watch::Sender::new(0));
    devstack::server::spawn_kicking(app, args.port, Some(kick.clone()))
        .await
        .map_err(|e| {
            format!(
                "cannot listen on 127.0.0.1:{}: {e} (set DEV_PORT to use another port)",
                args.port
            )
        })?;
    let receiver_port = args.port + 1;
    let receiver = devstack::receiver::spawn_printing(receiver_port, secret.clone())
        .await
        .map_err(|e| format!("webhook receiver on 127.0.0.1:{receiver_port}: {e}"))?;
    local_origins.allow(&receiver.origin())?;

    // The local event source mappings and TTL: loops with a fixed period, until Ctrl-C.
    let mut workers = Workers::new(
        &sdk,
        &names,
        &created,
        &base,
        service::handlers::deliver_webhook::DEFAULT_BACKOFF.to_vec(),
        &local_origins,
    );
    workers.outbox.retry_backoff = service::handlers::retry_events::DEFAULT_RETRY_BACKOFF.to_vec();
    let offsets = service::config::parse_offsets(args.reminder_offsets_seconds.as_deref())?;
    workers.outbox.reminder_offsets = offsets.clone();
    workers.reach.reminder_offsets = offsets;
    workers.outbox.provider = live_provider();
    workers.analysis.analyse = adapters::analysis_child::Child::this_binary().analyser();
    workers.outbox.sms = sms.clone();
    workers.reach.sms = sms;
    let workers = Arc::new(workers);
    let ttl = TtlDeletions::default();
    let mut pump = StreamPump::new(&sdk, &names.table, ttl.clone()).await?;
    let stream_workers = workers.clone();
    let (stream_kick, mut kicks) = (queued.clone(), kick.subscribe());
    tokio::spawn(async move {
        loop {
            match pump
                .pump_once(&stream_workers.outbox, &stream_workers.expiry)
                .await
            {
                // What the records queued (webhooks, retries): the queue pumps take it now.
                Ok(n) if n > 0 => devstack::server::kick(&stream_kick),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "stream pump"),
            }
            devstack::server::kicked_or(&mut kicks, Duration::from_millis(300)).await;
        }
    });
    let dynamo = aws_sdk_dynamodb::Client::new(&sdk);
    let table = names.table.clone();
    tokio::spawn(async move {
        loop {
            if let Err(e) = sweep_ttl(&dynamo, &table, &ttl).await {
                tracing::warn!(error = %e, "ttl sweeper");
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    });
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let queue_url = created.webhook_queue_url.clone();
    let queue_workers = workers.clone();
    let (queue_kick, mut kicks) = (kick.clone(), queued.subscribe());
    tokio::spawn(async move {
        // Short polls with a pause until a kick: a long poll would hold moto's request lock
        // (moto_server.py) and slow every other call to the emulator.
        loop {
            match pump_sqs_once(&sqs, &queue_url, &queue_workers.delivery, 0).await {
                Ok(0) => devstack::server::kicked_or(&mut kicks, Duration::from_millis(300)).await,
                // The attempts it logged are stream records.
                Ok(_) => devstack::server::kick(&queue_kick),
                Err(e) => {
                    tracing::warn!(error = %e, "queue pump");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let retry_url = created.retry_queue_url.clone();
    let retry_workers = workers.clone();
    let (retry_kick, mut kicks) = (queued.clone(), queued.subscribe());
    tokio::spawn(async move {
        loop {
            match pump_retry_once(&sqs, &retry_url, &retry_workers.outbox, 0).await {
                Ok(0) => devstack::server::kicked_or(&mut kicks, Duration::from_secs(1)).await,
                // It ran the outbox again: what that queued goes out now.
                Ok(_) => devstack::server::kick(&retry_kick),
                Err(e) => {
                    tracing::warn!(error = %e, "retry queue pump");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
    // moto sends the documents bucket's notifications to the documents queue; this pump is its
    // event source mapping to analyze-document.
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let documents_url = created.documents_queue_url.clone();
    let document_workers = workers.clone();
    tokio::spawn(async move {
        loop {
            match pump_documents_once(&sqs, &documents_url, &document_workers.analysis, 0).await {
                // Uploads go to moto's S3, not through the server: no kick to wait on.
                Ok(0) => tokio::time::sleep(Duration::from_millis(500)).await,
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "documents queue pump");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
    // moto stores the reminder schedules and never fires them: this pump does, when they are due.
    let scheduler = aws_sdk_scheduler::Client::new(&sdk);
    let group = names.schedule_group.clone();
    let schedule_workers = workers.clone();
    tokio::spawn(async move {
        let mut attempts = std::collections::HashMap::new();
        loop {
            let now = chrono::Utc::now();
            if let Err(e) = devstack::schedules::pump_schedules_once(
                &scheduler,
                &group,
                &schedule_workers.reach,
                &mut attempts,
                now,
            )
            .await
            {
                tracing::warn!(error = %e, "schedule pump");
            }
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    });
    tokio::spawn(devstack::receiver::print_emails(moto.endpoint.clone()));

    let hook = receiver.url.clone();
    println!();
    println!("Tenant Income Verification Service, local stack");
    println!("  API base URL    : {base}/api/v1");
    println!("  demo API key    : {test}   (test mode: sandbox income, not charged)");
    if live_real {
        let name = |k: &service::config::Provider| match k {
            service::config::Provider::Argyle => "Argyle",
            _ => "Plaid Check",
        };
        let names = (kinds.iter().map(name)).collect::<Vec<_>>().join(", then ");
        println!("  live API key    : {live}   (local stack only: {names} at the emulators)");
    } else {
        println!(
            "  live API key    : {live}   (local stack only: sandbox income, reports marked local_sandbox)"
        );
    }
    println!(
        "  Plaid emulator  : {}   (its signed webhooks go to {base}/webhooks/providers/plaid)",
        plaid.base_url
    );
    if let Some(argyle) = &argyle {
        println!(
            "  Argyle emulator : {}   (its signed webhooks go to {base}/webhooks/providers/argyle)",
            argyle.base_url
        );
    }
    println!("  webhook receiver: {hook}   (secret {secret})");
    println!(
        "  AWS emulator    : {}   (table {}, SES messages at /moto-api/data.json)",
        moto.endpoint, names.table
    );
    println!();
    println!("Create a verification (the tenant e-mail and its link appear below):");
    println!("  curl -s -X POST {base}/api/v1/verify \\");
    println!("    -H 'Authorization: Bearer {test}' -H 'Content-Type: application/json' \\");
    println!(
        "    -d '{{\"tenant_email\":\"jane+good@example.com\",\"tenant_name\":\"Jane Doe\",\"property_address\":\"1 Main St\",\"monthly_rent\":1500,\"webhook_url\":\"{hook}\"}}'"
    );
    println!(
        "With \"tenant_phone\" the invite also goes by SMS (moto records it: /moto-api/data.json -> sns -> SMS)."
    );
    println!(
        "Reminders fire {} before expiry (DEV_LINK_LIFETIME_SECONDS=600 DEV_REMINDER_OFFSETS_SECONDS=420,180 shows them within minutes).",
        workers
            .reach
            .reminder_offsets
            .iter()
            .map(|o| format!("{} s", o.num_seconds()))
            .collect::<Vec<_>>()
            .join(" and ")
    );
    println!("Then open the link, consent, pick a scenario; the webhook and the report follow:");
    println!(
        "  curl -s '{base}/api/v1/verify?verification_id=<id>' -H 'Authorization: Bearer {test}'"
    );
    println!("Resend the invite (a new e-mail and link, 3 a day), then see the webhook log:");
    println!(
        "  curl -s -X POST '{base}/api/v1/verify/resend?verification_id=<id>' -H 'Authorization: Bearer {test}'"
    );
    println!(
        "  curl -s '{base}/api/v1/webhooks/deliveries?verification_id=<id>' -H 'Authorization: Bearer {test}'"
    );
    println!("Verify a household (two flatmates together; each gets their own e-mailed link):");
    println!("  curl -s -X POST {base}/api/v1/households \\");
    println!("    -H 'Authorization: Bearer {test}' -H 'Content-Type: application/json' \\");
    println!(
        "    -d '{{\"property_address\":\"2 Shared House Lane\",\"monthly_rent\":1800,\"webhook_url\":\"{hook}\",\"members\":[{{\"tenant_email\":\"alex+good@example.com\",\"role\":\"applicant\"}},{{\"tenant_email\":\"sam+good@example.com\",\"role\":\"applicant\"}}]}}'"
    );
    println!("Once both completed, the decision (and a household.completed webhook):");
    println!(
        "  curl -s '{base}/api/v1/households?household_id=<id>' -H 'Authorization: Bearer {test}'"
    );
    println!();
    println!("Ctrl-C stops everything.");
    tokio::signal::ctrl_c().await?;
    println!("stopping");
    drop(moto);
    Ok(())
}
