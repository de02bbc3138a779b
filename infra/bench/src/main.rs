//! `make bench`: measures the release binaries of the functions, locally, and prints a markdown
//! report (also written to `bench-results/bench.md`).
//!
//! 1. cold init: process start to the first `GET .../invocation/next` on a minimal Runtime API,
//!    over many starts, for every function and for a Python peer (boto3 + three clients);
//! 2. peak RSS (VmHWM) after one real invocation against moto;
//! 3. binary and zipped size of the `cargo lambda build --release` output;
//! 4. AWS calls per invocation, counted by a proxy between the function and moto, with the
//!    length of the chain of sequential DynamoDB round trips;
//! 5. list cost: items read for one page at a small and a large number of verifications;
//! 6. webhook batch: 10 messages to a receiver that sleeps 200 ms per request, against one.
//!
//! No target is asserted here: the report states each target and whether it holds.

mod proxy;
mod receiver;
mod runtime_api;
mod seed;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use clap::Parser;
use devstack::moto::Moto;
use devstack::stack::{self, Created, Resources};
use proxy::{Call, Proxy};
use runtime_api::RuntimeApi;
use shared::adapters::dynamo::DynamoStore;
use shared::domain::Mode;
use shared::ports::store::prelude::*;
use shared::ports::{ListQuery, WebhookSecrets};

#[derive(Parser)]
#[command(about = "Benchmarks of the functions' release binaries (run by `make bench`)")]
struct Args {
    /// Where `cargo lambda build --release` put the functions (`<dir>/<function>/bootstrap`).
    #[arg(long, default_value = "target/lambda")]
    lambda_dir: PathBuf,
    /// The markdown report.
    #[arg(long, default_value = "bench-results/bench.md")]
    out: PathBuf,
    /// Measured cold starts per function (one more, unmeasured, warms the page cache first).
    #[arg(long, default_value_t = 21)]
    starts: usize,
    /// Verifications of the owner in the large list-cost run.
    #[arg(long, default_value_t = 100_000)]
    large: usize,
    /// The Python of the peer (boto3 comes with moto in the tools venv).
    #[arg(long, default_value = ".tools/venv/bin/python")]
    python: PathBuf,
    /// The Python peer's bootstrap.
    #[arg(long, default_value = "infra/bench/peer/bootstrap.py")]
    peer: PathBuf,
    /// How the binaries were built (for the report).
    #[arg(
        long,
        env = "BENCH_BUILD",
        default_value = "cargo lambda build --release"
    )]
    build: String,
}

