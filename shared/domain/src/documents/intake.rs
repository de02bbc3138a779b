//! What a file is, and the limits it must fit before anything reads it. The file's first bytes
//! decide its type (its name's extension is never trusted): a PDF is opened, a JPEG or PNG is a
//! photo, anything else is refused. Each limit keeps one hostile file from costing the service
//! more than one small document would.

use lopdf::{Document, LoadOptions, Object};

pub mod photo;
pub mod prescan;

/// The limits every upload must fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest file accepted, in bytes: 10 MB.
    pub max_bytes: usize,
    /// The most pages read: a pay stub, statement or letter has a few.
    pub max_pages: usize,
    /// The most indirect objects in the file.
    pub max_objects: usize,
    /// The deepest nesting of arrays and dictionaries inside one object.
    pub max_depth: usize,
    /// The most one compressed stream may inflate to.
    pub max_stream_bytes: usize,
    /// The most all the page content read may inflate to, together.
    pub max_content_bytes: usize,
    /// The most the compressed streams the analysis reads may inflate to, together (`prescan`).
    pub max_inflated_bytes: usize,
    /// The most values (numbers, names, strings) all objects may hold: a parsed value costs
    /// tens of bytes, so this bounds what the parser builds before it builds it.
    pub max_values: usize,
    /// The most pixels a photo may declare: a phone's 12-megapixel photo fits three times over.
    pub max_pixels: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 10 * 1024 * 1024,
            max_pages: 50,
            max_objects: 20_000,
            max_depth: 32,
            max_stream_bytes: 4 * 1024 * 1024,
            max_content_bytes: 8 * 1024 * 1024,
            max_inflated_bytes: 32 * 1024 * 1024,
            max_values: 250_000,
            max_pixels: 40_000_000,
        }
    }
}

/// Why a file is refused: the tenant sees the message and can try again with another file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum Refusal {
    #[error("the file is {bytes} bytes; the limit is {limit} bytes (10 MB)")]
    TooLarge { bytes: usize, limit: usize },
    #[error("the file is not a PDF, a JPEG or a PNG")]
    NotSupported,
    #[error("the PDF needs a password to open: upload a copy without a password")]
    Encrypted,
    #[error("the PDF can't be read: {0}")]
    Corrupt(String),
    #[error("the PDF has {pages} pages; at most {limit} are read")]
    TooManyPages { pages: usize, limit: usize },
    #[error("the PDF has {objects} objects; the limit is {limit}")]
    TooManyObjects { objects: usize, limit: usize },
    #[error("the PDF nests objects {depth} levels deep; the limit is {limit}")]
    TooDeep { depth: usize, limit: usize },
    #[error("a compressed stream of the PDF inflates past the limit of {limit} bytes")]
    Inflates { limit: usize },
    #[error("the compressed streams of the PDF inflate past the limit of {limit} bytes together")]
    InflatesInTotal { limit: usize },
    #[error("the PDF holds more than {limit} values in its objects")]
    TooManyValues { limit: usize },
    /// The operating system stopped the analysis (its memory or CPU-time limit, say).
    #[error("the analysis of the file was stopped: {0}")]
    Stopped(String),
    #[error("the {format} image can't be decoded: {why}")]
    ImageUnreadable { format: String, why: String },
    #[error("the image has {pixels} pixels; the limit is {limit}")]
    TooManyPixels { pixels: u64, limit: u64 },
}

/// A PDF that opened within the limits, with the facts read from its raw bytes.
pub struct Pdf {
    pub doc: Document,
    /// Byte offsets of each `%%EOF` marker: one per revision of the file.
    pub eof_offsets: Vec<usize>,
    /// Each revision's objects after the first, as written in the update: (number, generation).
    pub updated_objects: Vec<(u32, u16)>,
}

