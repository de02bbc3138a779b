//! The WebDriver side of the browser test: Debian's `chromium` and `chromedriver` on loopback,
//! spoken to in plain W3C WebDriver JSON over HTTP with reqwest.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

pub(super) const CHROMIUM: &str = "/usr/bin/chromium";
pub(super) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The W3C name of an element reference in WebDriver replies.
pub(super) const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// Bound on the whole browser run, so a stuck browser fails the test instead of hanging `make test`.
pub(super) const WHOLE_RUN: Duration = Duration::from_secs(180);
/// Phone viewport (CSS pixels) of the phone screenshots: an iPhone 12-15 sized screen.
pub(super) const PHONE: (u32, u32) = (390, 844);

/// Flags that keep Chromium off the network (this machine allows loopback only) and stateless.
pub(super) const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--disable-dev-shm-usage",
    "--no-default-browser-check",
    "--no-proxy-server",
    "--window-size=1280,900",
];

/// `Some(reason)` when the browser test should not run; panics when the browser is missing.
pub(super) fn browser_or_skip() -> Option<&'static str> {
    if std::env::var("SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        return Some("SKIP_BROWSER_TESTS=1");
    }
    let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER]
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "the browser test needs Debian's chromium and chromium-driver, and {} {} missing: \
         run `infra/install_chromium.sh` (as root; `make test` does), \
         or set SKIP_BROWSER_TESTS=1 to skip this test",
        missing.join(" and "),
        if missing.len() == 1 { "is" } else { "are" }
    );
    None
}

// ---------------------------------------------------------------------------------------------
// chromedriver process and WebDriver session

/// The chromedriver process and the browser profile; killed and removed when dropped.
pub(super) struct Driver {
    child: Child,
    port: u16,
    profile: PathBuf,
    log: PathBuf,
}

impl Driver {
    pub(super) async fn start(artifacts: &Path) -> Driver {
        let port = devstack::moto::free_port();
        let profile =
            std::env::temp_dir().join(format!("tivs-chromium-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&profile).expect("create the browser profile directory");
        let log = artifacts.join("browser-chromedriver.log");
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {CHROMEDRIVER}: {e}"));
        let mut driver = Driver {
            child,
            port,
            profile,
            log,
        };
        // It prints "ChromeDriver was started successfully on port N." once it listens: wait for
        // that line (20 s at most), read on a thread that then drains the rest of its stdout.
        let stdout = driver.child.stdout.take().expect("piped stdout");
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            let mut ready_tx = Some(ready_tx);
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.contains("started successfully")
                    && let Some(tx) = ready_tx.take()
                {
                    let _ = tx.send(());
                }
            }
        });
        match tokio::time::timeout(Duration::from_secs(20), ready_rx).await {
            Ok(Ok(())) => driver,
            Ok(Err(_)) => panic!(
                "chromedriver exited at start ({:?}); log: {}",
                driver.child.try_wait(),
                driver.log.display()
            ),
            Err(_) => panic!(
                "chromedriver did not start on port {port} within 20 s; log: {}",
                driver.log.display()
            ),
        }
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A browser that outlived its driver: end it by pid (its command line names our profile).
        let profile = self.profile.to_string_lossy().into_owned();
        if let Ok(procs) = std::fs::read_dir("/proc") {
            for p in procs.flatten() {
                let name = p.file_name();
                let Some(pid) = name
                    .to_str()
                    .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
                else {
                    continue;
                };
                let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
                if String::from_utf8_lossy(&cmdline).contains(&profile) {
                    let _ = Command::new("kill")
                        .args(["-9", pid])
                        .stderr(Stdio::null())
                        .status();
                }
            }
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// A WebDriver session in headless Chromium. Dropping it ends the session (and so the browser),
/// then chromedriver; `quit` does the same politely on the normal path.
pub(super) struct Browser {
    http: reqwest::Client,
    session: Mutex<Option<String>>,
    driver: Driver,
}

/// A WebDriver error reply (or a transport error, status 0).
#[derive(Debug)]
pub(super) struct WdError {
    status: u16,
    error: String,
    message: String,
}

impl std::fmt::Display for WdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.error, self.message)
    }
}

pub(super) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

