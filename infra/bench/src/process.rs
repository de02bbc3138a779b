//! Starting a function the way Lambda does (its environment, a log, its peak memory) and the
//! statistics of repeated measurements.

use super::*;

// ------------------------------------------------------------------------------------------------
// Processes

/// The environment Lambda gives a function (loopback endpoints, dummy credentials), plus the
/// variables template.yaml gives it (`environment`). Nothing else of the bench's environment
/// leaks in.
pub(crate) fn lambda_env(
    function: &str,
    runtime_api: &str,
    aws_endpoint: &str,
    table: &str,
    queues: &devstack::stack::Created,
) -> Result<Vec<(String, String)>, Error> {
    let runtime = [
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
    ];
    let mut env: Vec<(String, String)> = runtime
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.extend(crate::environment::variables(
        function,
        &crate::environment::Local { table, queues },
    )?);
    Ok(env)
}

/// A receiver on loopback that answers 200 after `delay` (the shared one of the local stack).
pub(crate) async fn slow_receiver(delay: Duration) -> std::io::Result<Receiver> {
    let always_ok = devstack::receiver::scripted(vec![200]);
    Receiver::start(0, "/webhooks", delay, always_ok).await
}

/// Lists the bench's receiver as the one non-public webhook target (`LOCAL_WEBHOOK_ORIGINS`).
pub(crate) fn local_receiver(receiver: &Receiver) -> (String, String) {
    ("LOCAL_WEBHOOK_ORIGINS".to_string(), receiver.origin())
}

/// How to start a function: a binary, or the Python peer.
#[derive(Clone)]
pub(crate) struct Launch {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) log: PathBuf,
}

impl Launch {
    pub(crate) fn spawn(&self, env: &[(String, String)]) -> Result<tokio::process::Child, Error> {
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

pub(crate) async fn stop(mut child: tokio::process::Child) {
    let _ = child.start_kill();
    let _ = child.wait().await;
}

/// Peak resident set (VmHWM) of a running process, in bytes.
pub(crate) fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

pub(crate) const STEP_TIMEOUT: Duration = Duration::from_secs(30);

/// Waits for the function's n-th `next`, failing fast if it exits (e.g. on an init error).
pub(crate) async fn wait_next(
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
pub(crate) struct Spread {
    pub(crate) samples: Vec<f64>,
}

impl Spread {
    pub(crate) fn new(mut samples: Vec<f64>) -> Self {
        samples.sort_by(|a, b| a.total_cmp(b));
        Spread { samples }
    }
    /// Linear-interpolated percentile, `p` in 0..=1.
    pub(crate) fn pct(&self, p: f64) -> f64 {
        let n = self.samples.len();
        if n == 0 {
            return f64::NAN;
        }
        let x = p * (n - 1) as f64;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        self.samples[lo] + (self.samples[hi] - self.samples[lo]) * (x - lo as f64)
    }
    pub(crate) fn median(&self) -> f64 {
        self.pct(0.5)
    }
    pub(crate) fn min(&self) -> f64 {
        self.samples.first().copied().unwrap_or(f64::NAN)
    }
    pub(crate) fn max(&self) -> f64 {
        self.samples.last().copied().unwrap_or(f64::NAN)
    }
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