/// What the first bytes said.
pub enum Opened {
    Pdf(Box<Pdf>),
    Photo(&'static str),
}

/// Recognises the file by its magic bytes and opens a PDF within the limits.
pub fn open(bytes: &[u8], limits: &Limits) -> Result<Opened, Refusal> {
    if bytes.len() > limits.max_bytes {
        return Err(Refusal::TooLarge {
            bytes: bytes.len(),
            limit: limits.max_bytes,
        });
    }
    let photo = if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(photo::Format::Jpeg)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(photo::Format::Png)
    } else {
        None
    };
    if let Some(format) = photo {
        photo::check(bytes, format, limits)?;
        return Ok(Opened::Photo(format.name()));
    }
    // The header may follow a little junk (the specification tolerates 1,024 bytes).
    let head = &bytes[..bytes.len().min(1024)];
    if find(head, b"%PDF-").is_none() {
        return Err(Refusal::NotSupported);
    }
    // The budgets hold before the parser builds anything (`prescan`).
    prescan::prescan(bytes, limits)?;
    // A PDF with an owner password only opens with the empty user password, as every viewer
    // opens it: that one is read. One that needs a password to open is refused.
    let encrypted = has_encrypt_entry(bytes);
    let options = LoadOptions {
        max_decompressed_size: Some(limits.max_stream_bytes),
        password: encrypted.then(String::new),
        ..Default::default()
    };
    let doc = Document::load_mem_with_options(bytes, options).map_err(|e| match e {
        lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => {
            Refusal::Inflates {
                limit: limits.max_stream_bytes,
            }
        }
        _ if encrypted => Refusal::Encrypted,
        other => Refusal::Corrupt(plain_error(&other)),
    })?;
    if doc.is_encrypted() {
        return Err(Refusal::Encrypted);
    }
    if doc.objects.len() > limits.max_objects {
        return Err(Refusal::TooManyObjects {
            objects: doc.objects.len(),
            limit: limits.max_objects,
        });
    }
    let depth = doc
        .objects
        .values()
        .map(|o| depth_of(o, limits.max_depth + 1))
        .max()
        .unwrap_or(0);
    if depth > limits.max_depth {
        return Err(Refusal::TooDeep {
            depth,
            limit: limits.max_depth,
        });
    }
    let pages = doc.get_pages().len();
    if pages == 0 {
        return Err(Refusal::Corrupt("it has no pages".into()));
    }
    if pages > limits.max_pages {
        return Err(Refusal::TooManyPages {
            pages,
            limit: limits.max_pages,
        });
    }
    let eof_offsets = eof_offsets(bytes);
    let updated_objects = match eof_offsets.first() {
        Some(first) if eof_offsets.len() > 1 => object_headers(&bytes[*first..]),
        _ => vec![],
    };
    Ok(Opened::Pdf(Box::new(Pdf {
        doc,
        eof_offsets,
        updated_objects,
    })))
}

fn plain_error(e: &lopdf::Error) -> String {
    let text = e.to_string();
    if text.is_empty() {
        "its structure is damaged".into()
    } else {
        text
    }
}

/// Whether any trailer (or cross-reference stream) names an `/Encrypt` dictionary.
fn has_encrypt_entry(bytes: &[u8]) -> bool {
    find(bytes, b"/Encrypt").is_some()
}

/// The nesting depth of an object's arrays and dictionaries, counted up to `cap`.
pub fn depth_of(object: &Object, cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let inner = match object {
        Object::Array(items) => items
            .iter()
            .map(|o| depth_of(o, cap - 1))
            .max()
            .unwrap_or(0),
        Object::Dictionary(dict) => dict
            .iter()
            .map(|(_, o)| depth_of(o, cap - 1))
            .max()
            .unwrap_or(0),
        Object::Stream(stream) => stream
            .dict
            .iter()
            .map(|(_, o)| depth_of(o, cap - 1))
            .max()
            .unwrap_or(0),
        _ => return 0,
    };
    inner + 1
}

/// Offsets of each `%%EOF` marker.
fn eof_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut found = vec![];
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], b"%%EOF") {
        found.push(from + at);
        from += at + 5;
    }
    found
}

/// The longest `N G` before ` obj` read (two numbers of ten and five digits and a space).
const HEADER_PREFIX: usize = 24;

/// The `N G obj` headers in a stretch of the file, in order. A header is a line of its own, so
/// the walk back to the line's start stops after `HEADER_PREFIX` bytes: the scan stays linear
/// in the file's size however many ` obj` it holds.
fn object_headers(bytes: &[u8]) -> Vec<(u32, u16)> {
    let mut found = vec![];
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], b" obj") {
        let end = from + at;
        let window = end.saturating_sub(HEADER_PREFIX);
        let start = match bytes[window..end]
            .iter()
            .rposition(|b| *b == b'\n' || *b == b'\r')
        {
            Some(p) => Some(window + p + 1),
            None if window == 0 => Some(0),
            // The line is longer than any header.
            None => None,
        };
        let words: Vec<&str> = start
            .and_then(|start| std::str::from_utf8(&bytes[start..end]).ok())
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if let [n, g] = words[..]
            && let (Ok(n), Ok(g)) = (n.parse(), g.parse())
        {
            found.push((n, g));
        }
        from = end + 4;
    }
    found
}

/// The first offset of `needle` in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_headers_are_lines_of_their_own() {
        let bytes = b"7 0 obj\n<< >>\nendobj\r12 3 obj x\n1 2 3 obj\n";
        assert_eq!(object_headers(bytes), vec![(7, 0), (12, 3)]);
        // A line longer than any header: no header, and no walk back over it.
        let long = [b"9 0".as_slice(), &[b' '; 100], b" obj"].concat();
        assert_eq!(object_headers(&long), vec![]);
    }
}
