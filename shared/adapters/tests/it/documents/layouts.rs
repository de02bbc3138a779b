//! Genuine pay stubs in layouts never seen (`test_support::layouts`), from three producers: 500
//! written in-process each run, and a committed set of at least 30 printed by Chromium and 30
//! distilled by Ghostscript's `pdfwrite` (`infra/make_layout_fixtures.sh` makes them). Each field
//! is read right or reported missing, never wrong; no genuine stub is called `edited` or
//! `inconsistent`; at least 95% of the fields are read, per producer.

use std::path::{Path, PathBuf};
use std::process::Command;

use domain::documents::identity::same_person;
use domain::documents::{Analysis, Fields, Verdict, analyse, fields::normalise};
use test_support::layouts::{Layout, Truth};

/// Seeds of the committed sets; the in-process run takes 0 to 499.
const COMMITTED: std::ops::Range<u64> = 10_000..10_032;
const IN_PROCESS: std::ops::Range<u64> = 0..500;

/// What a producer's documents gave: fields stated, read right, read wrong (with what), verdicts.
#[derive(Default)]
struct Tally {
    documents: usize,
    fields: usize,
    read: usize,
    wrong: Vec<String>,
    verdicts: std::collections::BTreeMap<String, usize>,
    unfit_verdicts: Vec<String>,
}

impl Tally {
    fn add(&mut self, seed: u64, truth: &Truth, a: &Analysis) {
        self.documents += 1;
        *self.verdicts.entry(format!("{:?}", a.verdict)).or_default() += 1;
        if matches!(a.verdict, Verdict::Edited | Verdict::Inconsistent) {
            let failed: Vec<String> = (a.checks.iter())
                .filter(|c| !matches!(c.result, domain::documents::CheckResult::Pass))
                .filter(|c| {
                    matches!(
                        c.result,
                        domain::documents::CheckResult::Fail
                            | domain::documents::CheckResult::Partial
                    )
                })
                .map(|c| format!("{}: {}", c.check, c.evidence))
                .collect();
            self.unfit_verdicts
                .push(format!("seed {seed}: {:?} {failed:?}", a.verdict));
        }
        let Fields::PayStub(stub) = &a.fields else {
            self.fields += 10;
            self.wrong
                .push(format!("seed {seed}: read as {:?}", a.kind));
            return;
        };
        let same_text = |a: &str, b: &str| normalise(a) == normalise(b);
        let mut field = |name: &str, read: Option<bool>| {
            self.fields += 1;
            match read {
                Some(true) => self.read += 1,
                Some(false) => self.wrong.push(format!("seed {seed}: {name}")),
                None => {}
            }
        };
        field(
            "employer",
            stub.employer
                .as_deref()
                .map(|e| same_text(e, &truth.employer)),
        );
        field(
            "employee",
            stub.employee
                .as_deref()
                .map(|e| same_person(e, &truth.tenant)),
        );
        field(
            "period start",
            stub.period_start.map(|d| d == truth.period_start),
        );
        field("period end", stub.period_end.map(|d| d == truth.period_end));
        field("pay date", stub.pay_date.map(|d| d == truth.pay_date));
        match truth.frequency {
            Some(f) => field("frequency", stub.pay_frequency.map(|r| r == f)),
            // A frequency the stub does not state is read wrong.
            None => {
                if stub.pay_frequency.is_some() {
                    field("frequency", Some(false));
                }
            }
        }
        field("gross", stub.gross_cents.map(|c| c == truth.gross_cents));
        field("net", stub.net_cents.map(|c| c == truth.net_cents));
        field(
            "ytd gross",
            stub.ytd_gross_cents.map(|c| c == truth.ytd_gross_cents),
        );
        field(
            "ytd net",
            stub.ytd_net_cents.map(|c| c == truth.ytd_net_cents),
        );
        if self
            .wrong
            .last()
            .is_some_and(|w| w.starts_with(&format!("seed {seed}:")))
        {
            eprintln!("seed {seed}: read {stub:?}");
        }
    }

    fn figures(&self, producer: &str) -> String {
        format!(
            "| {producer} | {} | {} of {} ({:.1}%) | {} | {:?} |",
            self.documents,
            self.read,
            self.fields,
            100.0 * self.read as f64 / self.fields.max(1) as f64,
            self.wrong.len(),
            self.verdicts
        )
    }

    fn assert_honest(&self, producer: &str) {
        assert!(
            self.wrong.is_empty(),
            "{producer}: fields read wrong: {:#?}",
            self.wrong
        );
        assert!(
            self.unfit_verdicts.is_empty(),
            "{producer}: genuine stubs called edited or inconsistent: {:#?}",
            self.unfit_verdicts
        );
        assert!(
            self.read * 100 >= self.fields * 95,
            "{producer}: {}",
            self.figures(producer)
        );
    }
}

