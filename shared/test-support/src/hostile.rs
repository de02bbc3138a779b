//! Hostile PDFs, written byte by byte (no PDF library would write them): each aims at one limit
//! of the analysis (docs/documents.md, "Limits"). The tests run each in the analysis child; the
//! bench times each.

/// One hostile file and what it aims at.
pub struct Hostile {
    pub name: &'static str,
    pub aims_at: &'static str,
    pub bytes: Vec<u8>,
}

/// The page's text of every file here: a pay stub's line, so only the limits make a difference.
const CONTENT: &[u8] = b"BT /F1 12 Tf 72 700 Td (Net Pay 1,467.00) Tj ET";

/// A PDF of these objects (numbered from 1), with a cross-reference table and a trailer.
fn pdf(objects: &[Vec<u8>], trailer_extra: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R{trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    [
        format!("<< {dict} /Length {} >>\nstream\n", data.len()).as_bytes(),
        data,
        b"\nendstream",
    ]
    .concat()
}

/// A one-page text document's objects (1 catalog, 2 pages, 3 page, 4 content, 5 font), the
/// page tree's kids and the catalog's extra entries given.
fn page_objects(kids: &str, catalog_extra: &str) -> Vec<Vec<u8>> {
    vec![
        format!("<< /Type /Catalog /Pages 2 0 R{catalog_extra} >>").into_bytes(),
        format!("<< /Type /Pages /Kids [{kids}] /Count 1 >>").into_bytes(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_vec(),
        stream("", CONTENT),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ]
}

/// Deflate (zlib) of `n` zero bytes, written by hand: one literal zero, then matches of 258
/// bytes at distance 1 in a fixed-Huffman block; a few kilobytes inflate to a megabyte.
pub fn zero_bomb(n: usize) -> Vec<u8> {
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

/// A one-page text PDF with nothing hostile: the page every hostile file here starts from.
pub fn plain() -> Vec<u8> {
    pdf(&page_objects("3 0 R", ""), "")
}

/// Two `%%EOF` and then 2.4 MB of ` obj` on one line: the scan for an update's object headers
/// walked back to the line's start for each, quadratic in the file's size.
pub fn quadratic_scan_bait() -> Vec<u8> {
    let mut bytes = plain();
    bytes.extend_from_slice(b"%");
    bytes.extend_from_slice(&b" obj".repeat(600_000));
    bytes.extend_from_slice(b"\n%%EOF\n");
    bytes
}

/// 300 object streams, each inflating to 1 MB (under the per-stream limit): 300 MB together.
pub fn many_object_streams() -> Vec<u8> {
    let mut objects = page_objects("3 0 R", "");
    let bomb = zero_bomb(1024 * 1024);
    for _ in 0..300 {
        objects.push(stream(
            "/Type /ObjStm /N 1 /First 2 /Filter /FlateDecode",
            &bomb,
        ));
    }
    pdf(&objects, "")
}

/// One array of 1.5 million zeros: 3 MB of file, hundreds of MB once parsed into objects.
pub fn huge_flat_array() -> Vec<u8> {
    let mut objects = page_objects("3 0 R", " /Extra 6 0 R");
    objects.push([b"[".as_slice(), &b"0 ".repeat(1_500_000), b"]"].concat());
    pdf(&objects, "")
}

/// Arrays nested 5,000 deep in the catalog.
pub fn deep_nesting() -> Vec<u8> {
    let deep = format!(" /Deep {}{}", "[".repeat(5_000), "]".repeat(5_000));
    pdf(&page_objects("3 0 R", &deep), "")
}

/// A page tree whose root is its own kid.
pub fn cyclic_page_tree() -> Vec<u8> {
    pdf(&page_objects("2 0 R 3 0 R", ""), "")
}

/// A trailer whose `/Prev` is its own cross-reference table.
pub fn cyclic_prev() -> Vec<u8> {
    let bytes = plain();
    let text = String::from_utf8_lossy(&bytes);
    let xref = text.rfind("xref\n").unwrap_or_default();
    let at = text.rfind(">>\nstartxref").unwrap_or_default();
    [
        &bytes[..at],
        format!("/Prev {xref} ").as_bytes(),
        &bytes[at..],
    ]
    .concat()
}

/// 3,000 incremental updates, each a cross-reference section whose `/Prev` is the one before.
pub fn long_prev_chain() -> Vec<u8> {
    let mut bytes = plain();
    let mut prev = String::from_utf8_lossy(&bytes)
        .rfind("xref\n")
        .unwrap_or_default();
    for _ in 0..3_000 {
        let xref = bytes.len();
        bytes.extend_from_slice(
            format!("xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 6 /Root 1 0 R /Prev {prev} >>\nstartxref\n{xref}\n%%EOF\n")
                .as_bytes(),
        );
        prev = xref;
    }
    bytes
}

/// One page content stream that inflates to 150 MB.
pub fn decompression_bomb() -> Vec<u8> {
    let mut objects = page_objects("3 0 R", "");
    objects[3] = stream("/Filter /FlateDecode", &zero_bomb(150 * 1024 * 1024));
    pdf(&objects, "")
}

/// Within every budget, but half a million text runs on one page: what it costs is the
/// analysis's own, and a child with a small address space meets its limit on it.
pub fn many_text_runs() -> Vec<u8> {
    let mut objects = page_objects("3 0 R", "");
    objects[3] = stream("", &b"BT /F1 9 Tf (x) Tj ET\n".repeat(3_900_000 / 22));
    pdf(&objects, "")
}

/// The corpus, in the order the tests and the bench report it.
pub fn corpus() -> Vec<Hostile> {
    let h = |name, aims_at, bytes| Hostile {
        name,
        aims_at,
        bytes,
    };
    vec![
        h(
            "quadratic-scan-bait",
            "a linear scan",
            quadratic_scan_bait(),
        ),
        h(
            "many-object-streams",
            "the whole file's inflate budget",
            many_object_streams(),
        ),
        h("huge-flat-array", "the value budget", huge_flat_array()),
        h("deep-nesting", "the nesting limit", deep_nesting()),
        h(
            "cyclic-page-tree",
            "the page tree's walk",
            cyclic_page_tree(),
        ),
        h("cyclic-prev", "the /Prev chain's walk", cyclic_prev()),
        h(
            "long-prev-chain",
            "the /Prev chain's walk",
            long_prev_chain(),
        ),
        h(
            "decompression-bomb",
            "the per-stream inflate limit",
            decompression_bomb(),
        ),
        h(
            "many-text-runs",
            "the child's address space",
            many_text_runs(),
        ),
    ]
}