/// The Lambda functions and the two sample events each is invoked with (cold, then warm). The
/// leading number of an HTTP event's file name is the status it must answer.
struct Function {
    name: &'static str,
    http: bool,
    events: [&'static str; 2],
}

const FUNCTIONS: [Function; 9] = [
    Function {
        name: "create-verification",
        http: true,
        events: ["201-created.json", "201-email-only.json"],
    },
    Function {
        name: "get-verification",
        http: true,
        events: ["200-completed.json", "200-pending.json"],
    },
    Function {
        name: "cancel-verification",
        http: true,
        events: ["200-pending.json", "200-in-progress.json"],
    },
    Function {
        name: "list-verifications",
        http: true,
        events: ["200-default.json", "200-completed-only.json"],
    },
    Function {
        name: "get-usage",
        http: true,
        events: ["200-usage.json", "200-usage.json"],
    },
    Function {
        name: "tenant-portal",
        http: true,
        events: ["200-open-pending.json", "200-completed.json"],
    },
    Function {
        name: "publish-events",
        http: false,
        events: [
            "sent-email-on-insert.json",
            "queued-webhook-on-completion.json",
        ],
    },
    Function {
        name: "expire-verifications",
        http: false,
        events: ["expired-ttl-remove.json", "ignored-user-remove.json"],
    },
    Function {
        name: "deliver-webhook",
        http: false,
        events: ["delivered-one-message.json", "delivered-one-message.json"],
    },
];

/// The URL the sample webhook events carry; replaced by the bench's receiver.
const SAMPLE_WEBHOOK_URL: &str = "http://127.0.0.1:3001/webhooks";

const MIB: f64 = 1024.0 * 1024.0;

type Error = Box<dyn std::error::Error + Send + Sync>;

fn err(msg: impl Into<String>) -> Error {
    msg.into().into()
}

// ------------------------------------------------------------------------------------------------
// Processes

/// The environment Lambda gives a function (loopback endpoints, dummy credentials), plus the
/// function's own variables. Nothing else of the bench's environment leaks in.
fn lambda_env(
    function: &str,
    runtime_api: &str,
    aws_endpoint: &str,
    table: &str,
    queue_url: &str,
) -> Vec<(String, String)> {
    [
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("LANG", "en_US.UTF-8"),
        ("TZ", ":UTC"),
        ("AWS_LAMBDA_RUNTIME_API", runtime_api),
        ("AWS_LAMBDA_FUNCTION_NAME", function),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128"),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST"),
        ("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/bench"),
        ("AWS_LAMBDA_LOG_STREAM_NAME", "bench"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_EC2_METADATA_DISABLED", "true"),
        ("AWS_ENDPOINT_URL", aws_endpoint),
        ("TABLE_NAME", table),
        ("PUBLIC_BASE_URL", "http://127.0.0.1:3000"),
        ("SENDER_EMAIL", "no-reply@verify.local.test"),
        ("WEBHOOK_QUEUE_URL", queue_url),
        ("WEBHOOK_TIMEOUT_SECONDS", "10"),
        ("INCOME_PROVIDER", "none"),
        ("RUST_LOG", "info"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Lists the bench's receiver as the one non-public webhook target (`LOCAL_WEBHOOK_ORIGINS`).
fn local_receiver(url: &str) -> (String, String) {
    let origin = url.trim_end_matches("/webhooks").to_string();
    ("LOCAL_WEBHOOK_ORIGINS".to_string(), origin)
}

/// How to start a function: a binary, or the Python peer.
#[derive(Clone)]
struct Launch {
    program: PathBuf,
    args: Vec<String>,
    log: PathBuf,
}

impl Launch {
    fn spawn(&self, env: &[(String, String)]) -> Result<tokio::process::Child, Error> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)?;
        let child = tokio::process::Command::new(&self.program)
            .args(&self.args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| err(format!("cannot start {}: {e}", self.program.display())))?;
        Ok(child)
    }
}

async fn stop(mut child: tokio::process::Child) {
    let _ = child.start_kill();
    let _ = child.wait().await;
}

/// Peak resident set (VmHWM) of a running process, in bytes.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

const STEP_TIMEOUT: Duration = Duration::from_secs(30);

/// Waits for the function's n-th `next`, failing fast if it exits (e.g. on an init error).
async fn wait_next(
    api: &mut RuntimeApi,
    child: &mut tokio::process::Child,
    n: usize,
    log: &Path,
) -> Result<Instant, Error> {
    tokio::select! {
        t = tokio::time::timeout(STEP_TIMEOUT, api.wait_next(n)) => match t {
            Ok(Some(t)) => Ok(t),
            _ => Err(err(format!("no `next` #{n} within {STEP_TIMEOUT:?}; see {}", log.display()))),
        },
        status = child.wait() => {
            let init_error = api.try_outcome().map(|o| o.body).unwrap_or_default();
            Err(err(format!("exited ({status:?}) before `next` #{n} {init_error}; see {}", log.display())))
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Statistics

#[derive(Debug, Clone)]
struct Spread {
    samples: Vec<f64>,
}

impl Spread {
    fn new(mut samples: Vec<f64>) -> Self {
        samples.sort_by(|a, b| a.total_cmp(b));
        Spread { samples }
    }
    /// Linear-interpolated percentile, `p` in 0..=1.
    fn pct(&self, p: f64) -> f64 {
        let n = self.samples.len();
        if n == 0 {
            return f64::NAN;
        }
        let x = p * (n - 1) as f64;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        self.samples[lo] + (self.samples[hi] - self.samples[lo]) * (x - lo as f64)
    }
    fn median(&self) -> f64 {
        self.pct(0.5)
    }
    fn min(&self) -> f64 {
        self.samples.first().copied().unwrap_or(f64::NAN)
    }
    fn max(&self) -> f64 {
        self.samples.last().copied().unwrap_or(f64::NAN)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

// ------------------------------------------------------------------------------------------------
// 1. Cold init

struct ColdInit {
    times: Spread,
    /// Peak RSS at the first `next` (after init, before any event).
    init_rss: Option<u64>,
}

async fn cold_init(
    launch: &Launch,
    function: &str,
    starts: usize,
    endpoint: &str,
    table: &str,
    queue_url: &str,
) -> Result<ColdInit, Error> {
    let mut times = Vec::with_capacity(starts);
    let mut rss = Vec::new();
    // The first start is not measured: it only brings the binary into the page cache (and lets
    // Python write its bytecode cache), as on a Lambda host that has the code on local disk.
    for i in 0..=starts {
        let mut api = RuntimeApi::start().await?;
        let env = lambda_env(function, &api.endpoint(), endpoint, table, queue_url);
        let started = Instant::now();
        let mut child = launch.spawn(&env)?;
        let first = wait_next(&mut api, &mut child, 1, &launch.log).await;
        let pid = child.id();
        if let (Ok(_), Some(pid)) = (&first, pid) {
            rss.extend(peak_rss(pid));
        }
        stop(child).await;
        let first = first?;
        if i > 0 {
            times.push(ms(first.saturating_duration_since(started)));
        }
    }
    Ok(ColdInit {
        times: Spread::new(times),
        init_rss: rss.into_iter().max(),
    })
}

// ------------------------------------------------------------------------------------------------
// 2 and 4. One real invocation (peak RSS) and the AWS calls of a cold and a warm invocation

#[derive(Debug, Default, Clone)]
struct CallStats {
    dynamodb: usize,
    sequential: usize,
    other: usize,
    scanned: u64,
}

impl CallStats {
    fn of(calls: &[Call]) -> Self {
        let dynamo: Vec<&Call> = calls.iter().filter(|c| c.is_dynamodb()).collect();
        CallStats {
            dynamodb: dynamo.len(),
            sequential: proxy::sequential(&dynamo),
            other: calls.len() - dynamo.len(),
            scanned: calls.iter().filter_map(|c| c.scanned).sum(),
        }
    }

    /// `GetItem → UpdateItem → (GetItem ∥ GetItem)`: the calls in order, overlapping ones grouped.
    fn shape(calls: &[Call]) -> String {
        let mut sorted: Vec<&Call> = calls.iter().collect();
        sorted.sort_by_key(|c| c.start);
        let mut groups: Vec<(Instant, Vec<&Call>)> = Vec::new();
        for call in sorted {
            match groups.last_mut() {
                Some((end, group)) if call.start < *end => {
                    *end = (*end).max(call.end);
                    group.push(call);
                }
                _ => groups.push((call.end, vec![call])),
            }
        }
        groups
            .iter()
            .map(|(_, g)| {
                let names: Vec<String> = g
                    .iter()
                    .map(|c| {
                        let failed = if c.status >= 400 { "✗" } else { "" };
                        format!("{}{failed}", c.short())
                    })
                    .collect();
                if names.len() == 1 {
                    names[0].clone()
                } else {
                    format!("({})", names.join(" ∥ "))
                }
            })
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

struct Invocations {
    peak_rss: Option<u64>,
    init_calls: usize,
    cold: CallStats,
    cold_shape: String,
    warm: CallStats,
    warm_shape: String,
    cold_ms: f64,
    warm_ms: f64,
    /// Problems with the answers (wrong status, batch failures).
    problems: Vec<String>,
}

/// A fresh table with the demo accounts, the fixtures and a webhook secret.
async fn fresh_stack(
    sdk: &aws_config::SdkConfig,
    prefix: &str,
) -> Result<(Resources, Created, DynamoStore), Error> {
    let names = Resources::named(&format!(
        "{prefix}-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let created = stack::bootstrap(sdk, &names).await.map_err(err)?;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(sdk), names.table.clone());
    stack::seed_account(&store, stack::DEMO_ACCOUNT, "business", true).await?;
    stack::seed_account(&store, stack::OTHER_ACCOUNT, "pro", true).await?;
    stack::seed_fixtures(&store).await?;
    let secrets = WebhookSecrets {
        current: Some(shared::domain::secrets::generate_webhook_secret()),
        previous: None,
        previous_valid_until: None,
    };
    store
        .put_webhook_secrets(stack::DEMO_ACCOUNT, &secrets)
        .await?;
    // The accounts have already made a request today: the first request of a UTC day makes one
    // more write (the daily window's reset), which is not what a cold instance costs.
    let plans = shared::config::Plans::defaults();
    for (account, mode) in [
        (stack::DEMO_ACCOUNT, Mode::Test),
        (stack::DEMO_ACCOUNT, Mode::Live),
        (stack::OTHER_ACCOUNT, Mode::Test),
    ] {
        let key = stack::demo_key(account, mode);
        store
            .meter_api_request(account, &key.key_id, chrono::Utc::now(), &plans)
            .await?;
    }
    Ok((names, created, store))
}

/// Checks an answer against what its sample event's file name expects.
fn check_answer(
    function: &Function,
    event_file: &str,
    outcome: &runtime_api::Outcome,
) -> Option<String> {
    if outcome.kind != "response" {
        return Some(format!("{event_file}: {} {}", outcome.kind, outcome.body));
    }
    let body: serde_json::Value = serde_json::from_str(&outcome.body).unwrap_or_default();
    if function.http {
        let expected: i64 = event_file[..3].parse().unwrap_or(0);
        let got = body["statusCode"].as_i64().unwrap_or(0);
        (got != expected).then(|| format!("{event_file}: status {got}, expected {expected}"))
    } else {
        let failures = body["batchItemFailures"].as_array().map_or(0, Vec::len);
        (failures > 0).then(|| format!("{event_file}: {failures} batch item failures"))
    }
}

async fn invocations(
    root: &Path,
    launch: &Launch,
    function: &Function,
    moto: &Moto,
    sdk: &aws_config::SdkConfig,
) -> Result<Invocations, Error> {
    let (names, created, _store) = fresh_stack(sdk, "bench").await?;
    let hook = receiver::SlowReceiver::start(Duration::ZERO).await?;
    let proxy = Proxy::start(&moto.endpoint).await?;
    let mut api = RuntimeApi::start().await?;
    let mut env = lambda_env(
        function.name,
        &api.endpoint(),
        &proxy.endpoint,
        &names.table,
        &created.webhook_queue_url,
    );
    env.push(local_receiver(&hook.url));
    let mut child = launch.spawn(&env)?;
    let result = async {
        wait_next(&mut api, &mut child, 1, &launch.log).await?;
        let init_calls = proxy.take().len();
        let mut stats = Vec::new();
        let mut problems = Vec::new();
        let mut peak = None;
        for (i, file) in function.events.iter().enumerate() {
            let path = root.join("events").join(function.name).join(file);
            let event = std::fs::read_to_string(&path)
                .map_err(|e| err(format!("{}: {e}", path.display())))?
                .replace(SAMPLE_WEBHOOK_URL, &hook.url);
            let (outcome, took) = tokio::time::timeout(STEP_TIMEOUT, api.invoke(&event))
                .await
                .map_err(|_| err(format!("{}: no answer to {file}", function.name)))?
                .ok_or_else(|| err(format!("{}: runtime API closed", function.name)))?;
            problems.extend(check_answer(function, file, &outcome));
            // Idle again: every call of this invocation has ended.
            wait_next(&mut api, &mut child, i + 2, &launch.log).await?;
            if i == 0 {
                peak = child.id().and_then(peak_rss);
            }
            stats.push((proxy.take(), ms(took)));
        }
        let (warm_calls, warm_ms) = stats.pop().expect("two invocations");
        let (cold_calls, cold_ms) = stats.pop().expect("two invocations");
        Ok::<_, Error>(Invocations {
            peak_rss: peak,
            init_calls,
            cold: CallStats::of(&cold_calls),
            cold_shape: CallStats::shape(&cold_calls),
            warm: CallStats::of(&warm_calls),
            warm_shape: CallStats::shape(&warm_calls),
            cold_ms,
            warm_ms,
            problems,
        })
    }
    .await;
    stop(child).await;
    result
}

// ------------------------------------------------------------------------------------------------
// 3. Sizes

struct Size {
    binary: u64,
    zipped: u64,
}

/// The binary's size and the size of a deflated zip holding it as `bootstrap` (what is uploaded).
fn size_of(python: &Path, binary: &Path, zip_dir: &Path) -> Result<Size, Error> {
    let function = binary
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let zip = zip_dir.join(format!("{function}.zip"));
    let status = std::process::Command::new(python)
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:\n\
             \x20   z.write(sys.argv[1], 'bootstrap')",
        )
        .arg(binary)
        .arg(&zip)
        .status()?;
    if !status.success() {
        return Err(err(format!("zipping {} failed", binary.display())));
    }
    Ok(Size {
        binary: std::fs::metadata(binary)?.len(),
        zipped: std::fs::metadata(&zip)?.len(),
    })
}

// ------------------------------------------------------------------------------------------------
// 5. List cost

struct ListRun {
    verifications: usize,
    seed_seconds: f64,
    store_items_read: u64,
    store_items: usize,
    store_total: u64,
    store_ms: f64,
    handler_scanned: u64,
    handler_dynamodb: usize,
    handler_sequential: usize,
    handler_ms: f64,
    handler_status: i64,
    handler_items: usize,
    full_page_items_read: u64,
}

const LIST_ACCOUNT: &str = "acct_bench";

async fn list_cost(
    root: &Path,
    launch: &Launch,
    moto: &Moto,
    sdk: &aws_config::SdkConfig,
    sizes: &[usize],
) -> Result<Vec<ListRun>, Error> {
    let names = Resources::named(&format!(
        "bench-list-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let created = stack::bootstrap(sdk, &names).await.map_err(err)?;
    let client = aws_sdk_dynamodb::Client::new(sdk);
    let store = DynamoStore::new(client.clone(), names.table.clone());
    let (_live, test_key) = stack::seed_account(&store, LIST_ACCOUNT, "business", false).await?;
    let template =
        std::fs::read_to_string(root.join("events/list-verifications/200-default.json"))?;
    let mut event: serde_json::Value = serde_json::from_str(&template)?;
    event["headers"]["authorization"] = format!("Bearer {test_key}").into();
    let event = event.to_string();

    let proxy = Proxy::start(&moto.endpoint).await?;
    let mut api = RuntimeApi::start().await?;
    let env = lambda_env(
        "list-verifications",
        &api.endpoint(),
        &proxy.endpoint,
        &names.table,
        &created.webhook_queue_url,
    );
    let mut child = launch.spawn(&env)?;
    let result = async {
        wait_next(&mut api, &mut child, 1, &launch.log).await?;
        // One unmeasured request first: every measured one is then a warm instance's, with the
        // account's daily window open, so the sizes differ in nothing but the table.
        tokio::time::timeout(STEP_TIMEOUT, api.invoke(&event))
            .await
            .map_err(|_| err("list-verifications: no answer"))?
            .ok_or_else(|| err("list-verifications: runtime API closed"))?;
        wait_next(&mut api, &mut child, 2, &launch.log).await?;
        let mut nexts = 2;
        let mut runs = Vec::new();
        let mut seeded = 0;
        for &size in sizes {
            let t = Instant::now();
            seed::seed_verifications(&client, &names.table, LIST_ACCOUNT, seeded, size)
                .await
                .map_err(err)?;
            let seed_seconds = t.elapsed().as_secs_f64();
            seeded = size;
            eprintln!("  seeded {size} verifications in {seed_seconds:.1} s");
            let query = |limit| ListQuery {
                account_id: LIST_ACCOUNT.into(),
                mode: Mode::Test,
                status: None,
                offset: 0,
                limit,
                expired_if_created_by: chrono::Utc::now() - shared::domain::VERIFICATION_LIFETIME,
            };
            let t = Instant::now();
            let page = store
                .list_verifications(&query(shared::handlers::api::DEFAULT_LIMIT))
                .await?;
            let store_ms = ms(t.elapsed());
            let full = store
                .list_verifications(&query(shared::handlers::api::MAX_LIMIT))
                .await?;
            proxy.take();
            let (outcome, took) =
                tokio::time::timeout(Duration::from_secs(300), api.invoke(&event))
                    .await
                    .map_err(|_| err("list-verifications: no answer"))?
                    .ok_or_else(|| err("list-verifications: runtime API closed"))?;
            nexts += 1;
            wait_next(&mut api, &mut child, nexts, &launch.log).await?;
            let calls = CallStats::of(&proxy.take());
            let body: serde_json::Value = serde_json::from_str(&outcome.body).unwrap_or_default();
            runs.push(ListRun {
                verifications: size,
                seed_seconds,
                store_items_read: page.items_read,
                store_items: page.items.len(),
                store_total: page.total,
                store_ms,
                handler_scanned: calls.scanned,
                handler_dynamodb: calls.dynamodb,
                handler_sequential: calls.sequential,
                handler_ms: ms(took),
                handler_status: body["statusCode"].as_i64().unwrap_or(0),
                handler_items: body["body"]
                    .as_str()
                    .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
                    .and_then(|b| b["data"].as_array().map(Vec::len))
                    .unwrap_or(0),
                full_page_items_read: full.items_read,
            });
        }
        Ok::<_, Error>(runs)
    }
    .await;
    stop(child).await;
    // Frees moto's memory for what follows.
    let _ = client.delete_table().table_name(&names.table).send().await;
    result
}

// ------------------------------------------------------------------------------------------------
// 6. Webhook batch

struct WebhookRun {
    one: Spread,
    ten: Spread,
    ten_received: usize,
    ten_max_in_flight: usize,
}

fn webhook_event(sample: &str, url: &str, n: usize) -> Result<String, Error> {
    let mut event: serde_json::Value =
        serde_json::from_str(&sample.replace(SAMPLE_WEBHOOK_URL, url))?;
    let record = event["Records"][0].clone();
    let mut records = Vec::new();
    for i in 0..n {
        let mut r = record.clone();
        r["messageId"] = uuid::Uuid::new_v4().to_string().into();
        let mut body: serde_json::Value =
            serde_json::from_str(r["body"].as_str().ok_or_else(|| err("sample body"))?)?;
        body["webhook_id"] = format!("msg_bench_{i}_{}", uuid::Uuid::new_v4().simple()).into();
        r["body"] = body.to_string().into();
        records.push(r);
    }
    event["Records"] = records.into();
    Ok(event.to_string())
}

async fn webhook_batch(
    root: &Path,
    launch: &Launch,
    moto: &Moto,
    sdk: &aws_config::SdkConfig,
    rounds: usize,
) -> Result<WebhookRun, Error> {
    let (names, created, _store) = fresh_stack(sdk, "bench-hook").await?;
    let hook = receiver::SlowReceiver::start(Duration::from_millis(200)).await?;
    let sample =
        std::fs::read_to_string(root.join("events/deliver-webhook/delivered-one-message.json"))?;
    let mut api = RuntimeApi::start().await?;
    let mut env = lambda_env(
        "deliver-webhook",
        &api.endpoint(),
        &moto.endpoint,
        &names.table,
        &created.webhook_queue_url,
    );
    env.push(local_receiver(&hook.url));
    let mut child = launch.spawn(&env)?;
    let result = async {
        wait_next(&mut api, &mut child, 1, &launch.log).await?;
        let mut nexts = 1;
        let (mut one, mut ten) = (Vec::new(), Vec::new());
        let (mut received, mut max_in_flight) = (usize::MAX, usize::MAX);
        // Round 0 warms the instance (connections to moto) and is not counted.
        for round in 0..=rounds {
            for n in [1, 10] {
                hook.reset();
                let event = webhook_event(&sample, &hook.url, n)?;
                let (outcome, took) = tokio::time::timeout(STEP_TIMEOUT, api.invoke(&event))
                    .await
                    .map_err(|_| err("deliver-webhook: no answer"))?
                    .ok_or_else(|| err("deliver-webhook: runtime API closed"))?;
                nexts += 1;
                wait_next(&mut api, &mut child, nexts, &launch.log).await?;
                let body: serde_json::Value =
                    serde_json::from_str(&outcome.body).unwrap_or_default();
                let failures = body["batchItemFailures"].as_array().map_or(0, Vec::len);
                if failures > 0 || hook.received() != n {
                    return Err(err(format!(
                        "deliver-webhook: {failures} failures, {} of {n} received: {}",
                        hook.received(),
                        outcome.body
                    )));
                }
                if round == 0 {
                    continue;
                }
                if n == 1 {
                    one.push(ms(took));
                } else {
                    ten.push(ms(took));
                    received = received.min(hook.received());
                    max_in_flight = max_in_flight.min(hook.max_in_flight());
                }
            }
        }
        Ok::<_, Error>(WebhookRun {
            one: Spread::new(one),
            ten: Spread::new(ten),
            ten_received: received,
            ten_max_in_flight: max_in_flight,
        })
    }
    .await;
    stop(child).await;
    result
}

// ------------------------------------------------------------------------------------------------
// The machine

fn command_output(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "?".into())
}

/// The 1-minute load average: other work on the machine shows in the spread of the timings.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn machine(python: &Path) -> Vec<(String, String)> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "?".into());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines().find_map(|l| {
                l.strip_prefix("MemTotal:")
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            })
        })
        .map_or("?".into(), |kb| format!("{:.1} GiB", kb / MIB));
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let python = python.to_string_lossy().to_string();
    vec![
        (
            "date (UTC)".into(),
            chrono::Utc::now().format("%Y-%m-%d %H:%M").to_string(),
        ),
        ("CPU".into(), cpu),
        ("nproc".into(), nproc.to_string()),
        ("memory".into(), memory),
        (
            "kernel".into(),
            std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "?".into()),
        ),
        ("rustc".into(), command_output("rustc", &["--version"])),
        (
            "peer".into(),
            command_output(
                &python,
                &[
                    "-c",
                    "import sys, boto3, botocore, moto; print(f'Python {sys.version.split()[0]}, boto3 {boto3.__version__}, botocore {botocore.__version__} (moto {moto.__version__} serves AWS)')",
                ],
            ),
        ),
    ]
}

// ------------------------------------------------------------------------------------------------
// Report

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / MIB)
}

fn yes(ok: bool) -> &'static str {
    if ok { "yes" } else { "**no**" }
}

struct Row {
    name: String,
    init: Option<ColdInit>,
    size: Option<Size>,
    inv: Option<Invocations>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if let Err(e) = run(Args::parse()).await {
        eprintln!("bench failed: {e}");
        std::process::exit(1);
    }
}

async fn run(args: Args) -> Result<(), Error> {
    let begun = Instant::now();
    let load_before = loadavg();
    let root = std::env::current_dir()?;
    if !root.join("events").is_dir() {
        return Err(err("run from the repository's root (events/ not found)"));
    }
    let out_dir = args
        .out
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let logs = out_dir.join("logs");
    let zips = out_dir.join("zip");
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
    for f in &FUNCTIONS {
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
    for f in &FUNCTIONS {
        let launch = launch_of(f.name);
        eprintln!("bench: {}", f.name);
        let init = cold_init(
            &launch,
            f.name,
            args.starts,
            &moto.endpoint,
            &names.table,
            &created.webhook_queue_url,
        )
        .await?;
        let inv = invocations(&root, &launch, f, &moto, &sdk).await?;
        let size = size_of(&args.python, &launch.program, &zips)?;
        rows.push(Row {
            name: f.name.to_string(),
            init: Some(init),
            size: Some(size),
            inv: Some(inv),
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
        &created.webhook_queue_url,
    )
    .await?;

    eprintln!("bench: webhook batch");
    let hooks = webhook_batch(&root, &launch_of("deliver-webhook"), &moto, &sdk, 5).await?;

    eprintln!("bench: list cost (seeding {} verifications)", args.large);
    let sizes = [100, args.large];
    let lists = list_cost(&root, &launch_of("list-verifications"), &moto, &sdk, &sizes).await?;

    let load = format!("{load_before} at start, {} at end", loadavg());
    let report = render(
        &args,
        &rows,
        &peer_init,
        &hooks,
        &lists,
        begun.elapsed(),
        &load,
    );
    println!("{report}");
    std::fs::write(&args.out, &report)?;
    eprintln!("bench: written to {}", args.out.display());
    Ok(())
}

fn render(
    args: &Args,
    rows: &[Row],
    peer: &ColdInit,
    hooks: &WebhookRun,
    lists: &[ListRun],
    took: Duration,
    load: &str,
) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Benchmark: Tenant Income Verification Service\n");
    let mut machine = machine(&args.python);
    machine.push(("load average (1 min)".into(), load.to_string()));
    let line: Vec<String> = machine.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let _ = writeln!(o, "{}  ", line.join("; "));
    let _ = writeln!(
        o,
        "Binaries: `{}` (x86_64, `target/lambda/<function>/bootstrap`); zip = deflated zip of `bootstrap`. \
         Cold init: {} measured starts per function (after one unmeasured start), process start to its first \
         `GET /runtime/invocation/next` on a loopback Runtime API, 128 MB env, no CPU limit. \
         Calls: counted by a proxy between the function and moto; \"sequential\" = DynamoDB round trips on the \
         critical path (overlapping calls count once). Bench run took {:.0} s.\n",
        args.build,
        args.starts,
        took.as_secs_f64()
    );

    let peer_median = peer.times.median();
    let _ = writeln!(
        o,
        "| function | cold init median ms | p25–p75 | min–max | vs Python peer | peak RSS MB | binary MB | zip MB | DynamoDB calls cold (sequential) | warm (sequential) | other AWS calls |"
    );
    let _ = writeln!(o, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for r in rows {
        let init = r.init.as_ref();
        let cell = |f: &dyn Fn(&ColdInit) -> String| init.map_or("–".into(), f);
        let inv = r.inv.as_ref();
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            cell(&|i| format!("{:.1}", i.times.median())),
            cell(&|i| format!("{:.1}–{:.1}", i.times.pct(0.25), i.times.pct(0.75))),
            cell(&|i| format!("{:.1}–{:.1}", i.times.min(), i.times.max())),
            cell(&|i| format!("{:.0}x", peer_median / i.times.median())),
            inv.and_then(|i| i.peak_rss).map_or("–".into(), mb),
            r.size.as_ref().map_or("–".into(), |s| mb(s.binary)),
            r.size.as_ref().map_or("–".into(), |s| mb(s.zipped)),
            inv.map_or("–".into(), |i| format!(
                "{} ({})",
                i.cold.dynamodb, i.cold.sequential
            )),
            inv.map_or("–".into(), |i| format!(
                "{} ({})",
                i.warm.dynamodb, i.warm.sequential
            )),
            inv.map_or("–".into(), |i| format!(
                "{} / {}",
                i.cold.other, i.warm.other
            )),
        );
    }
    let _ = writeln!(
        o,
        "| Python peer (boto3: DynamoDB, SESv2, SQS clients) | {:.1} | {:.1}–{:.1} | {:.1}–{:.1} | 1x | {} at init | – | – | – | – | – |\n",
        peer_median,
        peer.times.pct(0.25),
        peer.times.pct(0.75),
        peer.times.min(),
        peer.times.max(),
        peer.init_rss.map_or("?".into(), mb),
    );

    let _ = writeln!(
        o,
        "AWS calls per invocation, in order (`∥` = overlapping in time, `✗` = refused, e.g. a failed condition). \
         Cold = the first event of a fresh instance, warm = the second; the accounts have already made a request \
         that UTC day (the first request of a day makes one more, sequential UpdateItem: the daily window's reset):\n"
    );
    let _ = writeln!(
        o,
        "| function | cold (first) invocation | warm (second) | cold / warm ms | init calls |"
    );
    let _ = writeln!(o, "|---|---|---|--:|--:|");
    for r in rows {
        if let Some(i) = &r.inv {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {:.1} / {:.1} | {} |",
                r.name,
                if i.cold_shape.is_empty() {
                    "–"
                } else {
                    &i.cold_shape
                },
                if i.warm_shape.is_empty() {
                    "–"
                } else {
                    &i.warm_shape
                },
                i.cold_ms,
                i.warm_ms,
                i.init_calls
            );
        }
    }
    let problems: Vec<String> = rows
        .iter()
        .filter_map(|r| r.inv.as_ref().map(|i| (r, i)))
        .flat_map(|(r, i)| i.problems.iter().map(move |p| format!("{}: {p}", r.name)))
        .collect();
    if !problems.is_empty() {
        let _ = writeln!(o, "\n**Unexpected answers:** {}", problems.join("; "));
    }

    let _ = writeln!(
        o,
        "\nList cost: one page of `GET /api/v1/verifications` (default limit {}) of one owner, via the store and via the list-verifications binary on a warm instance (items read = DynamoDB's ScannedCount, seen by the proxy); items seeded with BatchWriteItem:\n",
        shared::handlers::api::DEFAULT_LIMIT
    );
    let _ = writeln!(
        o,
        "| verifications of the owner | items read (store) | items read (handler) | items read, limit {} | DynamoDB calls (sequential) | page items: store / handler (status) | total reported | store ms | handler ms | seeding s |",
        shared::handlers::api::MAX_LIMIT
    );
    let _ = writeln!(o, "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for l in lists {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} ({}) | {} / {} ({}) | {} | {:.1} | {:.1} | {:.1} |",
            l.verifications,
            l.store_items_read,
            l.handler_scanned,
            l.full_page_items_read,
            l.handler_dynamodb,
            l.handler_sequential,
            l.store_items,
            l.handler_items,
            l.handler_status,
            l.store_total,
            l.store_ms,
            l.handler_ms,
            l.seed_seconds
        );
    }
    let _ = writeln!(
        o,
        "\nTimes at the large size are moto's: it evaluates a GSI query by going over the whole table in Python; DynamoDB reads only the page. Items read is the cost measure.\n"
    );

    let ratio = hooks.ten.median() / hooks.one.median();
    let _ = writeln!(
        o,
        "Webhook batch: deliver-webhook binary, receiver on loopback sleeping 200 ms per request, {} rounds (after one warm-up):\n",
        hooks.one.samples.len()
    );
    let _ = writeln!(
        o,
        "| batch | median ms | min–max | receiver: most requests at once |"
    );
    let _ = writeln!(o, "|---|--:|--:|--:|");
    let _ = writeln!(
        o,
        "| 1 message | {:.1} | {:.1}–{:.1} | 1 |",
        hooks.one.median(),
        hooks.one.min(),
        hooks.one.max()
    );
    let _ = writeln!(
        o,
        "| 10 messages | {:.1} | {:.1}–{:.1} | {} |",
        hooks.ten.median(),
        hooks.ten.min(),
        hooks.ten.max(),
        hooks.ten_max_in_flight
    );
    let _ = writeln!(
        o,
        "\n10 messages / 1 message = {ratio:.2}x ({} delivered).\n",
        hooks.ten_received
    );

    // Targets.
    let lambdas: Vec<&Row> = rows.iter().filter(|r| r.init.is_some()).collect();
    let worst_init = lambdas
        .iter()
        .filter_map(|r| r.init.as_ref().map(|i| (i.times.median(), &r.name)))
        .fold((0.0f64, String::new()), |acc, (m, n)| {
            if m > acc.0 { (m, n.clone()) } else { acc }
        });
    let worst_rss = lambdas
        .iter()
        .filter_map(|r| {
            r.inv
                .as_ref()
                .and_then(|i| i.peak_rss)
                .map(|b| (b, &r.name))
        })
        .fold((0u64, String::new()), |acc, (b, n)| {
            if b > acc.0 { (b, n.clone()) } else { acc }
        });
    let api_rows: Vec<(&Row, &Invocations)> = rows
        .iter()
        .filter(|r| FUNCTIONS.iter().any(|f| f.http && f.name == r.name))
        .filter_map(|r| r.inv.as_ref().map(|i| (r, i)))
        .collect();
    // The most sequential round trips, with every HTTP function that needs more than two.
    let worst_seq = |pick: &dyn Fn(&Invocations) -> usize| {
        let max = api_rows.iter().map(|(_, i)| pick(i)).max().unwrap_or(0);
        let over: Vec<String> = api_rows
            .iter()
            .filter(|(_, i)| pick(i) > 2)
            .map(|(r, i)| format!("{} {}", r.name, pick(i)))
            .collect();
        let detail = if over.is_empty() {
            "none over 2".to_string()
        } else {
            format!("over 2: {}", over.join(", "))
        };
        (max, detail)
    };
    let (cold_seq, cold_seq_fn) = worst_seq(&|i| i.cold.sequential);
    let (warm_seq, warm_seq_fn) = worst_seq(&|i| i.warm.sequential);
    let speedup = peer_median / worst_init.0;
    let list_equal = lists.windows(2).all(|w| {
        w[0].store_items_read == w[1].store_items_read
            && w[0].handler_scanned == w[1].handler_scanned
    });
    let _ = writeln!(o, "| target | measured | holds |");
    let _ = writeln!(o, "|---|---|---|");
    let _ = writeln!(
        o,
        "| cold init ≤ 25 ms (median) | slowest: {} {:.1} ms | {} |",
        worst_init.1,
        worst_init.0,
        yes(worst_init.0 <= 25.0)
    );
    let _ = writeln!(
        o,
        "| ≥ 25x faster than the Python peer | peer {:.1} ms; slowest function {:.0}x | {} |",
        peer_median,
        speedup,
        yes(speedup >= 25.0)
    );
    let _ = writeln!(
        o,
        "| peak RSS ≤ 20 MB | largest: {} {} MB | {} |",
        worst_rss.1,
        mb(worst_rss.0),
        yes(worst_rss.0 as f64 <= 20.0 * MIB)
    );
    let _ = writeln!(
        o,
        "| ≤ 2 sequential DynamoDB round trips per HTTP request | warm instance: at most {} ({}); first request of a cold instance: at most {} ({}) | warm {}, cold {} |",
        warm_seq,
        warm_seq_fn,
        cold_seq,
        cold_seq_fn,
        yes(warm_seq <= 2),
        yes(cold_seq <= 2)
    );
    let _ = writeln!(
        o,
        "| list cost independent of table size | items read: {} | {} |",
        lists
            .iter()
            .map(|l| format!("{} at {}", l.store_items_read, l.verifications))
            .collect::<Vec<_>>()
            .join(", "),
        yes(list_equal)
    );
    let _ = writeln!(
        o,
        "| webhook batch of 10 < 2x one delivery | {:.0} ms vs {:.0} ms = {ratio:.2}x | {} |",
        hooks.ten.median(),
        hooks.one.median(),
        yes(ratio < 2.0)
    );
    o
}