impl Browser {
    pub(super) async fn start(artifacts: &Path) -> Browser {
        let driver = Driver::start(artifacts).await;
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", driver.profile.display()));
        let caps = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "timeouts": {"implicit": 0, "pageLoad": 30000, "script": 10000},
                    "goog:chromeOptions": {"binary": CHROMIUM, "args": args}
                }
            }
        });
        let browser = Browser {
            http: client(),
            session: Mutex::new(None),
            driver,
        };
        let reply = browser
            .send(reqwest::Method::POST, "/session".into(), Some(caps))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "chromedriver could not start Chromium: {e}; log: {}",
                    browser.driver.log.display()
                )
            });
        let id = reply["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        *browser.session.lock().unwrap() = Some(id);
        browser
    }

    pub(super) fn session_path(&self, rest: &str) -> String {
        let id = self.session.lock().unwrap().clone().expect("a session");
        format!("/session/{id}{rest}")
    }

    pub(super) async fn send(
        &self,
        method: reqwest::Method,
        path: String,
        body: Option<Value>,
    ) -> Result<Value, WdError> {
        let mut req = self.http.request(method, self.driver.url(&path));
        if let Some(body) = body {
            req = req
                .header("content-type", "application/json; charset=utf-8")
                .body(body.to_string());
        }
        let resp = req.send().await.map_err(|e| WdError {
            status: 0,
            error: "transport".into(),
            message: format!("{path}: {e}"),
        })?;
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status == 200 {
            Ok(value["value"].clone())
        } else {
            Err(WdError {
                status,
                error: value["value"]["error"].as_str().unwrap_or("unknown").into(),
                message: value["value"]["message"]
                    .as_str()
                    .unwrap_or(&text)
                    .chars()
                    .take(500)
                    .collect(),
            })
        }
    }

    /// A session command that must succeed.
    pub(super) async fn cmd(
        &self,
        method: reqwest::Method,
        rest: &str,
        body: Option<Value>,
    ) -> Value {
        let path = self.session_path(rest);
        self.send(method, path.clone(), body)
            .await
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"))
    }

    pub(super) async fn try_cmd(
        &self,
        method: reqwest::Method,
        rest: &str,
        body: Option<Value>,
    ) -> Result<Value, WdError> {
        self.send(method, self.session_path(rest), body).await
    }

    pub(super) async fn goto(&self, url: &str) {
        self.cmd(reqwest::Method::POST, "/url", Some(json!({"url": url})))
            .await;
    }

    pub(super) async fn try_find(&self, css: &str) -> Result<String, WdError> {
        let v = self
            .try_cmd(
                reqwest::Method::POST,
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await?;
        Ok(v[ELEMENT]
            .as_str()
            .expect("an element reference")
            .to_string())
    }

    pub(super) async fn find(&self, css: &str) -> String {
        self.try_find(css)
            .await
            .unwrap_or_else(|e| panic!("no element {css}: {e}"))
    }

    pub(super) async fn click(&self, css: &str) {
        let el = self.find(css).await;
        self.cmd(
            reqwest::Method::POST,
            &format!("/element/{el}/click"),
            Some(json!({})),
        )
        .await;
    }

    /// Clicks `css`, which submits a form, marking the page first: `wait_for_heading` then waits
    /// for the page that answers, not the one left, whose heading may read the same.
    pub(super) async fn submit(&self, css: &str) {
        self.script("window.__tivSubmitted = true; return true")
            .await;
        self.click(css).await;
    }

    pub(super) async fn text(&self, css: &str) -> String {
        let el = self.find(css).await;
        self.cmd(reqwest::Method::GET, &format!("/element/{el}/text"), None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub(super) async fn selected(&self, css: &str) -> bool {
        let el = self.find(css).await;
        self.cmd(
            reqwest::Method::GET,
            &format!("/element/{el}/selected"),
            None,
        )
        .await
        .as_bool()
        .expect("selected is a boolean")
    }

    pub(super) async fn title(&self) -> String {
        self.cmd(reqwest::Method::GET, "/title", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub(super) async fn current_url(&self) -> String {
        self.cmd(reqwest::Method::GET, "/url", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub(super) async fn script(&self, script: &str) -> Value {
        self.cmd(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// A Chrome DevTools command through chromedriver's vendor endpoint.
    pub(super) async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.cmd(
            reqwest::Method::POST,
            "/goog/cdp/execute",
            Some(json!({"cmd": cmd, "params": params})),
        )
        .await
    }

    /// Waits until the page's h1 reads `heading`, for at most `within` (no more than the session's
    /// 10 s script timeout): one asynchronous script that answers at once when it does, or else
    /// when a MutationObserver sees it change, or at the deadline with the last h1 it saw.
    pub(super) async fn wait_for_heading(&self, heading: &str, within: Duration) {
        let within_ms = within.as_millis().min(9_500) as u64;
        let script = r#"
            const [want, ms, done] = arguments;
            const h1 = () => { const e = document.querySelector("h1"); return e ? e.innerText.trim() : ""; };
            // The page a submit left is not the answer, even when its h1 reads the same.
            if (window.__tivSubmitted) { setTimeout(() => done({ok: false, last: "(the page before the submit)"}), ms); return; }
            if (h1() === want) { done({ok: true, last: want}); return; }
            const observer = new MutationObserver(() => {
                if (h1() === want) { observer.disconnect(); clearTimeout(timer); done({ok: true, last: want}); }
            });
            const timer = setTimeout(() => { observer.disconnect(); done({ok: false, last: h1()}); }, ms);
            observer.observe(document.documentElement, {childList: true, subtree: true, characterData: true});
        "#;
        // A navigation in progress can end the script with it ("no such window" or a stale
        // context): then it is run again on the new document, within the same deadline.
        let deadline = Instant::now() + within;
        let mut last = Value::Null;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = left.as_millis().min(within_ms as u128) as u64;
            if let Ok(answer) = self
                .try_cmd(
                    reqwest::Method::POST,
                    "/execute/async",
                    Some(json!({"script": script, "args": [heading, ms]})),
                )
                .await
            {
                if answer["ok"] == true {
                    return;
                }
                last = answer["last"].clone();
            }
            assert!(
                Instant::now() < deadline,
                "the page did not show {heading:?} within {within:?}; last h1: {last}"
            );
        }
    }

    /// Saves a PNG of the viewport (or, with `full_page`, of the whole page) and returns its path.
    pub(super) async fn screenshot(&self, dir: &Path, name: &str, full_page: bool) -> PathBuf {
        let b64 = if full_page {
            self.cdp(
                "Page.captureScreenshot",
                json!({"format": "png", "captureBeyondViewport": true}),
            )
            .await["data"]
                .as_str()
                .expect("screenshot data")
                .to_string()
        } else {
            self.cmd(reqwest::Method::GET, "/screenshot", None)
                .await
                .as_str()
                .expect("screenshot data")
                .to_string()
        };
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .expect("screenshot is base64");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "screenshot is a PNG");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, &png).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        eprintln!("browser test: screenshot {}", path.display());
        path
    }

    /// Viewport size of a phone, with the phone's own layout rules (the page's viewport meta
    /// applies, as on a real phone), or back to the desktop window with `None`.
    pub(super) async fn phone(&self, on: Option<(u32, u32)>) {
        match on {
            Some((width, height)) => {
                self.cdp(
                    "Emulation.setDeviceMetricsOverride",
                    json!({"width": width, "height": height, "deviceScaleFactor": 2, "mobile": true}),
                )
                .await;
                self.cdp(
                    "Emulation.setTouchEmulationEnabled",
                    json!({"enabled": true}),
                )
                .await;
            }
            None => {
                self.cdp("Emulation.clearDeviceMetricsOverride", json!({}))
                    .await;
                self.cdp(
                    "Emulation.setTouchEmulationEnabled",
                    json!({"enabled": false}),
                )
                .await;
            }
        }
    }

    /// Ends the session, which closes the browser.
    pub(super) async fn quit(&self) {
        let id = self.session.lock().unwrap().take();
        if let Some(id) = id
            && let Err(e) = self
                .send(reqwest::Method::DELETE, format!("/session/{id}"), None)
                .await
        {
            eprintln!("browser test: ending the WebDriver session failed: {e}");
        }
    }
}

impl Drop for Browser {
    /// On a panic or a timeout: end the session synchronously (no runtime to await in here), with
    /// a bounded raw HTTP request, before `Driver` kills chromedriver.
    fn drop(&mut self) {
        let Some(id) = self.session.lock().unwrap().take() else {
            return;
        };
        let addr = SocketAddr::from(([127, 0, 0, 1], self.driver.port));
        let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else {
            return;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(15)));
        let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
        let _ = write!(
            s,
            "DELETE /session/{id} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.driver.port
        );
        // The reply's headers mean the browser is closed; the body does not matter.
        let mut reply = Vec::new();
        let mut buf = [0u8; 1024];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            reply.extend_from_slice(&buf[..n]);
            if reply.windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
    }
}
