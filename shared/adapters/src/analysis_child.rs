//! The document analysis in a child process the operating system stops: the function's binary
//! runs itself again with [`CHILD_ARG`], under an address-space and a CPU-time limit, reads the
//! tenant's name and the file on stdin and writes its answer as JSON on stdout. A child killed at
//! a limit is a refusal with the limit as its reason, never a lost document; the thread that
//! waits for it ends when it does, so a hostile file can't keep burning a warm function's CPU.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

use domain::documents::{Analysis, Refusal};
use serde::{Deserialize, Serialize};
use service::handlers::analyze_document::Analyse;

/// The first argument that makes the function's binary the analysis child.
pub const CHILD_ARG: &str = "--analyse-document";

/// What starts the answer's line on the child's stdout.
const ANSWER: &str = "ANALYSIS ";

/// The child's exit code when the analysis panicked.
const PANICKED: i32 = 3;

/// What the operating system lets one analysis use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// RLIMIT_AS: the child's whole address space, code and stacks included.
    pub address_space_bytes: u64,
    /// RLIMIT_CPU: seconds of CPU time; the kernel kills the child past it.
    pub cpu_seconds: u64,
}

/// The limits of one analysis: ten times what a genuine ten-page file takes (docs/documents.md).
pub const LIMITS: ChildLimits = ChildLimits {
    address_space_bytes: 384 * 1024 * 1024,
    cpu_seconds: 10,
};

/// The child's answer.
#[derive(Serialize, Deserialize)]
enum Answer {
    Analysed(Box<Analysis>),
    Refused(Refusal),
}

/// The header before the file on the child's stdin.
#[derive(Serialize, Deserialize)]
struct Request {
    tenant_name: Option<String>,
}

/// How the child is started: a program, its arguments, its limits.
#[derive(Debug, Clone)]
pub struct Child {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Variables added to the child's environment (a test's marker).
    pub env: Vec<(String, String)>,
    pub limits: ChildLimits,
}

impl Child {
    /// The running binary again, as the analysis child (the functions' way).
    pub fn this_binary() -> Self {
        Child {
            program: PathBuf::from("/proc/self/exe"),
            args: vec![CHILD_ARG.to_string()],
            env: vec![],
            limits: LIMITS,
        }
    }

    /// The handler's analysis, run in this child.
    pub fn analyser(self) -> Analyse {
        Arc::new(move |bytes: &[u8], tenant_name: Option<&str>| self.analyse(bytes, tenant_name))
    }

    /// Analyses `bytes` in a child; a child stopped at a limit is a refusal naming it, and `Err`
    /// says the child could not be started (the queue retries).
    pub fn analyse(
        &self,
        bytes: &[u8],
        tenant_name: Option<&str>,
    ) -> Result<Result<Analysis, Refusal>, String> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let limits = self.limits;
        // SAFETY: only setrlimit runs between fork and exec: async-signal-safe, no allocation.
        unsafe {
            command.pre_exec(move || {
                set_limit(libc::RLIMIT_AS, limits.address_space_bytes)?;
                set_limit(libc::RLIMIT_CPU, limits.cpu_seconds)
            });
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("the analysis child did not start: {e}"))?;
        let header = serde_json::to_vec(&Request {
            tenant_name: tenant_name.map(str::to_string),
        })
        .unwrap_or_default();
        let mut stdin = child.stdin.take();
        let mut stdout = child.stdout.take();
        // The file is written while the answer is read: neither pipe can fill and stall both.
        let answer = std::thread::scope(|scope| {
            scope.spawn(move || {
                if let Some(stdin) = stdin.as_mut() {
                    let length = (header.len() as u32).to_le_bytes();
                    // A child that died early closes its end: its status says why.
                    let _ = stdin
                        .write_all(&length)
                        .and_then(|()| stdin.write_all(&header))
                        .and_then(|()| stdin.write_all(bytes));
                }
            });
            let mut out = Vec::new();
            if let Some(stdout) = stdout.as_mut() {
                let _ = stdout.read_to_end(&mut out);
            }
            out
        });
        let status = child
            .wait()
            .map_err(|e| format!("the analysis child was lost: {e}"))?;
        // The answer is the line after its marker (a test harness may print lines of its own).
        let answer = (answer.split(|b| *b == b'\n'))
            .find_map(|line| line.strip_prefix(ANSWER.as_bytes()))
            .unwrap_or_default();
        match serde_json::from_slice::<Answer>(answer) {
            Ok(Answer::Analysed(analysis)) if status.success() => Ok(Ok(*analysis)),
            Ok(Answer::Refused(refusal)) if status.success() => Ok(Err(refusal)),
            _ => match self.why_stopped(status) {
                Some(why) => Ok(Err(Refusal::Stopped(why))),
                // Not the file's doing (the child's own I/O, an answer that doesn't parse): an
                // error, so the queue tries the document again instead of refusing it.
                None => Err(format!(
                    "the analysis child ended without an answer ({status})"
                )),
            },
        }
    }

    /// Why the file stopped its child, in the tenant's words; `None` when the file didn't.
    fn why_stopped(&self, status: std::process::ExitStatus) -> Option<String> {
        let limits = self.limits;
        match (status.signal(), status.code()) {
            (Some(libc::SIGXCPU) | Some(libc::SIGKILL), _) => Some(format!(
                "it needed more than {} s of CPU time",
                limits.cpu_seconds
            )),
            // An allocation past RLIMIT_AS aborts the process (Rust's allocation failure).
            (Some(libc::SIGABRT) | Some(libc::SIGSEGV), _) => Some(format!(
                "it needed more than {} MB of memory",
                limits.address_space_bytes >> 20
            )),
            (_, Some(PANICKED)) => Some("the analysis failed on it".to_string()),
            _ => None,
        }
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: a plain system call on a stack value.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// In the child: reads the request and the file from `input`, analyses, writes the answer.
pub fn serve(mut input: impl Read, mut output: impl Write) -> std::io::Result<()> {
    let mut length = [0u8; 4];
    input.read_exact(&mut length)?;
    let mut header = vec![0u8; u32::from_le_bytes(length) as usize];
    input.read_exact(&mut header)?;
    let request: Request = serde_json::from_slice(&header)?;
    let mut bytes = Vec::new();
    // One byte past the largest upload: a larger one is refused by the analysis itself.
    (&mut input)
        .take(domain::documents::record::MAX_UPLOAD_BYTES + 1)
        .read_to_end(&mut bytes)?;
    let answer = match domain::documents::analyse(&bytes, request.tenant_name.as_deref()) {
        Ok(analysis) => Answer::Analysed(Box::new(analysis)),
        Err(refusal) => Answer::Refused(refusal),
    };
    write!(output, "\n{ANSWER}")?;
    serde_json::to_writer(&mut output, &answer)?;
    writeln!(output)?;
    output.flush()
}

/// Called first in the function's `main`: when this process is the analysis child, it serves
/// the request and exits; otherwise it returns at once.
pub fn serve_if_child() {
    if std::env::args().nth(1).as_deref() == Some(CHILD_ARG) {
        // A panic is the analysis's own failure, told apart from a limit's abort.
        std::panic::set_hook(Box::new(|_| std::process::exit(PANICKED)));
        let served = serve(std::io::stdin().lock(), std::io::stdout().lock());
        std::process::exit(if served.is_ok() { 0 } else { 2 });
    }
}
