//! Hostile files: each is refused or undetermined with its reason, analysed as the function
//! analyses it, in a child process (this test binary again) under the child's address-space and
//! CPU-time limits; a genuine upload right after each is analysed as usual.

use adapters::analysis_child::{Child, ChildLimits, LIMITS};
use chrono::NaiveDate;
use domain::documents::samples::{Sample, sample_pdf};
use domain::documents::{Analysis, CheckResult, Refusal, Verdict, analyse, names};
use lopdf::{Dictionary, Object, Stream, dictionary};
use test_support::hostile;

use super::edits::{page_doc, text_pdf_with};

const CHILD_MARKER: &str = "DOCUMENT_ANALYSIS_CHILD";

/// The analysis child as the function starts it, but this test binary running `child_analysis`.
fn child(limits: ChildLimits) -> Child {
    Child {
        program: std::env::current_exe().unwrap(),
        args: [
            "--exact",
            "documents::hostile::child_analysis",
            "--nocapture",
            "--test-threads",
            "1",
        ]
        .map(String::from)
        .to_vec(),
        env: vec![(CHILD_MARKER.to_string(), "1".to_string())],
        limits,
    }
}

/// In the child: serve the analysis on stdin and stdout. In a normal run it does nothing.
#[test]
fn child_analysis() {
    if std::env::var(CHILD_MARKER).is_ok() {
        adapters::analysis_child::serve(std::io::stdin().lock(), std::io::stdout().lock()).unwrap();
    }
}

/// A genuine pay stub, as the sandbox's sample gives it.
fn genuine() -> Vec<u8> {
    let today = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
    sample_pdf(Sample::Genuine, uuid::Uuid::from_u128(7), "Jane Doe", today).unwrap()
}

/// The outcome of an analysis in words.
fn words(result: Result<Analysis, Refusal>) -> String {
    match result {
        Err(refusal) => format!("refused: {refusal}"),
        Ok(a) => {
            let active = a
                .check(names::ACTIVE_CONTENT)
                .map(|c| (c.result, c.evidence.clone()));
            format!(
                "{:?}: {} / {active:?}",
                a.verdict,
                a.reason.unwrap_or_default()
            )
        }
    }
}

/// Analyses `bytes` in the child, then a genuine stub in another: that one is analysed as usual.
fn analyse_in_child(child: &Child, name: &str, bytes: &[u8]) -> String {
    let outcome = child
        .analyse(bytes, Some("Jane Doe"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let after = child.analyse(&genuine(), Some("Jane Doe")).unwrap();
    let after = after.unwrap_or_else(|r| panic!("the stub after {name} was refused: {r}"));
    assert_eq!(after.verdict, Verdict::Clean, "the stub after {name}");
    words(outcome)
}

fn thousand_pages() -> Vec<u8> {
    let mut doc = lopdf::Document::with_version("1.5");
    let content = doc.add_object(Stream::new(Dictionary::new(), b"BT ET".to_vec()));
    page_doc(doc, content, Dictionary::new(), 1000)
}

fn nested(levels: usize) -> Vec<u8> {
    text_pdf_with(|_| {
        let mut nested = Object::Array(vec![]);
        for _ in 0..levels {
            nested = Object::Array(vec![nested]);
        }
        dictionary! { "Deep" => nested }
    })
}

fn with_javascript() -> Vec<u8> {
    text_pdf_with(
        |_| dictionary! { "OpenAction" => dictionary! { "S" => "JavaScript", "JS" => Object::string_literal("app.alert(1)") } },
    )
}

fn with_embedded_file() -> Vec<u8> {
    text_pdf_with(|doc| {
        let file = doc.add_object(Stream::new(
            dictionary! { "Type" => "EmbeddedFile" },
            b"hello".to_vec(),
        ));
        let spec = dictionary! { "Type" => "Filespec", "F" => Object::string_literal("a.txt"), "EF" => dictionary! { "F" => file } };
        dictionary! { "Names" => dictionary! { "EmbeddedFiles" => dictionary! { "Names" => vec![Object::string_literal("a.txt"), Object::Dictionary(spec)] } } }
    })
}

#[test]
fn hostile_files_are_refused_or_undetermined_under_the_child_limits() {
    let mut big = b"%PDF-1.7\n".to_vec();
    big.resize(10 * 1024 * 1024 + 1, b' ');
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "pages.pdf",
            thousand_pages(),
            "refused: the PDF has 1000 pages; at most 50 are read",
        ),
        (
            "nested.pdf",
            nested(60),
            "refused: the PDF nests objects 33 levels deep; the limit is 32",
        ),
        (
            "javascript.pdf",
            with_javascript(),
            "Undetermined: the document carries JavaScript or embedded files / Some((Fail, \"1 JavaScript action(s)\"))",
        ),
        (
            "embedded.pdf",
            with_embedded_file(),
            "Undetermined: the document carries JavaScript or embedded files / Some((Fail, \"1 embedded file(s)\"))",
        ),
        (
            "zip.pdf",
            b"PK\x03\x04\x14\x00\x00\x00".to_vec(),
            "refused: the file is not a PDF, a JPEG or a PNG",
        ),
        (
            "page.html.pdf",
            b"<html><body>Net Pay 1,467.00</body></html>".to_vec(),
            "refused: the file is not a PDF, a JPEG or a PNG",
        ),
        (
            "large.pdf",
            big,
            "refused: the file is 10485761 bytes; the limit is 10485760 bytes (10 MB)",
        ),
        (
            "corrupt.pdf",
            b"%PDF-1.7\n1 0 obj << /Type /Catalog".to_vec(),
            "refused: the PDF can't be read",
        ),
        (
            "encrypted.pdf",
            b"%PDF-1.7\ntrailer << /Encrypt 5 0 R >>\n%%EOF".to_vec(),
            "refused: the PDF needs a password to open",
        ),
    ];
    for (name, bytes, expected) in cases {
        let got = analyse_in_child(&child(LIMITS), name, &bytes);
        assert!(
            got.starts_with(expected),
            "{name}: expected '{expected}', got '{got}'"
        );
    }
    // The active content is flagged in its check.
    let a = analyse(&with_javascript(), None).unwrap();
    assert_eq!(a.verdict, Verdict::Undetermined);
    assert_eq!(
        a.check(names::ACTIVE_CONTENT).unwrap().result,
        CheckResult::Fail
    );
}

