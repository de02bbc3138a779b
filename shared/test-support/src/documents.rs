//! Document fixtures, made as the documents tests make theirs: HTML templates of
//! `shared/test-support/fixtures/documents` with figures that add up, printed to PDF by headless
//! Chromium. The tests and the bench (its pay stub analysis) share them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use chrono::NaiveDate;

/// Where the fixtures expect Chromium (`infra/install_chromium.sh`).
pub const CHROMIUM: &str = "/usr/bin/chromium";
static BROWSER: Mutex<()> = Mutex::new(());

/// A template of `shared/test-support/fixtures/documents`, its `{{key}}` placeholders filled.
pub fn template(name: &str, values: &[(&str, String)]) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/documents")
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

/// The HTML printed to PDF by headless Chromium (one at a time), written in `dir`.
pub fn chromium_pdf(dir: &Path, name: &str, html: &str) -> Vec<u8> {
    let _one_at_a_time = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let html_path = dir.join(format!("{name}.html"));
    let pdf_path = dir.join(format!("{name}.pdf"));
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
            dir.join("chromium-profile").display()
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

/// Cents as `1,234.56`, as the report writes them.
pub fn amount(cents: i64) -> String {
    domain::affordability::format_money(cents)
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
            pay_date: pay_date.parse().expect("a pay date as yyyy-mm-dd"),
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

    /// The ADP stub on two pages, as some payroll systems print it: the statement, then the net
    /// pay's distribution and the notes on a page of their own.
    pub fn two_page_adp_html(&self) -> String {
        let second = format!(
            r#"<div style="break-before: page">
<h1>Earnings Statement, page 2 of 2</h1>
<p>Employee Name: {employee}</p>
<p>Pay Date: {pay_date}</p>
<table>
<tr class="head"><td>Net Pay Distribution</td><td>Account</td><td>Amount</td></tr>
<tr><td>Direct Deposit, Checking</td><td>xxxxxx4321</td><td>${net}</td></tr>
</table>
<p>Time off: vacation 40.00 hours available, sick 24.00 hours available.</p>
<p>Keep this statement for your records. Questions about your pay go to your payroll office.</p>
</div>
</body>"#,
            employee = self.employee,
            pay_date = self.pay_date.format("%m/%d/%Y"),
            net = amount(self.net() + self.net_error),
        );
        self.adp_html().replace("</body>", &second)
    }
}

/// "Jane Q. Doe" as "DOE, JANE Q", the way some payroll systems print it.
fn last_first(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    let (last, rest) = words.split_last().unwrap();
    format!("{}, {}", last, rest.join(" ").replace('.', "")).to_uppercase()
}
