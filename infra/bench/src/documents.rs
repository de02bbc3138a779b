//! The analysis of a one- and a two-page pay stub and of each hostile file of the tests
//! (`test_support::hostile`), by `domain::documents::analyse`, beside a Python peer doing the
//! same extraction (pdfplumber for the text runs with positions and fonts, pikepdf for the
//! file's structure), in the same run: p50, p95 and peak RSS of each, and their ratio.
//!
//! The fixture is made as the documents tests make theirs: the ADP template with figures that
//! add up, on two pages, printed by headless Chromium (`test_support::documents`).
//! Each side runs in a process of its own that does nothing else: the bench binary again with
//! `--analyse-pdf` (one unmeasured analysis, then the measured ones), and the peer's script. The
//! peak RSS is each process's `VmHWM` once it is done.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use test_support::documents::{CHROMIUM, Stub, chromium_pdf};

use crate::process::{Spread, ms};
use crate::report::{mb, yes};
use crate::{Error, MIB, err};

/// The targets of issue 23: an analysis within 100 ms at the 95th percentile, in 64 MB.
pub(crate) const TARGET_P95_MS: f64 = 100.0;
pub(crate) const TARGET_RSS_MB: f64 = 64.0;

/// The tenant the fixture's stub names (the identity check compares it).
const TENANT: &str = "Jane Q. Doe";

/// One side's figures.
#[derive(Debug, Clone)]
pub(crate) struct Timed {
    pub(crate) spread: Spread,
    pub(crate) peak_rss: u64,
    /// What it found, in a few words (the kind and verdict; the peer's fields).
    pub(crate) found: String,
}

/// Both sides on one file; a side that failed says why.
pub(crate) struct FileRow {
    pub(crate) name: String,
    pub(crate) bytes: usize,
    pub(crate) runs: usize,
    pub(crate) rust: Result<Timed, String>,
    pub(crate) peer: Result<Timed, String>,
}

/// Both sides, or why they were not measured.
pub(crate) enum Outcome {
    Measured {
        pages: usize,
        bytes: usize,
        rust: Timed,
        peer: Timed,
        /// The one-page stub, the two-page one, then each hostile file.
        files: Vec<FileRow>,
    },
    Skipped(String),
}

/// The most runs of a hostile file per side (each costs up to the limits).
const HOSTILE_RUNS: usize = 5;

/// The longest one side may take on one file; past it the side is reported as stopped.
const SIDE_TIMEOUT_S: u64 = 120;

/// The two-page fixture, printed into `dir`.
pub(crate) fn fixture(dir: &Path) -> Result<Vec<u8>, Error> {
    if !Path::new(CHROMIUM).exists() {
        return Err(err(format!(
            "{CHROMIUM} is missing (infra/install_chromium.sh prints the document fixtures)"
        )));
    }
    std::fs::create_dir_all(dir)?;
    let html = Stub::new("2026-10-16", 21).two_page_adp_html();
    Ok(chromium_pdf(dir, "bench_two_page_stub", &html))
}

/// `--analyse-pdf`: analyses `pdf` once unmeasured, then `runs` times, and prints the times and
/// this process's peak RSS as JSON.
pub(crate) fn analyse_in_this_process(pdf: &Path, runs: usize) -> Result<(), Error> {
    let bytes = std::fs::read(pdf)?;
    let first = domain::documents::analyse(&bytes, Some(TENANT));
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let analysis = domain::documents::analyse(&bytes, Some(TENANT));
        times.push(ms(start.elapsed()));
        std::hint::black_box(analysis).ok();
    }
    let (pages, found) = match &first {
        Ok(a) => (a.pages, format!("{:?}, {:?}", a.kind, a.verdict)),
        Err(refusal) => (0, format!("refused: {refusal}")),
    };
    let out = serde_json::json!({
        "times_ms": times,
        "peak_rss_bytes": crate::process::peak_rss(std::process::id()).unwrap_or(0),
        "pages": pages,
        "found": found,
    });
    println!("{out}");
    Ok(())
}

