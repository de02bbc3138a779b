//! Load: `clients` concurrent clients creating and reading verifications against the local
//! stack (loopback, moto behind it) for a bounded time, then a check that every created
//! verification got its e-mail; and the API handlers' own throughput on one core over the
//! in-memory store, so the figure is the code's and not moto's.

use std::time::{Duration, Instant};

use chrono::Utc;
use domain::secrets::account_key_from_random;
use domain::{ApiKeyRecord, Mode, Plan};
use ports::SystemClock;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::handlers::api::ApiDeps;
use service::handlers::create_verification::create_verification;
use service::handlers::get_verification::get_verification;
use service::http::{ApiRequest, parse_query};
use test_support::{MemoryStore, active_account};

use crate::flow::{LocalStack, local_stack};
use crate::{Error, err};
use devstack::moto::Moto;

/// Latency percentiles (ms) of a set of requests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Percentiles {
    pub(crate) p50: f64,
    pub(crate) p95: f64,
    pub(crate) p99: f64,
}

/// Nearest-rank percentiles; None for no samples.
pub(crate) fn percentiles(samples: &mut [Duration]) -> Option<Percentiles> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_unstable();
    let at = |p: f64| {
        let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
        samples[rank.clamp(1, samples.len()) - 1].as_secs_f64() * 1000.0
    };
    Some(Percentiles {
        p50: at(50.0),
        p95: at(95.0),
        p99: at(99.0),
    })
}

pub(crate) struct LoadRun {
    pub(crate) clients: usize,
    pub(crate) seconds: f64,
    pub(crate) requests: usize,
    pub(crate) errors: usize,
    pub(crate) latency: Option<Percentiles>,
    pub(crate) created: usize,
    /// Created verifications without exactly one e-mail after the drain.
    pub(crate) lost_emails: usize,
}

impl LoadRun {
    pub(crate) fn per_second(&self) -> f64 {
        self.requests as f64 / self.seconds.max(f64::EPSILON)
    }
}

/// What one client did.
#[derive(Default)]
struct ClientRun {
    latencies: Vec<Duration>,
    errors: usize,
    /// Requests that got no answer at all (counted in `errors` too).
    unanswered: usize,
    addresses: Vec<String>,
}

