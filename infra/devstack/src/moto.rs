//! Starts moto's server on a free loopback port and builds SDK configuration pointed at it.

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

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
/// used, which `Moto::start` meets by trying another).
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
    /// Starts moto on a free port.
    pub fn start() -> Result<Moto, String> {
        // A free port can be taken by another process (another test binary, a second stack)
        // before moto binds it: try a few fresh ones.
        let mut last = String::new();
        for _ in 0..5 {
            match Self::start_on(free_port()) {
                Err(e) if e.ends_with(PORT_IN_USE) => last = e,
                other => return other,
            }
        }
        Err(last)
    }

    /// Starts moto on `port`.
    pub fn start_on(port: u16) -> Result<Moto, String> {
        let python = moto_python();
        if !python.exists() {
            return Err(format!(
                "{} not found: run `make tools` (or set MOTO_PYTHON)",
                python.display()
            ));
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Err(format!("port {port} {PORT_IN_USE}"));
        }
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("\"$0\" \"$1\" -H 127.0.0.1 -p \"$2\" >/dev/null 2>&1 & pid=$!; read _; kill $pid")
            .arg(&python)
            .arg(moto_script())
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start moto: {e}"))?;
        let keepalive = child.stdin.take().expect("piped stdin");
        let endpoint = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        // Bounded wait until moto answers on its port.
        loop {
            if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                use std::io::Write;
                let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                let _ = stream.write_all(b"GET /moto-api/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
                let mut buf = [0u8; 12];
                if stream.read(&mut buf).is_ok_and(|n| n > 0) {
                    break;
                }
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                return Err("moto did not start within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(Moto {
            endpoint,
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
