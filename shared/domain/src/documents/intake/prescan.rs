//! One linear pass over a PDF's bytes before the parser builds anything: it counts the objects
//! and the values they hold, measures their nesting, and inflates the compressed streams the
//! analysis will read, stopping at the first budget broken. The parser then only ever meets a
//! file whose parsed size is bounded by these counts.

use std::io::Read;

use super::{Limits, Refusal, find};

/// What the pass found (for the tests and the bench).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Indirect objects: `obj` headers, and the objects object streams declare.
    pub objects: usize,
    /// Values (numbers, names, strings, references' parts) in objects, object streams included.
    pub values: usize,
    /// The deepest nesting of arrays and dictionaries, counted up to the limit and one past.
    pub depth: usize,
    /// The bytes the compressed streams inflated to, together.
    pub inflated: usize,
}

/// Scans the file; `Err` names the first budget it breaks.
pub fn prescan(bytes: &[u8], limits: &Limits) -> Result<Counts, Refusal> {
    let mut counts = Counts::default();
    scan(bytes, limits, &mut counts, true)?;
    Ok(counts)
}

/// The objects an object stream declares (`/N`), from its dictionary's text.
fn declared_objects(dict: &[u8]) -> usize {
    let mut from = 0;
    while let Some(at) = find(&dict[from..], b"/N") {
        let rest = &dict[from + at + 2..];
        from += at + 2;
        // `/N` itself, not `/Names` or `/Next`.
        if rest.first().is_some_and(|b| b.is_ascii_alphabetic()) {
            continue;
        }
        let digits: Vec<u8> = (rest.iter())
            .skip_while(|b| b.is_ascii_whitespace())
            .take_while(|b| b.is_ascii_digit())
            .take(9)
            .copied()
            .collect();
        return std::str::from_utf8(&digits)
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(0);
    }
    0
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Where the next line starts after `at` (past one end-of-line), or the end.
fn after_eol(bytes: &[u8], at: usize) -> usize {
    match bytes[at..].iter().position(|b| *b == b'\n' || *b == b'\r') {
        Some(p) => {
            let eol = at + p;
            if bytes[eol] == b'\r' && bytes.get(eol + 1) == Some(&b'\n') {
                eol + 2
            } else {
                eol + 1
            }
        }
        None => bytes.len(),
    }
}

/// The end of a literal string opening at `at` (balanced parentheses, backslash escapes).
fn string_end(bytes: &[u8], at: usize) -> usize {
    let (mut i, mut open) = (at + 1, 1usize);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' => open += 1,
            b')' => {
                open -= 1;
                if open == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The tokens of `bytes`, counted into `counts`; at the top level (the file itself) streams are
/// skipped, and the compressed ones inflated within the budgets.
fn scan(bytes: &[u8], limits: &Limits, counts: &mut Counts, top: bool) -> Result<(), Refusal> {
    let mut depth = 0usize;
    // Where the current top-level dictionary began: a stream's dictionary precedes it.
    let mut dict_start = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'%' => i = after_eol(bytes, i),
            b'(' => {
                counts.values += 1;
                i = string_end(bytes, i);
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                if depth == 0 {
                    dict_start = i;
                }
                depth += 1;
                note_depth(depth, limits, counts)?;
                i += 2;
            }
            b'<' => {
                counts.values += 1;
                i = bytes[i..]
                    .iter()
                    .position(|c| *c == b'>')
                    .map_or(bytes.len(), |p| i + p + 1);
            }
            b'[' => {
                depth += 1;
                note_depth(depth, limits, counts)?;
                i += 1;
            }
            b'>' if bytes.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 2;
            }
            b']' | b'>' | b')' | b'{' | b'}' => {
                if b == b']' {
                    depth = depth.saturating_sub(1);
                }
                i += 1;
            }
            _ if b.is_ascii_whitespace() || b == 0 => i += 1,
            _ => {
                // A name, number or keyword: up to the next whitespace or delimiter.
                let start = i;
                i += 1;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !is_delimiter(bytes[i])
                {
                    i += 1;
                }
                let token = &bytes[start..i];
                match token {
                    b"obj" => {
                        counts.objects += 1;
                        depth = 0;
                        dict_start = i;
                    }
                    b"endobj" => depth = 0,
                    b"stream" if top => {
                        let data = after_eol(bytes, i);
                        let end =
                            find(&bytes[data..], b"endstream").map_or(bytes.len(), |p| data + p);
                        stream(&bytes[dict_start..start], &bytes[data..end], limits, counts)?;
                        i = end;
                        depth = 0;
                        // The next stream's dictionary starts past this one: each byte of the
                        // file is in at most one stream's dictionary.
                        dict_start = end;
                    }
                    _ => counts.values += 1,
                }
                if counts.objects > limits.max_objects {
                    return Err(Refusal::TooManyObjects {
                        objects: counts.objects,
                        limit: limits.max_objects,
                    });
                }
            }
        }
        if counts.values > limits.max_values {
            return Err(Refusal::TooManyValues {
                limit: limits.max_values,
            });
        }
    }
    Ok(())
}

