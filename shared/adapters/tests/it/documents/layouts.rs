//! Genuine pay stubs, bank statements and benefit letters in layouts never seen
//! (`test_support::layouts`), from three producers: written in-process each run (500 stubs, 200
//! statements, 200 letters), and a committed set of at least 30 of each kind printed by Chromium
//! and 30 distilled by Ghostscript's `pdfwrite` (`infra/make_layout_fixtures.sh` makes them).
//! Each field is read right or reported missing, never wrong; no genuine document is called
//! `edited` or `inconsistent`; at least 95% of the fields are read, per producer and kind.

use std::path::{Path, PathBuf};
use std::process::Command;

use domain::documents::identity::same_person;
use domain::documents::{Analysis, Fields, Verdict, analyse, fields::normalise};
use test_support::layouts::{Kind, Layout, LetterTruth, StatementTruth, StubTruth, Truth};

/// Seeds of the committed sets, per kind; file `<seed>.pdf` in each producer's folder.
fn committed(kind: Kind) -> std::ops::Range<u64> {
    match kind {
        Kind::Stub => 10_000..10_032,
        Kind::Statement => 20_000..20_032,
        Kind::Letter => 30_000..30_032,
    }
}

/// Documents written in-process each run, per kind.
fn in_process(kind: Kind) -> std::ops::Range<u64> {
    match kind {
        Kind::Stub => 0..500,
        Kind::Statement | Kind::Letter => 0..200,
    }
}

/// What a producer's documents of one kind gave: fields stated, read right, read wrong (with
/// what), verdicts.
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
        let wrong_before = self.wrong.len();
        match (truth, &a.fields) {
            (Truth::Stub(t), Fields::PayStub(read)) => self.stub(seed, t, read),
            (Truth::Statement(t), Fields::BankStatement(read)) => self.statement(seed, t, read),
            (Truth::Letter(t), Fields::BenefitLetter(read)) => self.letter(seed, t, read),
            (_, other) => {
                self.fields += 1;
                self.wrong
                    .push(format!("seed {seed}: read as {:?}", a.kind));
                eprintln!("seed {seed}: read {other:?}");
            }
        }
        if self.wrong.len() > wrong_before {
            eprintln!("seed {seed}: read {:?}", a.fields);
        }
    }

    fn field(&mut self, seed: u64, name: &str, read: Option<bool>) {
        self.fields += 1;
        match read {
            Some(true) => self.read += 1,
            Some(false) => self.wrong.push(format!("seed {seed}: {name}")),
            None => {}
        }
    }

    fn stub(&mut self, seed: u64, truth: &StubTruth, stub: &domain::documents::PayStub) {
        let same_text = |a: &str, b: &str| normalise(a) == normalise(b);
        let employer = (stub.employer.as_deref()).map(|e| same_text(e, &truth.employer));
        self.field(seed, "employer", employer);
        let employee = (stub.employee.as_deref()).map(|e| same_person(e, &truth.tenant));
        self.field(seed, "employee", employee);
        let start = stub.period_start.map(|d| d == truth.period_start);
        self.field(seed, "period start", start);
        self.field(
            seed,
            "period end",
            stub.period_end.map(|d| d == truth.period_end),
        );
        self.field(seed, "pay date", stub.pay_date.map(|d| d == truth.pay_date));
        match truth.frequency {
            Some(f) => self.field(seed, "frequency", stub.pay_frequency.map(|r| r == f)),
            // A frequency the stub does not state is read wrong.
            None => {
                if stub.pay_frequency.is_some() {
                    self.field(seed, "frequency", Some(false));
                }
            }
        }
        self.field(
            seed,
            "gross",
            stub.gross_cents.map(|c| c == truth.gross_cents),
        );
        self.field(seed, "net", stub.net_cents.map(|c| c == truth.net_cents));
        let ytd_gross = stub.ytd_gross_cents.map(|c| c == truth.ytd_gross_cents);
        self.field(seed, "ytd gross", ytd_gross);
        self.field(
            seed,
            "ytd net",
            stub.ytd_net_cents.map(|c| c == truth.ytd_net_cents),
        );
    }

    /// The holder, the period, and each deposit (its date and amount, and its payer when it
    /// is payroll); a deposit read that the statement does not state is read wrong.
    fn statement(
        &mut self,
        seed: u64,
        truth: &StatementTruth,
        read: &domain::documents::BankStatement,
    ) {
        let holder = (read.holder.as_deref()).map(|h| same_person(h, &truth.tenant));
        self.field(seed, "holder", holder);
        let start = read.period_start.map(|d| d == truth.period_start);
        self.field(seed, "period start", start);
        self.field(
            seed,
            "period end",
            read.period_end.map(|d| d == truth.period_end),
        );
        let mut unmatched: Vec<&domain::documents::Deposit> = read.deposits.iter().collect();
        for (i, stated) in truth.deposits.iter().enumerate() {
            let at =
                (unmatched.iter()).position(|r| r.date == stated.date && r.cents == stated.cents);
            let found = at.map(|at| unmatched.remove(at)).map(|r| {
                (stated.employer.as_deref()).is_none_or(|e| normalise(&r.payer) == normalise(e))
            });
            self.field(seed, &format!("deposit {i}"), found);
        }
        for extra in unmatched {
            self.fields += 1;
            self.wrong
                .push(format!("seed {seed}: deposit not stated {extra:?}"));
        }
    }

    fn letter(&mut self, seed: u64, truth: &LetterTruth, read: &domain::documents::BenefitLetter) {
        let payer = (read.payer.as_deref()).map(|p| normalise(p) == normalise(&truth.payer));
        self.field(seed, "payer", payer);
        let recipient = (read.recipient.as_deref()).map(|r| same_person(r, &truth.tenant));
        self.field(seed, "recipient", recipient);
        let monthly = read.monthly_cents.map(|c| c == truth.monthly_cents);
        self.field(seed, "monthly", monthly);
        let effective = read.effective_date.map(|d| d == truth.effective_date);
        self.field(seed, "effective date", effective);
    }

    fn figures(&self, producer: &str, kind: Kind) -> String {
        format!(
            "| {producer} | {} | {} | {} of {} ({:.1}%) | {} | {:?} |",
            kind.name(),
            self.documents,
            self.read,
            self.fields,
            100.0 * self.read as f64 / self.fields.max(1) as f64,
            self.wrong.len(),
            self.verdicts
        )
    }

    /// What is wrong with these figures, if anything: a field read wrong, a genuine document
    /// called edited or inconsistent, fewer than 95% of the fields read.
    fn faults(&self, producer: &str, kind: Kind) -> Vec<String> {
        let mut out = vec![];
        let whose = format!("{producer}, {}", kind.name());
        if !self.wrong.is_empty() {
            out.push(format!("{whose}: fields read wrong: {:#?}", self.wrong));
        }
        if !self.unfit_verdicts.is_empty() {
            out.push(format!(
                "{whose}: genuine documents called edited or inconsistent: {:#?}",
                self.unfit_verdicts
            ));
        }
        if self.read * 100 < self.fields * 95 {
            out.push(format!("{whose}: {}", self.figures(producer, kind)));
        }
        out
    }
}

