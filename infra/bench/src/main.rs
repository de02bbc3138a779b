//! `make bench`: measures the release binaries of the functions, locally, and prints a markdown
//! report (also written to `docs/benchmark-results.md`).
//!
//! 1. cold init: process start to the first `GET .../invocation/next` on a minimal Runtime API,
//!    over many starts, for every function and for a Python peer (boto3 + three clients);
//! 2. peak RSS (VmHWM) after one real invocation against moto;
//! 3. binary and zipped size of the `cargo lambda build --release` output;
//! 4. AWS calls per invocation, counted by a proxy between the function and moto, with the
//!    length of the chain of sequential DynamoDB round trips;
//! 5. list cost: items read for one page at a small and a large number of verifications;
//! 6. webhook batch: 10 messages to a receiver that sleeps 200 ms per request, against one;
//! 7. document analysis: a two-page pay stub, p95 and peak RSS, beside a Python peer.
//!
//! No target is asserted here: the report states each target and whether it holds.

mod cost;
mod documents;
mod environment;
mod flow;
mod load;
mod measure;
mod process;
mod report;
mod runtime_api;
mod scenarios;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use adapters::dynamo::DynamoStore;
use clap::Parser;
use devstack::moto::Moto;
use devstack::proxy::{self, Call, Proxy};
use devstack::receiver::Receiver;
use devstack::stack::{self, Created, Resources};
use domain::Mode;
use measure::*;
use ports::store::prelude::*;
use ports::{ListQuery, WebhookSecrets};
use process::*;
use report::*;
use runtime_api::RuntimeApi;
use scenarios::*;

#[derive(Parser)]
#[command(about = "Benchmarks of the functions' release binaries (run by `make bench`)")]
pub(crate) struct Args {
    /// Where `cargo lambda build --release` put the functions (`<dir>/<function>/bootstrap`).
    #[arg(long, default_value = "target/lambda")]
    pub(crate) lambda_dir: PathBuf,
    /// The markdown report (committed: the docs link it).
    #[arg(long, default_value = "docs/benchmark-results.md")]
    pub(crate) out: PathBuf,
    /// The functions' logs and the measured zips (git-ignored).
    #[arg(long, default_value = "bench-results")]
    pub(crate) work_dir: PathBuf,
    /// Measured cold starts per function (one more, unmeasured, warms the page cache first).
    #[arg(long, default_value_t = 21)]
    pub(crate) starts: usize,
    /// Verifications of the owner in the large list-cost run.
    #[arg(long, default_value_t = 100_000)]
    pub(crate) large: usize,
    /// The Python of the peer (boto3 comes with moto in the tools venv).
    #[arg(long, default_value = ".tools/venv/bin/python")]
    pub(crate) python: PathBuf,
    /// The Python peer's bootstrap.
    #[arg(long, default_value = "infra/bench/peer/bootstrap.py")]
    pub(crate) peer: PathBuf,
    /// Verifications run end to end for the price of a verification (scaled to 1,000).
    #[arg(long, default_value_t = 20)]
    pub(crate) flows: usize,
    /// Concurrent clients of the load run.
    #[arg(long, default_value_t = 20)]
    pub(crate) clients: usize,
    /// Seconds of the load run (bounded: at most a minute).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=60))]
    pub(crate) load_seconds: u64,
    /// Seconds of the handlers' own throughput run (one core, in-memory store).
    #[arg(long, default_value_t = 5)]
    pub(crate) handler_seconds: u64,
    /// Analyses of the two-page pay stub per side (Rust, and the Python peer).
    #[arg(long, default_value_t = 50)]
    pub(crate) documents_runs: usize,
    /// The Python of the document peer (pdfplumber and pikepdf: `make bench-tools`).
    #[arg(long, default_value = ".tools/bench-venv/bin/python")]
    pub(crate) documents_python: PathBuf,
    /// The document peer's script.
    #[arg(long, default_value = "infra/bench/peer/documents.py")]
    pub(crate) documents_peer: PathBuf,
    /// Only the document analysis: print its section and put it in place of the report's.
    #[arg(long)]
    pub(crate) only_documents: bool,
    /// Internal: analyse this PDF in this process and print the times (the bench runs itself so).
    #[arg(long, hide = true)]
    pub(crate) analyse_pdf: Option<PathBuf>,
    /// Write the hostile corpus (`test_support::hostile`) into this folder and stop (to time a
    /// file with any command).
    #[arg(long)]
    pub(crate) write_hostile: Option<PathBuf>,
    /// How the binaries were built (for the report).
    #[arg(
        long,
        env = "BENCH_BUILD",
        default_value = "cargo lambda build --release"
    )]
    pub(crate) build: String,
}

