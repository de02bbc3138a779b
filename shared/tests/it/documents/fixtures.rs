//! Fixtures made by the tests: HTML templates printed by headless Chromium and re-rendered by
//! poppler's cairo, stub figures that add up, and the edited copies.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use chrono::NaiveDate;

const CHROMIUM: &str = "/usr/bin/chromium";
static BROWSER: Mutex<()> = Mutex::new(());

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

/// A template of `shared/tests/fixtures/documents`, its `{{key}}` placeholders filled.
pub fn template(name: &str, values: &[(&str, String)]) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/documents")
        .join(name);
    let mut html = std::fs::read_to_string(&path).unwrap();
    for (key, value) in values {
        html = html.replace(&format!("{{{{{key}}}}}"), value);
    }
    assert!(
        !html.contains("{{"),
        "{name}: a placeholder is left unfilled"
    );
    html
}

/// The HTML printed to PDF by headless Chromium.
pub fn chromium_pdf(name: &str, html: &str) -> Vec<u8> {
    let _one_at_a_time = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let html_path = dir().join(format!("{name}.html"));
    let pdf_path = dir().join(format!("{name}.pdf"));
    std::fs::write(&html_path, html).unwrap();
    let _ = std::fs::remove_file(&pdf_path);
    let out = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-pdf-header-footer",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir().join("chromium-profile").display()
        ))
        .arg(format!("--print-to-pdf={}", pdf_path.display()))
        .arg(&html_path)
        .output()
        .expect("run chromium");
    assert!(
        pdf_path.exists(),
        "chromium printed no PDF: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&pdf_path).unwrap()
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

/// Cents as `1,234.56`, as the report writes them.
pub fn amount(cents: i64) -> String {
    shared::domain::affordability::format_money(cents)
}

/// A pay stub's figures: the `n`th biweekly pay of the year, every figure adding up.
#[derive(Clone)]
pub struct Stub {
    pub employer: String,
    pub employee: String,
    pub pay_date: NaiveDate,
    pub gross: i64,
    pub n: i64,
    /// Added to the printed net pay (a total that no longer adds up).
    pub net_error: i64,
    /// Added to the printed year-to-date gross and net (a year-to-date that goes backwards).
    pub ytd_error: i64,
}

impl Stub {
    pub fn new(pay_date: &str, n: i64) -> Self {
        Stub {
            employer: "Acme Widgets Inc".into(),
            employee: "Jane Q. Doe".into(),
            pay_date: d(pay_date),
            gross: 200_000,
            n,
            net_error: 0,
            ytd_error: 0,
        }
    }

    /// Federal, Social Security, Medicare, state and 401(k), this period.
    pub fn deductions(&self) -> [i64; 5] {
        let g = self.gross;
        [
            g / 10,
            g * 62 / 1000,
            g * 145 / 10000,
            g * 4 / 100,
            g * 5 / 100,
        ]
    }

    pub fn net(&self) -> i64 {
        self.gross - self.deductions().iter().sum::<i64>()
    }

    pub fn period(&self) -> (NaiveDate, NaiveDate) {
        let end = self.pay_date - chrono::Duration::days(5);
        (end - chrono::Duration::days(13), end)
    }

    fn values(&self) -> Vec<(&'static str, String)> {
        let [fed, ss, med, state, k401] = self.deductions();
        let n = self.n;
        let (start, end) = self.period();
        let us = |d: NaiveDate| d.format("%m/%d/%Y").to_string();
        let words = |d: NaiveDate| d.format("%b %-d, %Y").to_string();
        vec![
            ("employer", self.employer.clone()),
            ("employee", self.employee.clone()),
            ("period_start", us(start)),
            ("period_end", us(end)),
            ("pay_date", us(self.pay_date)),
            ("period_start_words", words(start)),
            ("period_end_words", words(end)),
            ("pay_date_words", words(self.pay_date)),
            ("gross", amount(self.gross)),
            ("ytd_gross", amount(self.gross * n + self.ytd_error)),
            ("fed", amount(fed)),
            ("ss", amount(ss)),
            ("med", amount(med)),
            ("state", amount(state)),
            ("k401", amount(k401)),
            ("ytd_fed", amount(fed * n)),
            ("ytd_ss", amount(ss * n)),
            ("ytd_med", amount(med * n)),
            ("ytd_state", amount(state * n)),
            ("ytd_k401", amount(k401 * n)),
            ("taxes", amount(fed + ss + med + state)),
            ("ytd_taxes", amount((fed + ss + med + state) * n)),
            ("net", amount(self.net() + self.net_error)),
            ("ytd_net", amount(self.net() * n + self.ytd_error)),
            ("taxable", amount(self.gross - k401)),
            ("deductions", amount(self.gross - self.net())),
            ("ytd_deductions", amount((self.gross - self.net()) * n)),
            ("employee_last_first", last_first(&self.employee)),
        ]
    }

    pub fn adp_html(&self) -> String {
        template("adp_stub.html", &self.values())
    }

    pub fn gusto_html(&self) -> String {
        template("gusto_stub.html", &self.values())
    }

    pub fn paychex_html(&self) -> String {
        template("paychex_stub.html", &self.values())
    }

    pub fn workday_html(&self) -> String {
        template("workday_stub.html", &self.values())
    }
}

/// "Jane Q. Doe" as "DOE, JANE Q", the way some payroll systems print it.
fn last_first(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    let (last, rest) = words.split_last().unwrap();
    format!("{}, {}", last, rest.join(" ").replace('.', "")).to_uppercase()
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