/// The figures of each producer, for the note and a person to read.
fn write_figures(name: &str, rows: &[String]) {
    let dir = crate::report_pdf::artifacts_dir();
    let mut table = vec![
        "| producer | documents | fields read | read wrong | verdicts |".to_string(),
        "|---|---|---|---|---|".to_string(),
    ];
    table.extend(rows.iter().cloned());
    std::fs::write(dir.join(name), table.join("\n") + "\n").unwrap();
}

#[test]
fn five_hundred_generated_stubs_are_read_right_or_reported_missing() {
    let mut tally = Tally::default();
    for seed in IN_PROCESS {
        let layout = Layout::new(seed);
        let a = analyse(&layout.pdf(), Some(&layout.truth.tenant)).unwrap();
        tally.add(seed, &layout.truth, &a);
    }
    write_figures(
        "layouts-in-process.md",
        &[tally.figures("pdf-writer (in-process)")],
    );
    tally.assert_honest("in-process");
}

fn committed_dir(producer: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-support/fixtures/documents/layouts")
        .join(producer)
}

#[test]
fn the_committed_chromium_and_ghostscript_stubs_are_read_right_or_reported_missing() {
    let mut rows = vec![];
    for producer in ["chromium", "ghostscript"] {
        let mut tally = Tally::default();
        for seed in COMMITTED {
            let path = committed_dir(producer).join(format!("{seed}.pdf"));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| {
                panic!("{}: {e}; run infra/make_layout_fixtures.sh", path.display())
            });
            let layout = Layout::new(seed);
            let a = analyse(&bytes, Some(&layout.truth.tenant)).unwrap();
            tally.add(seed, &layout.truth, &a);
        }
        rows.push(tally.figures(producer));
        assert!(tally.documents >= 30);
        tally.assert_honest(producer);
    }
    write_figures("layouts-committed.md", &rows);
}

/// Writes the committed sets again: `infra/make_layout_fixtures.sh` runs it (Chromium and
/// Ghostscript needed). Ignored by `make test`, which reads what is committed.
#[test]
#[ignore]
fn write_the_committed_layouts() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("layouts");
    std::fs::create_dir_all(&work).unwrap();
    for producer in ["chromium", "ghostscript"] {
        std::fs::create_dir_all(committed_dir(producer)).unwrap();
    }
    for seed in COMMITTED {
        let layout = Layout::new(seed);
        let printed =
            test_support::documents::chromium_pdf(&work, &seed.to_string(), &layout.html());
        std::fs::write(
            committed_dir("chromium").join(format!("{seed}.pdf")),
            printed,
        )
        .unwrap();
        let ps = work.join(format!("{seed}.ps"));
        std::fs::write(&ps, layout.postscript()).unwrap();
        let out = committed_dir("ghostscript").join(format!("{seed}.pdf"));
        let status = Command::new("gs")
            .args(["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite"])
            .arg(format!("-sOutputFile={}", out.display()))
            .arg(&ps)
            .status()
            .expect("Ghostscript (gs) runs");
        assert!(status.success(), "gs failed on seed {seed}");
    }
    // The first layout again, with an owner password only, and with a password to open it.
    let ps = work.join(format!("{}.ps", COMMITTED.start));
    for (name, passwords) in [
        ("owner-password.pdf", vec!["-sOwnerPassword=owner"]),
        (
            "user-password.pdf",
            vec!["-sOwnerPassword=owner", "-sUserPassword=user"],
        ),
    ] {
        let out = committed_dir("").join(name);
        let status = Command::new("gs")
            .args(["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite"])
            .args(["-dEncryptionR=3", "-dKeyLength=128", "-dPermissions=-3904"])
            .args(passwords)
            .arg(format!("-sOutputFile={}", out.display()))
            .arg(&ps)
            .status()
            .expect("Ghostscript (gs) runs");
        assert!(status.success(), "gs failed on {name}");
    }
}

/// A PDF with an owner password only opens with the empty user password, as in any viewer: it
/// is analysed like any other. One that needs a password to open is refused.
#[test]
fn an_owner_password_alone_is_analysed_and_a_password_to_open_is_refused() {
    let layout = Layout::new(COMMITTED.start);
    let owner = std::fs::read(committed_dir("").join("owner-password.pdf")).unwrap();
    let a = analyse(&owner, Some(&layout.truth.tenant)).unwrap();
    let mut tally = Tally::default();
    tally.add(COMMITTED.start, &layout.truth, &a);
    assert_eq!(a.verdict, Verdict::Clean, "{:#?}", a.checks);
    tally.assert_honest("owner password");
    let user = std::fs::read(committed_dir("").join("user-password.pdf")).unwrap();
    let refused = analyse(&user, Some(&layout.truth.tenant)).unwrap_err();
    assert_eq!(refused, domain::documents::Refusal::Encrypted);
}