/// A function of the route table (`service::routes`) and the two sample events it is invoked with
/// (cold, then warm), or why it is not invoked. The leading number of an HTTP event's file name is
/// the status it must answer.
pub(crate) struct Function {
    pub(crate) name: &'static str,
    pub(crate) http: bool,
    pub(crate) events: Result<[&'static str; 2], &'static str>,
}

/// The sample events each function is invoked with, or why it is not (its cold start, memory and
/// size are measured all the same).
pub(crate) fn bench_events(
    function: service::routes::Function,
) -> Result<[&'static str; 2], &'static str> {
    use service::routes::Function as F;
    Ok(match function {
        F::CreateVerification => ["201-created.json", "201-email-only.json"],
        F::GetVerification => ["200-completed.json", "200-pending.json"],
        F::CancelVerification => ["200-pending.json", "200-in-progress.json"],
        F::ListVerifications => ["200-default.json", "200-completed-only.json"],
        F::GetUsage => ["200-usage.json", "200-usage.json"],
        F::GetReport => ["200-completed.json", "200-completed.json"],
        F::TenantPortal => ["200-open-pending.json", "200-completed.json"],
        F::PublishEvents => [
            "sent-email-on-insert.json",
            "queued-webhook-on-completion.json",
        ],
        F::ExpireVerifications => ["expired-ttl-remove.json", "ignored-user-remove.json"],
        F::DeliverWebhook => ["delivered-one-message.json", "delivered-one-message.json"],
        F::ListWebhookDeliveries => ["200-completed.json", "200-none-yet.json"],
        F::RedeliverWebhook => ["202-completed-event.json", "202-completed-event.json"],
        F::ResendVerification => ["202-pending.json", "202-in-progress.json"],
        F::CreateHousehold => ["201-two-members.json", "201-applicant-and-guarantor.json"],
        F::GetHousehold => ["200-decided.json", "200-open.json"],
        F::CancelHousehold => ["200-open-members.json", "200-second-household.json"],
        F::RetryEvents => {
            return Err(
                "it runs publish-events' work again, from a retry queue the bench's stack lacks",
            );
        }
        F::EraseVerificationData => {
            return Err("an erasure changes the seeded verification the other functions read");
        }
        F::AnalyzeDocument => {
            return Err(
                "its samples name uploads the bench's stack lacks; the analysis is measured below",
            );
        }
        F::ListDocuments => ["200-in-progress.json", "200-in-progress.json"],
        F::ReviewDocuments => {
            return Err("a review is kept once: a second run of its sample answers 409");
        }
        F::ProviderWebhooks => {
            return Err(
                "a verified webhook needs a fresh signature, which no stored sample carries",
            );
        }
        // The reached one has a number and a webhook URL: claim, SES, SNS, webhook store+queue.
        F::SendReminders => [
            "reached-reminder-of-in-progress.json",
            "ignored-reminder-of-completed.json",
        ],
    })
}

/// Every function of the route table, in its order.
pub(crate) fn functions() -> Vec<Function> {
    service::routes::Function::ALL
        .into_iter()
        .map(|f| Function {
            name: f.name(),
            http: f.is_http(),
            events: bench_events(f),
        })
        .collect()
}

/// The URL the sample webhook events carry; replaced by the bench's receiver.
pub(crate) const SAMPLE_WEBHOOK_URL: &str = "http://127.0.0.1:3001/webhooks";

pub(crate) const MIB: f64 = 1024.0 * 1024.0;

pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

pub(crate) fn err(msg: impl Into<String>) -> Error {
    msg.into().into()
}

fn main() {
    let args = Args::parse();
    if let Some(dir) = &args.write_hostile {
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            test_support::hostile::corpus()
                .into_iter()
                .try_for_each(|h| std::fs::write(dir.join(format!("{}.pdf", h.name)), h.bytes))
        });
        if let Err(e) = written {
            eprintln!("bench failed: {e}");
            std::process::exit(1);
        }
        return;
    }
    // The Rust side of the document analysis: this process does that alone, without a runtime.
    let outcome = match &args.analyse_pdf {
        Some(pdf) => documents::analyse_in_this_process(pdf, args.documents_runs),
        None => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(Error::from)
            .and_then(|runtime| runtime.block_on(run(args))),
    };
    if let Err(e) = outcome {
        eprintln!("bench failed: {e}");
        std::process::exit(1);
    }
}

/// Where the document analysis's section begins (the report's last).
const DOCUMENTS_HEADING: &str = "\n## Document analysis\n";

/// The document analysis's section of the report.
fn document_analysis(args: &Args) -> String {
    eprintln!(
        "bench: document analysis ({} runs a side)",
        args.documents_runs
    );
    let outcome = documents::measure(
        &args.work_dir,
        &args.documents_python,
        &args.documents_peer,
        args.documents_runs,
    );
    let versions = documents::peer_versions(&args.documents_python);
    documents::section(&outcome, args.documents_runs, &versions)
}

