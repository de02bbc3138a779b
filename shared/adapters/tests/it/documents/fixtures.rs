//! Fixtures made by the tests: HTML templates printed by headless Chromium and re-rendered by
//! poppler's cairo, stub figures that add up, and the edited copies.

use std::path::PathBuf;
use std::process::Command;

use chrono::NaiveDate;
use test_support::documents::{self, CHROMIUM};
pub use test_support::documents::{Stub, amount, template};

/// The folder the fixtures are written to.
pub fn dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("documents");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// None when `SKIP_BROWSER_TESTS=1` and Chromium is missing; a clear failure otherwise.
pub fn browser_available() -> bool {
    if std::path::Path::new(CHROMIUM).exists() {
        return true;
    }
    if std::env::var("SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        return false;
    }
    panic!(
        "{CHROMIUM} is missing: the document fixtures are printed by headless Chromium \
         (run infra/install_chromium.sh), or set SKIP_BROWSER_TESTS=1 to skip these tests"
    );
}

/// The HTML printed to PDF by headless Chromium, in the fixtures' folder.
pub fn chromium_pdf(name: &str, html: &str) -> Vec<u8> {
    documents::chromium_pdf(&dir(), name, html)
}

/// A tool of poppler's, run over an input file written for it.
fn poppler(tool: &str, name: &str, input: &[u8], args: &[&str], out_ext: &str) -> Vec<u8> {
    let input_path = dir().join(format!("{name}.in.pdf"));
    std::fs::write(&input_path, input).unwrap();
    let out_path = dir().join(format!("{name}.{out_ext}"));
    // For images the tool takes a file name without its extension and adds it.
    let target = if out_ext == "pdf" {
        out_path.clone()
    } else {
        dir().join(name)
    };
    let status = Command::new(tool)
        .args(args)
        .arg(&input_path)
        .arg(&target)
        .status()
        .unwrap_or_else(|e| panic!("{tool} (poppler-utils) is needed for the fixtures: {e}"));
    assert!(status.success(), "{tool} failed");
    std::fs::read(&out_path).unwrap()
}

/// The PDF rendered again by poppler's cairo backend (a second producer).
pub fn cairo_pdf(name: &str, pdf: &[u8]) -> Vec<u8> {
    poppler("pdftocairo", name, pdf, &["-pdf"], "pdf")
}

/// The first page as a JPEG of 850 × 1100 pixels.
pub fn page_jpeg(name: &str, pdf: &[u8]) -> Vec<u8> {
    poppler(
        "pdftocairo",
        name,
        pdf,
        &[
            "-jpeg",
            "-singlefile",
            "-scale-to-x",
            "850",
            "-scale-to-y",
            "1100",
        ],
        "jpg",
    )
}

/// The first page as a PNG.
pub fn page_png(name: &str, pdf: &[u8]) -> Vec<u8> {
    poppler(
        "pdftocairo",
        name,
        pdf,
        &["-png", "-singlefile", "-scale-to", "600"],
        "png",
    )
}

pub fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

/// A bank statement for October 2026 with these deposits (date, description, cents).
pub fn statement_html(holder: &str, deposits: &[(&str, &str, i64)]) -> String {
    let rows: String = deposits
        .iter()
        .map(|(date, what, cents)| {
            format!(
                "<tr><td>{date}</td><td>{what}</td><td>{}</td></tr>\n",
                amount(*cents)
            )
        })
        .collect();
    let total: i64 = deposits.iter().map(|d| d.2).sum();
    template(
        "bank_statement.html",
        &[
            ("holder", holder.to_string()),
            ("period_start", "10/01/2026".into()),
            ("period_end", "10/31/2026".into()),
            ("deposit_rows", rows),
            ("deposit_total", amount(total)),
        ],
    )
}

/// A benefit award letter.
pub fn letter_html(recipient: &str, monthly: i64) -> String {
    template(
        "benefit_letter.html",
        &[
            ("recipient", recipient.to_string()),
            ("monthly", amount(monthly)),
            ("effective_words", "December 1, 2026".into()),
        ],
    )
}