async fn client(stack: &LocalStack, n: usize, until: Instant) -> ClientRun {
    let mut run = ClientRun::default();
    let key = stack.test_key.clone();
    let mut i = 0;
    while Instant::now() < until {
        let to = format!("load{n}-{i}@example.com");
        i += 1;
        let body = json!({"tenant_email": to});
        let created = stack
            .request("POST", "/api/v1/verify", Some(&key), Some(&body), None)
            .await;
        let id = match created {
            Ok(a) if a.status == 201 => {
                run.latencies.push(a.took);
                run.addresses.push(to);
                a.body["data"]["verification_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            }
            Ok(a) => {
                run.latencies.push(a.took);
                run.errors += 1;
                continue;
            }
            Err(_) => {
                run.errors += 1;
                run.unanswered += 1;
                continue;
            }
        };
        let path = format!("/api/v1/verify?verification_id={id}");
        match stack.request("GET", &path, Some(&key), None, None).await {
            Ok(a) => {
                run.latencies.push(a.took);
                if a.status != 200 {
                    run.errors += 1;
                }
            }
            Err(_) => {
                run.errors += 1;
                run.unanswered += 1;
            }
        }
    }
    run
}

/// The tenant e-mails moto's SES holds, by recipient.
async fn emails_by_recipient(
    endpoint: &str,
) -> Result<std::collections::HashMap<String, usize>, Error> {
    let raw = reqwest::Client::builder()
        .no_proxy()
        .build()?
        .get(format!("{endpoint}/moto-api/data.json"))
        .send()
        .await?
        .text()
        .await?;
    let data: Value = serde_json::from_str(&raw)?;
    let mut by = std::collections::HashMap::new();
    for m in data["ses"]["Message"].as_array().into_iter().flatten() {
        for to in m["destinations"]["ToAddresses"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(to) = to.as_str() {
                *by.entry(to.to_string()).or_insert(0) += 1;
            }
        }
    }
    Ok(by)
}

/// `clients` clients for `seconds`; then the outbox (publish-events over the stream) is drained
/// and every created verification must have exactly one e-mail.
pub(crate) async fn load_run(moto: &Moto, clients: usize, seconds: u64) -> Result<LoadRun, Error> {
    let mut stack = local_stack(moto).await?;
    let begun = Instant::now();
    let until = begun + Duration::from_secs(seconds);
    let runs = {
        let stack_ref = &stack;
        futures::future::join_all((0..clients).map(|n| client(stack_ref, n, until))).await
    };
    let elapsed = begun.elapsed().as_secs_f64();
    // The outbox catches up: pump until a pass finds nothing new.
    let mut quiet = 0;
    while quiet < 2 {
        match stack.pump_stream().await? {
            Some(_) => quiet = 0,
            None => quiet += 1,
        }
    }
    let mut latencies = Vec::new();
    let mut errors = 0;
    let mut transport_errors = 0;
    let mut addresses = Vec::new();
    for run in runs {
        latencies.extend(run.latencies);
        errors += run.errors;
        transport_errors += run.unanswered;
        addresses.extend(run.addresses);
    }
    let sent = emails_by_recipient(&moto.endpoint).await?;
    let lost_emails = addresses
        .iter()
        .filter(|a| sent.get(*a).copied().unwrap_or(0) != 1)
        .count();
    stack.proxy.take();
    Ok(LoadRun {
        clients,
        seconds: elapsed,
        requests: latencies.len() + transport_errors,
        errors,
        latency: percentiles(&mut latencies),
        created: addresses.len(),
        lost_emails,
    })
}

/// The API handlers on one core over `MemoryStore`: create + status read pairs for `seconds`.
pub(crate) struct HandlerRun {
    pub(crate) requests: usize,
    pub(crate) seconds: f64,
}

impl HandlerRun {
    pub(crate) fn per_second(&self) -> f64 {
        self.requests as f64 / self.seconds.max(f64::EPSILON)
    }
}

fn request(method: http::Method, path: &str, query: &str, key: &str, body: &str) -> ApiRequest {
    let mut headers = http::HeaderMap::new();
    let auth = format!("Bearer {key}");
    headers.insert("authorization", auth.parse().expect("header"));
    headers.insert("content-type", "application/json".parse().expect("header"));
    ApiRequest {
        method,
        path: path.into(),
        query: parse_query(query),
        headers,
        body: body.as_bytes().to_vec(),
        request_id: uuid::Uuid::new_v4().to_string(),
    }
}

/// Runs on a single-threaded runtime in its own thread: the figure is per core.
pub(crate) fn handler_throughput(seconds: u64) -> Result<HandlerRun, Error> {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async move {
            let store = MemoryStore::new();
            let now = Utc::now();
            store
                .put_account(&active_account("acct_bench", "bench", now))
                .await?;
            let key =
                account_key_from_random("acct_bench", Mode::Test, "BenchTestKeyMemoryStore0000001")
                    .ok_or("the bench account id names no key")?;
            store
                .put_api_key(&ApiKeyRecord {
                    key_id: key.key_id.clone(),
                    key_hash: key.hash.clone(),
                    account_id: "acct_bench".into(),
                    mode: Mode::Test,
                    display_prefix: key.display_prefix.clone(),
                    created_at: now,
                    revoked_at: None,
                })
                .await?;
            let settings = service::config::Settings {
                plans: domain::plans::Plans::new(vec![Plan {
                    name: "bench".into(),
                    verifications_per_month: u32::MAX,
                    api_requests_per_day: u32::MAX,
                    api_access: true,
                    sms_per_month: u32::MAX,
                    // The load is one key's: its burst bound would measure itself, not the store.
                    key_burst: domain::KeyBurst {
                        requests: u32::MAX,
                        per_second: u32::MAX,
                    },
                }]),
                ..devstack::local_settings(
                    "unused",
                    "https://verify.example.com",
                    domain::VERIFICATION_LIFETIME,
                )
            };
            let deps = ApiDeps::new(store, SystemClock, settings);
            let begun = Instant::now();
            let until = begun + Duration::from_secs(seconds);
            let mut requests = 0;
            let mut i = 0u64;
            while Instant::now() < until {
                let body = format!(r#"{{"tenant_email":"t{i}@example.com"}}"#);
                i += 1;
                let created = create_verification(
                    &deps,
                    request(http::Method::POST, "/api/v1/verify", "", &key.secret, &body),
                )
                .await;
                if created.status != 201 {
                    return Err(err(format!("create answered {}", created.status)));
                }
                let v: Value = serde_json::from_slice(created.body.as_bytes())?;
                let id = v["data"]["verification_id"].as_str().unwrap_or_default();
                let read = get_verification(
                    &deps,
                    request(
                        http::Method::GET,
                        "/api/v1/verify",
                        &format!("verification_id={id}"),
                        &key.secret,
                        "",
                    ),
                )
                .await;
                if read.status != 200 {
                    return Err(err(format!("status read answered {}", read.status)));
                }
                requests += 2;
            }
            Ok(HandlerRun {
                requests,
                seconds: begun.elapsed().as_secs_f64(),
            })
        })
    })
    .join()
    .map_err(|_| err("handler throughput thread panicked"))?
}