async fn run(args: Args) -> Result<(), Error> {
    if args.only_documents {
        let section = document_analysis(&args);
        println!("{section}");
        // The section is the report's last: it replaces the one a full run wrote.
        let report = std::fs::read_to_string(&args.out).unwrap_or_default();
        let kept = report
            .find(DOCUMENTS_HEADING)
            .map_or(report.as_str(), |at| &report[..at]);
        std::fs::write(&args.out, format!("{kept}{section}"))?;
        eprintln!("bench: document analysis written to {}", args.out.display());
        return Ok(());
    }
    let begun = Instant::now();
    let load_before = loadavg();
    let root = std::env::current_dir()?;
    if !root.join("events").is_dir() {
        return Err(err("run from the repository's root (events/ not found)"));
    }
    let logs = args.work_dir.join("logs");
    let zips = args.work_dir.join("zip");
    std::fs::create_dir_all(&logs)?;
    std::fs::create_dir_all(&zips)?;
    for entry in std::fs::read_dir(&logs)? {
        let _ = std::fs::remove_file(entry?.path());
    }
    let launch_of = |function: &str| Launch {
        program: args.lambda_dir.join(function).join("bootstrap"),
        args: vec![],
        log: logs.join(format!("{function}.log")),
    };
    let functions = functions();
    for f in &functions {
        let binary = launch_of(f.name).program;
        if !binary.is_file() {
            return Err(err(format!(
                "{} is missing: build first (`bash infra/bench/run.sh` does)",
                binary.display()
            )));
        }
    }

    eprintln!("bench: starting moto");
    let moto = Moto::start().map_err(err)?;
    let sdk = moto.sdk_config().await;
    // A table for the cold starts to name (no call reaches it during init).
    let (names, created, _store) = fresh_stack(&sdk, "bench-init").await?;

    let mut rows = Vec::new();
    for f in &functions {
        let launch = launch_of(f.name);
        eprintln!("bench: {}", f.name);
        let init = cold_init(
            &launch,
            f.name,
            args.starts,
            &moto.endpoint,
            &names.table,
            &created,
        )
        .await?;
        let inv = match f.events {
            Ok(events) => Some(invocations(&root, &launch, f, &events, &moto, &sdk).await?),
            Err(_) => None,
        };
        let size = size_of(&args.python, &launch.program, &zips)?;
        rows.push(Row {
            name: f.name.to_string(),
            init: Some(init),
            size: Some(size),
            inv,
        });
    }
    eprintln!("bench: Python peer");
    let peer = Launch {
        program: args.python.clone(),
        args: vec![args.peer.to_string_lossy().to_string()],
        log: logs.join("python-peer.log"),
    };
    let peer_init = cold_init(
        &peer,
        "python-peer",
        args.starts,
        &moto.endpoint,
        &names.table,
        &created,
    )
    .await?;

    let documents = document_analysis(&args);

    eprintln!("bench: webhook batch");
    let hooks = webhook_batch(&root, &launch_of("deliver-webhook"), &moto, &sdk, 5).await?;

    eprintln!("bench: list cost (seeding {} verifications)", args.large);
    let sizes = [100, args.large];
    let lists = list_cost(&root, &launch_of("list-verifications"), &moto, &sdk, &sizes).await?;

    eprintln!(
        "bench: the price of a verification ({} end to end)",
        args.flows
    );
    let flows = flow::verification_flows(&moto, args.flows).await?;
    eprintln!(
        "bench: load ({} clients, {} s) and the handlers' own throughput",
        args.clients, args.load_seconds
    );
    let load_run = load::load_run(&moto, args.clients, args.load_seconds).await?;
    let handlers = load::handler_throughput(args.handler_seconds)?;

    let load = format!("{load_before} at start, {} at end", loadavg());
    let mut report = render(
        &args,
        &rows,
        &peer_init,
        &hooks,
        &lists,
        begun.elapsed(),
        &load,
    );
    report.push_str(&cost::section(
        cost::Measured {
            usage: &flows.usage,
            runs: flows.runs,
            webhooks: flows.webhooks,
            memory_mb: flow::MEMORY_MB,
        },
        &cost::US_EAST_1,
    ));
    report.push_str(&load::section(&load_run, &handlers, args.handler_seconds));
    report.push_str(&documents);
    println!("{report}");
    std::fs::write(&args.out, &report)?;
    eprintln!("bench: written to {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A renamed sample would otherwise surface only when the bench runs.
    #[test]
    fn every_bench_event_is_a_sample_in_events() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events");
        for function in functions() {
            for file in function.events.into_iter().flatten() {
                let path = root.join(function.name).join(file);
                assert!(path.is_file(), "{} missing", path.display());
            }
        }
    }

    /// The samples are test-mode fixtures: suppressed, the reach functions would do nothing.
    #[test]
    fn the_functions_deliver_test_mode_messages() {
        let queues = crate::environment::tests::created();
        let env = process::lambda_env("send-reminders", "api", "aws", "t-table", &queues).unwrap();
        let delivery = env.iter().find(|(k, _)| k == "TEST_MODE_DELIVERY");
        assert_eq!(delivery.map(|(_, v)| v.as_str()), Some("send"));
    }
}
