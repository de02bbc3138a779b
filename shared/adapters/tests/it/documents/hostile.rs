//! Hostile files: each is refused or undetermined with its reason, and the analysis runs in a
//! child process (this test binary again) under a 256 MB address-space limit.

use std::os::unix::process::CommandExt;
use std::process::Command;

use domain::documents::{CheckResult, Verdict, analyse, names};
use lopdf::{Dictionary, Object, Stream, dictionary};

use super::edits::{page_doc, text_pdf_with};

const CHILD_FILE: &str = "DOCUMENT_ANALYSIS_FILE";
const MEMORY_LIMIT: u64 = 256 * 1024 * 1024;

/// Deflate (zlib) of `n` zero bytes, written by hand: one literal zero, then matches of 258
/// bytes at distance 1 in a fixed-Huffman block; a few hundred kilobytes inflate to `n`.
fn zero_bomb(n: usize) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let (mut acc, mut bits) = (0u64, 0u32);
    let mut put = |out: &mut Vec<u8>, value: u64, len: u32, reversed: bool| {
        let v = if reversed {
            (0..len).fold(0, |r, i| r | (((value >> i) & 1) << (len - 1 - i)))
        } else {
            value
        };
        acc |= v << bits;
        bits += len;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    };
    put(&mut out, 1, 1, false); // final block
    put(&mut out, 1, 2, false); // fixed Huffman
    put(&mut out, 0x30, 8, true); // literal 0
    for _ in 0..(n - 1) / 258 {
        put(&mut out, 0b1100_0101, 8, true); // length 258
        put(&mut out, 0, 5, true); // distance 1
    }
    put(&mut out, 0, 7, true); // end of block
    if bits > 0 {
        out.push(acc as u8);
    }
    out
}

fn bomb_pdf() -> Vec<u8> {
    let mut doc = lopdf::Document::with_version("1.5");
    let content = doc.add_object(
        Stream::new(
            dictionary! { "Filter" => "FlateDecode" },
            zero_bomb(150 * 1024 * 1024),
        )
        .with_compression(false),
    );
    page_doc(doc, content, Dictionary::new(), 1)
}

/// 3.9 MB of page content: half a million tiny text runs, within the limits.
fn many_runs() -> Vec<u8> {
    let mut doc = lopdf::Document::with_version("1.5");
    let font = doc.add_object(
        dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" },
    );
    let ops = "BT /F1 9 Tf (x) Tj ET\n".repeat(3_900_000 / 22);
    let content = doc.add_object(Stream::new(Dictionary::new(), ops.into_bytes()));
    page_doc(
        doc,
        content,
        dictionary! { "Font" => dictionary! { "F1" => font } },
        1,
    )
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

/// Nesting too deep for any writer's recursion, written into the file's bytes (the
/// cross-reference offsets go stale, which lenient reading repairs).
fn nested_by_hand(levels: usize) -> Vec<u8> {
    let bytes = text_pdf_with(|_| dictionary! { "Deep" => Object::Null });
    let at = bytes.windows(10).position(|w| w == b"/Deep null").unwrap();
    let deep = format!("/Deep {}{}", "[".repeat(levels), "]".repeat(levels));
    [&bytes[..at], deep.as_bytes(), &bytes[at + 10..]].concat()
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

/// The outcome of an analysis in words, as the child prints it.
fn outcome(bytes: &[u8]) -> String {
    match analyse(bytes, Some("Jane Doe")) {
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

/// In the child: analyse the file named by the environment and print the outcome. In a normal
/// run (no such variable) it does nothing.
#[test]
fn child_analysis() {
    if let Ok(path) = std::env::var(CHILD_FILE) {
        let bytes = std::fs::read(path).unwrap();
        println!("OUTCOME {}", outcome(&bytes));
    }
}

/// Runs `child_analysis` in a child process limited to 256 MB of address space.
fn analyse_in_child(name: &str, bytes: &[u8]) -> String {
    let path = super::fixtures::dir().join(format!("hostile_{name}"));
    std::fs::write(&path, bytes).unwrap();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "documents::hostile::child_analysis",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD_FILE, &path);
    // SAFETY: setrlimit is async-signal-safe; the closure allocates nothing.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name}: the child failed under the memory limit: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find_map(|l| l.split_once("OUTCOME ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("{name}: no outcome in {stdout}"))
        .to_string()
}

#[test]
fn hostile_files_are_refused_or_undetermined_within_a_memory_limit() {
    let mut big = b"%PDF-1.7\n".to_vec();
    big.resize(10 * 1024 * 1024 + 1, b' ');
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "bomb.pdf",
            bomb_pdf(),
            "refused: a compressed stream of the PDF inflates past the limit of 4194304 bytes",
        ),
        (
            "runs.pdf",
            many_runs(),
            "Undetermined: the text is not a pay stub, a bank statement or a benefit letter",
        ),
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
        // Past the parser's own bound of 100 levels the object does not parse at all.
        (
            "nested_deeper.pdf",
            nested_by_hand(5_000),
            "refused: the PDF can't be read",
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
        let got = analyse_in_child(name, &bytes);
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
