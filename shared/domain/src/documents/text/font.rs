//! Fonts as the text reader needs them: each code's text (through the font's encoding or its
//! `/ToUnicode` map) and its width.

use std::collections::BTreeMap;

use lopdf::{Dictionary, Document, Object};

use crate::documents::intake::Refusal;

/// What a font needs to decode and measure its codes.
pub struct FontInfo<'a> {
    pub name: String,
    encoding: Option<lopdf::Encoding<'a>>,
    two_byte: bool,
    widths: BTreeMap<u32, f32>,
    default_width: f32,
}

impl<'a> FontInfo<'a> {
    pub fn load(doc: &'a Document, dict: &'a Dictionary, limit: usize) -> Result<Self, Refusal> {
        let base = dict
            .get(b"BaseFont")
            .and_then(Object::as_name)
            .map(|n| String::from_utf8_lossy(n).to_string())
            .unwrap_or_else(|_| "unnamed".into());
        let name = match base.split_once('+') {
            Some((prefix, rest)) if prefix.len() == 6 => rest.to_string(),
            _ => base,
        };
        let encoding = match dict.get_font_encoding_with_limit(doc, limit) {
            Ok(e) => Some(e),
            Err(lopdf::Error::Decompress(_)) => return Err(Refusal::Inflates { limit }),
            Err(_) => None,
        };
        let two_byte = dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Type0");
        let mut widths = BTreeMap::new();
        let mut default_width = if two_byte { 1000.0 } else { 500.0 };
        if two_byte {
            let descendant = dict
                .get_deref(b"DescendantFonts", doc)
                .and_then(Object::as_array)
                .ok()
                .and_then(|a| a.first())
                .and_then(|o| doc.dereference(o).ok())
                .and_then(|(_, o)| o.as_dict().ok());
            if let Some(cid) = descendant {
                if let Ok(dw) = cid.get(b"DW").and_then(Object::as_float) {
                    default_width = dw;
                }
                if let Ok(w) = cid.get_deref(b"W", doc).and_then(Object::as_array) {
                    read_cid_widths(doc, w, &mut widths);
                }
            }
        } else if let Ok(w) = dict.get_deref(b"Widths", doc).and_then(Object::as_array) {
            let first = dict.get(b"FirstChar").and_then(Object::as_i64).unwrap_or(0) as u32;
            for (i, o) in w.iter().enumerate() {
                if let Ok(v) = doc.dereference(o).and_then(|(_, o)| o.as_float()) {
                    widths.insert(first + i as u32, v);
                }
            }
        }
        if !two_byte
            && widths.is_empty()
            && let Some(standard) = super::metrics::standard_widths(&name)
        {
            for (i, w) in standard.into_iter().enumerate() {
                widths.insert(super::metrics::FIRST_CODE + i as u32, w);
            }
        }
        Ok(FontInfo {
            name,
            encoding,
            two_byte,
            widths,
            default_width,
        })
    }

    /// The codes of a string, each with its text and width in thousandths of the font size.
    pub fn glyphs(&self, bytes: &[u8]) -> Vec<(String, f32, bool)> {
        let step = if self.two_byte { 2 } else { 1 };
        bytes
            .chunks(step)
            .map(|code| {
                let number = code.iter().fold(0u32, |n, b| n * 256 + *b as u32);
                let text = match &self.encoding {
                    Some(e) => e.bytes_to_string(code).unwrap_or_default(),
                    None => code.iter().map(|b| *b as char).collect(),
                };
                let width = self
                    .widths
                    .get(&number)
                    .copied()
                    .unwrap_or(self.default_width);
                (text, width, step == 1 && number == 32)
            })
            .collect()
    }
}

fn read_cid_widths(doc: &Document, w: &[Object], widths: &mut BTreeMap<u32, f32>) {
    let mut i = 0;
    while i < w.len() && widths.len() < 65_536 {
        let Ok(first) = w[i].as_i64() else { break };
        match w.get(i + 1).map(|o| doc.dereference(o).map(|(_, o)| o)) {
            Some(Ok(Object::Array(list))) => {
                for (k, o) in list.iter().enumerate() {
                    if let Ok(v) = o.as_float() {
                        widths.insert(first as u32 + k as u32, v);
                    }
                }
                i += 2;
            }
            Some(Ok(last)) => {
                let (Ok(last), Some(Ok(v))) = (last.as_i64(), w.get(i + 2).map(Object::as_float))
                else {
                    break;
                };
                for code in first..=last.min(first + 65_535) {
                    widths.insert(code as u32, v);
                }
                i += 3;
            }
            _ => break,
        }
    }
}

/// Appends text with typographic ligatures (fi, ff, ...) spelled out, so labels compare.
pub fn push_unligatured(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            other => out.push(other),
        }
    }
}
