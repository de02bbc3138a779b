//! Starts moto's server on a free loopback port and builds SDK configuration pointed at it.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use aws_config::{BehaviorVersion, SdkConfig};
use aws_sdk_dynamodb::config::{Credentials, Region};

pub const REGION: &str = "us-east-1";

/// The Python that `make tools` installed moto into (`<repo>/.tools/venv/bin/python`), unless
/// `MOTO_PYTHON` names another.
pub fn moto_python() -> PathBuf {
    if let Ok(path) = std::env::var("MOTO_PYTHON") {
        return PathBuf::from(path);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python")
}

/// Our launcher of moto's server (see its docstring for why it is not plain `moto_server`).
fn moto_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../moto_server.py")
}

/// The end of `start_on`'s refusal of a port another process holds.
const PORT_IN_USE: &str = "is already in use";

/// A free TCP port on 127.0.0.1 (bound and released: another process may take it before it is
/// used; `Moto::start` does not need one, moto binds port 0 itself).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A running moto server. It stops when this is dropped, and also when the owning process exits
/// (a shell holds it and kills it when our end of its stdin closes), so no server outlives a test.
pub struct Moto {
    pub endpoint: String,
    child: Child,
    keepalive: Option<ChildStdin>,
}

impl Moto {
    /// Starts moto on a free port (moto binds port 0 and names the port it got).
    pub fn start() -> Result<Moto, String> {
        Self::start_on(0)
    }

    /// Starts moto on `port` (0: a free one), and returns once it listens: moto prints
    /// `moto ready on port N` then, which this waits for (60 s at most), no probe loop.
    pub fn start_on(port: u16) -> Result<Moto, String> {
        let python = moto_python();
        if !python.exists() {
            return Err(format!(
                "{} not found: run `make tools` (or set MOTO_PYTHON)",
                python.display()
            ));
        }
        if port != 0 && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Err(format!("port {port} {PORT_IN_USE}"));
        }
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("\"$0\" \"$1\" -H 127.0.0.1 -p \"$2\" 2>/dev/null & pid=$!; read _; kill $pid")
            .arg(&python)
            .arg(moto_script())
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start moto: {e}"))?;
        let keepalive = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        // The ready line, read on a thread so that the wait has a deadline; end of file (moto
        // exited: a taken port, a missing package) comes back at once.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let read = reader.read_line(&mut line);
            let _ = tx.send(read.map(|_| line));
            // Keep moto's stdout open (and drained) for as long as it runs.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let ready = rx.recv_timeout(Duration::from_secs(60));
        let bound = match &ready {
            Ok(Ok(line)) => line
                .trim()
                .strip_prefix("moto ready on port ")
                .and_then(|p| p.parse::<u16>().ok()),
            _ => None,
        };
        let Some(bound) = bound else {
            drop(keepalive);
            let _ = child.kill();
            let _ = child.wait();
            return Err(match ready {
                Err(_) => "moto did not start within 60 s".into(),
                Ok(Ok(line)) if line.is_empty() && port != 0 => {
                    format!("moto exited before listening (port {port} {PORT_IN_USE}?)")
                }
                Ok(Ok(line)) if line.is_empty() => "moto exited before listening".into(),
                Ok(Ok(line)) => format!("moto printed {line:?}, not its ready line"),
                Ok(Err(e)) => format!("reading moto's output: {e}"),
            });
        };
        Ok(Moto {
            endpoint: format!("http://127.0.0.1:{bound}"),
            child,
            keepalive: Some(keepalive),
        })
    }

    pub async fn sdk_config(&self) -> SdkConfig {
        sdk_config(&self.endpoint).await
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        // Closing stdin makes the holder shell kill moto; then reap the shell.
        drop(self.keepalive.take());
        let _ = self.child.wait();
    }
}

/// SDK configuration for a loopback endpoint, with dummy credentials: nothing is probed.
pub async fn sdk_config(endpoint: &str) -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(REGION))
        .credentials_provider(Credentials::new(
            "testing", "testing", None, None, "devstack",
        ))
        .load()
        .await
}