/// Runs one side's process (stopped after `SIDE_TIMEOUT_S` by coreutils' `timeout`) and reads
/// its JSON.
fn run_side(program: &Path, args: &[String]) -> Result<Value, Error> {
    let out = Command::new("timeout")
        .arg(SIDE_TIMEOUT_S.to_string())
        .arg(program)
        .args(args)
        .output()?;
    if out.status.code() == Some(124) {
        return Err(err(format!("stopped after {SIDE_TIMEOUT_S} s")));
    }
    if !out.status.success() {
        return Err(err(format!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    Ok(serde_json::from_str(last)?)
}

fn timed(v: &Value) -> Timed {
    let times = (v["times_ms"].as_array().into_iter().flatten())
        .filter_map(Value::as_f64)
        .collect();
    Timed {
        spread: Spread::new(times),
        peak_rss: v["peak_rss_bytes"].as_u64().unwrap_or(0),
        found: v["found"].as_str().unwrap_or_default().to_string(),
    }
}

/// Both sides on one file written to `path`, `runs` analyses each.
fn measure_file(
    path: &Path,
    python: &Path,
    peer: &Path,
    runs: usize,
) -> (Result<Value, String>, Result<Value, String>) {
    let pdf_arg = path.to_string_lossy().to_string();
    let rust = std::env::current_exe().map_err(Error::from).and_then(|me| {
        run_side(
            &me,
            &[
                "--analyse-pdf".into(),
                pdf_arg.clone(),
                "--documents-runs".into(),
                runs.to_string(),
            ],
        )
    });
    let peer = run_side(
        python,
        &[
            peer.to_string_lossy().to_string(),
            pdf_arg,
            runs.to_string(),
        ],
    );
    (
        rust.map_err(|e| e.to_string()),
        peer.map_err(|e| e.to_string()),
    )
}

/// Measures both sides on the stubs (`runs` analyses each) and on each hostile file.
pub(crate) fn measure(work_dir: &Path, python: &Path, peer: &Path, runs: usize) -> Outcome {
    let dir = work_dir.join("documents");
    let pdf = match fixture(&dir) {
        Ok(bytes) => bytes,
        Err(e) => return Outcome::Skipped(e.to_string()),
    };
    let one_page = chromium_pdf(
        &dir,
        "bench_one_page_stub",
        &Stub::new("2026-10-16", 21).adp_html(),
    );
    let mut files = vec![
        ("one-page stub".to_string(), one_page, runs),
        ("two-page stub".to_string(), pdf.clone(), runs),
    ];
    files.extend(
        test_support::hostile::corpus()
            .into_iter()
            .map(|h| (h.name.to_string(), h.bytes, runs.min(HOSTILE_RUNS))),
    );
    let mut rows = Vec::new();
    for (name, bytes, runs) in files {
        eprintln!("bench: document analysis of {name}");
        let path = dir.join(format!("bench_{name}.pdf"));
        if let Err(e) = std::fs::write(&path, &bytes) {
            return Outcome::Skipped(e.to_string());
        }
        let (rust, peer) = measure_file(&path, python, peer, runs);
        rows.push(FileRow {
            name,
            bytes: bytes.len(),
            runs,
            rust: rust.map(|v| timed(&v)),
            peer: peer.map(|v| timed(&v)),
        });
    }
    let two_page = &rows[1];
    match (&two_page.rust, &two_page.peer) {
        (Ok(rust), Ok(peer)) => Outcome::Measured {
            pages: 2,
            bytes: pdf.len(),
            rust: rust.clone(),
            peer: peer.clone(),
            files: rows,
        },
        (Err(e), _) | (_, Err(e)) => Outcome::Skipped(format!("the two-page stub: {e}")),
    }
}

/// The report's section.
pub(crate) fn section(outcome: &Outcome, runs: usize, peer_versions: &str) -> String {
    let mut out = format!("{}\n", crate::DOCUMENTS_HEADING);
    let Outcome::Measured {
        pages,
        bytes,
        rust,
        peer,
        files,
    } = outcome
    else {
        if let Outcome::Skipped(why) = outcome {
            out.push_str(&format!("Not measured in this run: {why}.\n"));
        }
        return out;
    };
    out.push_str(&format!(
        "A {pages}-page pay stub ({:.1} KiB, printed by headless Chromium as the documents tests \
         print theirs), analysed {runs} times after one unmeasured analysis, in a process that \
         does nothing else. The peer is {peer_versions}, extracting the same: each page's text \
         runs with their positions and fonts, the figures, and the file's structure.\n\n",
        *bytes as f64 / 1024.0
    ));
    out.push_str(
        "| | p50 (ms) | p95 (ms) | max (ms) | peak RSS (MB) | found |\n|---|---|---|---|---|---|\n",
    );
    for (name, t) in [
        ("`domain::documents::analyse`", rust),
        ("Python peer", peer),
    ] {
        out.push_str(&format!(
            "| {name} | {:.1} | {:.1} | {:.1} | {} | {} |\n",
            t.spread.median(),
            t.spread.pct(0.95),
            t.spread.max(),
            mb(t.peak_rss),
            t.found
        ));
    }
    let ratio = |peer: f64, rust: f64| if rust > 0.0 { peer / rust } else { f64::NAN };
    out.push_str(&format!(
        "| ratio (peer / Rust) | {:.1}× | {:.1}× | | {:.1}× | |\n\n",
        ratio(peer.spread.median(), rust.spread.median()),
        ratio(peer.spread.pct(0.95), rust.spread.pct(0.95)),
        ratio(peer.peak_rss as f64, rust.peak_rss as f64),
    ));
    let rss_mb = rust.peak_rss as f64 / MIB;
    out.push_str(&format!(
        "| target | this run | met |\n|---|---|---|\n| p95 of an analysis ≤ {TARGET_P95_MS} ms | {:.1} ms | {} |\n| peak RSS ≤ {TARGET_RSS_MB} MB | {rss_mb:.1} MB | {} |\n",
        rust.spread.pct(0.95),
        yes(rust.spread.pct(0.95) <= TARGET_P95_MS),
        yes(rss_mb <= TARGET_RSS_MB),
    ));
    out.push_str(&files_table(files));
    out
}

/// Each file: the stubs, then the hostile files of the tests (`test_support::hostile`), each
/// side in a process of its own.
fn files_table(files: &[FileRow]) -> String {
    let mut out = String::from(
        "\nEach file, each side in a process of its own (the hostile files of the tests, \
         `test_support::hostile`, a few runs each):\n\n\
         | file | KiB | runs | Rust p50 (ms) | Rust p95 (ms) | Rust peak RSS (MB) | Rust found | peer p50 (ms) | peer p95 (ms) | peer peak RSS (MB) | peer found |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let side = |t: &Result<Timed, String>| match t {
        Ok(t) => format!(
            "{:.1} | {:.1} | {} | {}",
            t.spread.median(),
            t.spread.pct(0.95),
            mb(t.peak_rss),
            t.found.replace('|', "/")
        ),
        Err(e) => format!("| | | {}", e.replace(['|', '\n'], " ")),
    };
    for f in files {
        out.push_str(&format!(
            "| {} | {:.0} | {} | {} | {} |\n",
            f.name,
            f.bytes as f64 / 1024.0,
            f.runs,
            side(&f.rust),
            side(&f.peer)
        ));
    }
    out
}

/// The peer's package versions, as its venv has them.
pub(crate) fn peer_versions(python: &Path) -> String {
    let script = "import pdfplumber, pikepdf; print(f'pdfplumber {pdfplumber.__version__} and pikepdf {pikepdf.__version__}')";
    Command::new(python)
        .args(["-c", script])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "pdfplumber and pikepdf".into())
}