/// The report's section: the load run and the handlers' own throughput.
pub(crate) fn section(run: &LoadRun, handlers: &HandlerRun, handler_seconds: u64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Load\n\n{} concurrent clients creating a verification and reading its status, \
         against the local stack on loopback (handlers in process, moto behind them) for {:.1} s; \
         then the outbox drained and every created verification checked for exactly one e-mail.\n",
        run.clients, run.seconds
    );
    let _ = writeln!(
        out,
        "| requests | requests/s | p50 ms | p95 ms | p99 ms | errors | created | e-mails lost |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (p50, p95, p99) = run
        .latency
        .map_or(("-".into(), "-".into(), "-".into()), |p| {
            (
                format!("{:.1}", p.p50),
                format!("{:.1}", p.p95),
                format!("{:.1}", p.p99),
            )
        });
    let _ = writeln!(
        out,
        "| {} | {:.0} | {p50} | {p95} | {p99} | {} | {} | {} |\n",
        run.requests,
        run.per_second(),
        run.errors,
        run.created,
        run.lost_emails
    );
    let _ = writeln!(
        out,
        "The handlers alone (create + status read over `MemoryStore`, one core, {handler_seconds} s): \
         **{:.0} requests/s per core** ({} requests). The load figures above are bounded by moto, \
         a single Python process on the same cores.",
        handlers.per_second(),
        handlers.requests
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut samples: Vec<Duration> = (1..=100).rev().map(Duration::from_millis).collect();
        let p = percentiles(&mut samples).unwrap();
        assert_eq!((p.p50, p.p95, p.p99), (50.0, 95.0, 99.0));
        let mut one = vec![Duration::from_millis(7)];
        let p = percentiles(&mut one).unwrap();
        assert_eq!((p.p50, p.p95, p.p99), (7.0, 7.0, 7.0));
        assert_eq!(percentiles(&mut []), None);
    }

    #[test]
    fn the_handlers_serve_creates_and_reads_on_the_memory_store() {
        // Every create answered 201 and every read 200 (it errs otherwise), in pairs.
        let run = handler_throughput(1).unwrap();
        assert!(run.requests > 0);
        assert_eq!(run.requests % 2, 0);
    }
}

#[cfg(test)]
mod against_moto {
    use super::*;

    /// A short bounded run: every request answered, every verification e-mailed once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_short_load_run_loses_nothing() {
        let moto = Moto::start().unwrap();
        let run = load_run(&moto, 3, 1).await.unwrap();
        assert!(run.created > 0);
        assert_eq!(run.errors, 0);
        assert_eq!(run.lost_emails, 0);
        assert_eq!(run.requests, 2 * run.created);
        assert!(run.latency.is_some());
    }
}