fn note_depth(depth: usize, limits: &Limits, counts: &mut Counts) -> Result<(), Refusal> {
    counts.depth = counts.depth.max(depth);
    if depth > limits.max_depth {
        return Err(Refusal::TooDeep {
            depth,
            limit: limits.max_depth,
        });
    }
    Ok(())
}

/// One stream: inflated (unless it is an image, which the analysis never decodes) within the
/// per-stream and whole-file budgets; an object stream's objects are scanned as the file's.
fn stream(dict: &[u8], data: &[u8], limits: &Limits, counts: &mut Counts) -> Result<(), Refusal> {
    let object_stream = find(dict, b"/ObjStm").is_some();
    if find(dict, b"/FlateDecode").is_none() || find(dict, b"/Image").is_some() {
        return Ok(());
    }
    if object_stream {
        counts.objects += declared_objects(dict);
    }
    let left = limits.max_inflated_bytes.saturating_sub(counts.inflated);
    let cap = limits.max_stream_bytes.min(left);
    let mut decoder = flate2::read::ZlibDecoder::new(data).take(cap as u64 + 1);
    let mut kept = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let mut total = 0usize;
    loop {
        // A stream that stops inflating (damaged, or raw deflate) is left to the parser, which
        // has its own per-stream limit: the budget counts what did inflate.
        let n = match decoder.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        total += n;
        if total > cap {
            return Err(if cap == limits.max_stream_bytes {
                Refusal::Inflates {
                    limit: limits.max_stream_bytes,
                }
            } else {
                Refusal::InflatesInTotal {
                    limit: limits.max_inflated_bytes,
                }
            });
        }
        if object_stream {
            kept.extend_from_slice(&chunk[..n]);
        }
    }
    counts.inflated += total;
    if object_stream {
        scan(&kept, limits, counts, false)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_objects_values_and_depth() {
        let file = b"%PDF-1.7\n1 0 obj << /Type /Catalog /Kids [2 0 R [ (a) ] ] >> endobj\n2 0 obj 5 endobj";
        let counts = prescan(file, &Limits::default()).unwrap();
        assert_eq!(counts.objects, 2);
        assert_eq!(counts.depth, 3);
        // 1 0, /Type /Catalog /Kids, 2 0 R, (a), 2 0, 5
        assert_eq!(counts.values, 12);
    }

    #[test]
    fn strings_and_comments_hide_their_brackets() {
        let file = b"1 0 obj << /A (([[[<<) /B <0a0b> >> % [[[[ <<\nendobj";
        let counts = prescan(file, &Limits::default()).unwrap();
        assert_eq!(counts.depth, 1);
    }

    #[test]
    fn a_flat_array_past_the_value_budget_is_refused_while_scanning() {
        let limits = Limits {
            max_values: 1_000,
            ..Limits::default()
        };
        let file = format!("1 0 obj [{}] endobj", "0 ".repeat(5_000));
        assert_eq!(
            prescan(file.as_bytes(), &limits),
            Err(Refusal::TooManyValues { limit: 1_000 })
        );
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes: the pass ends, with counts or a refusal, never a panic.
        #[test]
        fn any_bytes_end_in_counts_or_a_refusal(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
            let _ = prescan(&bytes, &Limits::default());
        }

        /// Nesting is measured as written, and refused one level past the limit.
        #[test]
        fn nesting_is_refused_exactly_past_the_limit(levels in 1usize..80) {
            let file = format!("1 0 obj {}{} endobj", "[".repeat(levels), "]".repeat(levels));
            let limits = Limits::default();
            let got = prescan(file.as_bytes(), &limits);
            if levels > limits.max_depth {
                prop_assert_eq!(got, Err(Refusal::TooDeep { depth: limits.max_depth + 1, limit: limits.max_depth }));
            } else {
                prop_assert_eq!(got.map(|c| c.depth), Ok(levels));
            }
        }
    }
}