/// Each file of the corpus (`test_support::hostile`), under the function's own child limits.
#[test]
fn the_hostile_corpus_is_refused_or_undetermined_with_a_reason() {
    const NOT_A_STUB: &str =
        "Undetermined: the text is not a pay stub, a bank statement or a benefit letter";
    let expected: [(&str, &[&str]); 9] = [
        // Linear now: read as any file (its one line of text is no stub).
        ("quadratic-scan-bait", &[NOT_A_STUB]),
        (
            "many-object-streams",
            &[
                "refused: the compressed streams of the PDF inflate past the limit of 33554432 bytes together",
            ],
        ),
        (
            "huge-flat-array",
            &["refused: the PDF holds more than 250000 values in its objects"],
        ),
        (
            "deep-nesting",
            &["refused: the PDF nests objects 33 levels deep; the limit is 32"],
        ),
        (
            "cyclic-page-tree",
            &["refused: the PDF can't be read: it has no pages"],
        ),
        ("cyclic-prev", &[NOT_A_STUB]),
        ("long-prev-chain", &[NOT_A_STUB]),
        (
            "decompression-bomb",
            &["refused: a compressed stream of the PDF inflates past the limit of 4194304 bytes"],
        ),
        // Within every budget: an unoptimised build meets the CPU-time limit, a release one not.
        (
            "many-text-runs",
            &[
                NOT_A_STUB,
                "refused: the analysis of the file was stopped: it needed more than 10 s of CPU time",
            ],
        ),
    ];
    let corpus = hostile::corpus();
    assert_eq!(corpus.len(), expected.len());
    let mut wrong = vec![];
    for (file, (name, outcomes)) in corpus.iter().zip(expected) {
        assert_eq!(file.name, name);
        let got = analyse_in_child(&child(LIMITS), file.name, &file.bytes);
        if !outcomes.iter().any(|o| got.starts_with(o)) {
            wrong.push(format!("{name}: expected one of {outcomes:?}, got '{got}'"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A file past the child's address space or CPU time: the child is killed, and the file is
/// refused with the limit as its reason; the next file is analysed as usual.
#[test]
fn a_child_stopped_at_its_limit_refuses_the_file_with_the_reason() {
    let runs = hostile::many_text_runs();
    let small = ChildLimits {
        address_space_bytes: 96 * 1024 * 1024,
        ..LIMITS
    };
    assert_eq!(
        analyse_in_child(&child(small), "many-text-runs", &runs),
        "refused: the analysis of the file was stopped: it needed more than 96 MB of memory"
    );
    let brief = ChildLimits {
        cpu_seconds: 1,
        ..LIMITS
    };
    assert_eq!(
        analyse_in_child(&child(brief), "many-text-runs", &runs),
        "refused: the analysis of the file was stopped: it needed more than 1 s of CPU time"
    );
}

/// A child that ends without an answer the file caused (its own I/O failed, or what it wrote
/// doesn't parse) is an error the queue retries, never a refusal of the tenant's file.
#[test]
fn a_child_that_fails_for_its_own_reasons_is_retried_not_refused() {
    for script in [
        "cat >/dev/null; exit 2",
        "cat >/dev/null; echo 'not an answer'",
    ] {
        let failing = Child {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            env: vec![],
            limits: LIMITS,
        };
        let outcome = failing.analyse(&genuine(), Some("Jane Doe"));
        assert!(outcome.is_err(), "{script}: {outcome:?}");
    }
}