/// The figures of each producer and kind, for the note and a person to read.
fn write_figures(name: &str, rows: &[String]) {
    let dir = crate::report_pdf::artifacts_dir();
    let mut table = vec![
        "| producer | kind | documents | fields read | read wrong | verdicts |".to_string(),
        "|---|---|---|---|---|---|".to_string(),
    ];
    table.extend(rows.iter().cloned());
    std::fs::write(dir.join(name), table.join("\n") + "\n").unwrap();
}

#[test]
fn nine_hundred_generated_documents_are_read_right_or_reported_missing() {
    let (mut rows, mut faults) = (vec![], vec![]);
    for kind in Kind::ALL {
        let mut tally = Tally::default();
        for seed in in_process(kind) {
            let layout = Layout::of(kind, seed);
            let a = analyse(&layout.pdf(), Some(layout.truth.tenant())).unwrap();
            tally.add(seed, &layout.truth, &a);
        }
        rows.push(tally.figures("pdf-writer (in-process)", kind));
        faults.extend(tally.faults("in-process", kind));
    }
    write_figures("layouts-in-process.md", &rows);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

fn committed_dir(producer: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-support/fixtures/documents/layouts")
        .join(producer)
}

#[test]
fn the_committed_chromium_and_ghostscript_documents_are_read_right_or_reported_missing() {
    let (mut rows, mut faults) = (vec![], vec![]);
    for producer in ["chromium", "ghostscript"] {
        for kind in Kind::ALL {
            let mut tally = Tally::default();
            for seed in committed(kind) {
                let path = committed_dir(producer).join(format!("{seed}.pdf"));
                let bytes = std::fs::read(&path).unwrap_or_else(|e| {
                    panic!("{}: {e}; run infra/make_layout_fixtures.sh", path.display())
                });
                let layout = Layout::of(kind, seed);
                let a = analyse(&bytes, Some(layout.truth.tenant())).unwrap();
                tally.add(seed, &layout.truth, &a);
            }
            rows.push(tally.figures(producer, kind));
            assert!(tally.documents >= 30);
            faults.extend(tally.faults(producer, kind));
        }
    }
    write_figures("layouts-committed.md", &rows);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The classic edit on generated documents: a white box over a stub's net pay or a
/// statement's first deposit, a new figure written on it, in the file rewritten whole or in an
/// appended revision. Each is `edited` by the `overlays` check, naming what the box hides.
#[test]
fn a_white_box_over_a_generated_figure_is_an_edit() {
    use domain::documents::samples::edits::{incremental_overlay, rewritten_overlay};
    use domain::documents::{CheckResult, names};
    for kind in [Kind::Stub, Kind::Statement] {
        let mut edits = 0;
        for seed in 0..30 {
            let layout = Layout::of(kind, seed);
            let pdf = layout.pdf();
            let figure = match &layout.truth {
                Truth::Stub(t) => t.net_cents,
                Truth::Statement(t) => t.deposits[0].cents,
                Truth::Letter(t) => t.monthly_cents,
            };
            let digits = test_support::layouts::money(figure).replace(',', "");
            // A figure on a later page is left out: the edits draw on page 1.
            let Some(drawn) = first_run_holding(&pdf, &digits) else {
                continue;
            };
            edits += 1;
            let raised = test_support::layouts::money(figure + 150_000);
            for edited in [
                rewritten_overlay(&pdf, &drawn, &raised).unwrap(),
                incremental_overlay(&pdf, &drawn, &raised).unwrap(),
            ] {
                let a = analyse(&edited, Some(layout.truth.tenant())).unwrap();
                let overlays = (a.checks.iter())
                    .find(|c| c.check == names::OVERLAYS)
                    .unwrap();
                assert_eq!(overlays.result, CheckResult::Fail, "seed {seed}");
                assert!(
                    overlays.evidence.contains(&format!(
                        "a white box hides '{drawn}' with '{raised}' drawn on it"
                    )),
                    "seed {seed}: {}",
                    overlays.evidence
                );
                assert_eq!(a.verdict, Verdict::Edited, "seed {seed}");
            }
        }
        assert!(edits >= 15, "{}: {edits} figures on page 1", kind.name());
    }
}

/// The text of the first run on page 1 whose figure, without separators, is `digits`.
fn first_run_holding(pdf: &[u8], digits: &str) -> Option<String> {
    use domain::documents::intake::{Opened, open};
    let Opened::Pdf(opened) = open(pdf, &Default::default()).ok()? else {
        return None;
    };
    let pages = domain::documents::text::read_pages(&opened.doc, &Default::default()).ok()?;
    let found = pages.first()?.runs().find(|r| {
        let bare: String = (r.text.chars())
            .filter(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        bare == digits
    });
    found.map(|r| r.text.trim().to_string())
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
    for seed in Kind::ALL
        .into_iter()
        .flat_map(|k| committed(k).map(move |s| (k, s)))
    {
        let (kind, seed) = seed;
        let layout = Layout::of(kind, seed);
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
    let ps = work.join(format!("{}.ps", committed(Kind::Stub).start));
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
    let seed = committed(Kind::Stub).start;
    let layout = Layout::of(Kind::Stub, seed);
    let owner = std::fs::read(committed_dir("").join("owner-password.pdf")).unwrap();
    let a = analyse(&owner, Some(layout.truth.tenant())).unwrap();
    let mut tally = Tally::default();
    tally.add(seed, &layout.truth, &a);
    assert_eq!(a.verdict, Verdict::Clean, "{:#?}", a.checks);
    let faults = tally.faults("owner password", Kind::Stub);
    assert!(faults.is_empty(), "{faults:?}");
    let user = std::fs::read(committed_dir("").join("user-password.pdf")).unwrap();
    let refused = analyse(&user, Some(layout.truth.tenant())).unwrap_err();
    assert_eq!(refused, domain::documents::Refusal::Encrypted);
}
