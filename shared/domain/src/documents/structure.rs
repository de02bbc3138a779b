//! The structure checks: what the file itself shows of its history and its layers. Each returns
//! its evidence: the revisions and what they rewrote, the creation and modification dates, the
//! producing tool, the annotations over text, the fonts of the amounts, active content.

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone};
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::editing_tools::editing_tool;
use super::fields::money;
use super::intake::Pdf;
use super::text::{Page, Run};
use super::{Check, CheckResult, names};

mod overlays;
mod signatures;

use overlays::overlays;

/// Every structure check of a PDF, in report order.
pub fn checks(pdf: &Pdf, pages: &[Page]) -> Vec<Check> {
    let info = info(&pdf.doc);
    let created = info.get("CreationDate").and_then(|d| pdf_date(d));
    let modified = info.get("ModDate").and_then(|d| pdf_date(d));
    let modified_later = matches!((created, modified), (Some(c), Some(m)) if m > c + chrono::Duration::seconds(MOD_DATE_SLACK_SECONDS));
    let signed = signatures::signature_only(pdf);
    vec![
        incremental_updates(pdf, signed.as_ref()),
        modified_after_creation(created, modified, signed.as_ref()),
        editing_tool_check(&info, modified_later),
        overlays(&pdf.doc, pages),
        font_consistency(pages),
        active_content(&pdf.doc),
    ]
}

/// A modification this many seconds after creation still counts as the same moment (writers
/// stamp the two dates at slightly different times).
pub const MOD_DATE_SLACK_SECONDS: i64 = 60;

fn info(doc: &Document) -> std::collections::BTreeMap<&'static str, String> {
    let mut found = std::collections::BTreeMap::new();
    let dict = doc
        .trailer
        .get(b"Info")
        .and_then(|o| doc.dereference(o))
        .and_then(|(_, o)| o.as_dict());
    if let Ok(dict) = dict {
        for key in ["Producer", "Creator", "CreationDate", "ModDate"] {
            if let Ok(Object::String(bytes, _)) = dict
                .get(key.as_bytes())
                .and_then(|o| doc.dereference(o))
                .map(|(_, o)| o)
            {
                found.insert(key, text_string(bytes));
            }
        }
    }
    found
}

/// A PDF text string: UTF-16 with its byte-order mark, else single bytes.
fn text_string(bytes: &[u8]) -> String {
    if bytes.starts_with(&[0xFE, 0xFF]) {
        let units: Vec<u16> = bytes[2..]
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        bytes.iter().map(|b| *b as char).collect()
    }
}

/// A PDF date, `D:YYYYMMDDHHmmSS+HH'mm'` (the parts after the year are optional).
pub fn pdf_date(text: &str) -> Option<DateTime<FixedOffset>> {
    let t = text.trim().trim_start_matches("D:");
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let num = |from: usize, len: usize, default: u32| -> u32 {
        digits
            .get(from..from + len)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let year: i32 = digits.get(0..4)?.parse().ok()?;
    let day = NaiveDate::from_ymd_opt(year, num(4, 2, 1), num(6, 2, 1))?;
    let time = day.and_hms_opt(num(8, 2, 0), num(10, 2, 0), num(12, 2, 0))?;
    let zone = &t[digits.len()..];
    let offset = match zone.chars().next() {
        Some(sign @ ('+' | '-')) => {
            let z: String = zone[1..].chars().filter(char::is_ascii_digit).collect();
            let h: i32 = z.get(0..2).and_then(|s| s.parse().ok()).unwrap_or(0);
            let m: i32 = z.get(2..4).and_then(|s| s.parse().ok()).unwrap_or(0);
            let secs = (h * 3600 + m * 60) * if sign == '-' { -1 } else { 1 };
            FixedOffset::east_opt(secs)?
        }
        _ => FixedOffset::east_opt(0)?,
    };
    offset.from_local_datetime(&time).single()
}

fn incremental_updates(pdf: &Pdf, signed: Option<&signatures::Signed>) -> Check {
    let revisions = pdf.doc.revision_count().max(1);
    if revisions <= 1 || pdf.eof_offsets.len() <= 1 {
        return Check::new(
            names::INCREMENTAL_UPDATES,
            CheckResult::Pass,
            format!("one revision ({} %%EOF marker)", pdf.eof_offsets.len()),
        );
    }
    if let Some(signed) = signed {
        return Check::new(
            names::INCREMENTAL_UPDATES,
            CheckResult::Pass,
            format!(
                "{revisions} revisions: the update(s) after the first %%EOF only add a signature; {}",
                signed.words()
            ),
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    let rewritten: Vec<String> = pdf
        .updated_objects
        .iter()
        .filter(|id| seen.insert(**id))
        .take(12)
        .map(|id| format!("object {} ({})", id.0, describe(&pdf.doc, *id)))
        .collect();
    let changed = if rewritten.is_empty() {
        "what it changed could not be read".to_string()
    } else {
        format!("the updates write {}", rewritten.join(", "))
    };
    Check::new(
        names::INCREMENTAL_UPDATES,
        CheckResult::Fail,
        format!(
            "{revisions} revisions: {} update(s) appended after the first %%EOF at byte {}; {changed}",
            revisions - 1,
            pdf.eof_offsets[0]
        ),
    )
}

/// What an object is, in a few words.
fn describe(doc: &Document, id: ObjectId) -> String {
    for (number, page) in doc.get_pages() {
        if page == id {
            return format!("page {number}");
        }
        if doc.get_page_contents(page).contains(&id) {
            return format!("content of page {number}");
        }
    }
    let dict = match doc.get_object(id) {
        Ok(Object::Dictionary(d)) => Some(d),
        Ok(Object::Stream(s)) => Some(&s.dict),
        _ => None,
    };
    let kind = |d: &Dictionary, key: &[u8]| {
        d.get(key)
            .and_then(Object::as_name)
            .ok()
            .map(|n| String::from_utf8_lossy(n).to_string())
    };
    match dict {
        Some(d) if d.has(b"Producer") || d.has(b"ModDate") => "document information".into(),
        Some(d) => kind(d, b"Subtype")
            .or_else(|| kind(d, b"Type"))
            .unwrap_or_else(|| "unnamed object".into()),
        None => "value".into(),
    }
}

fn modified_after_creation(
    created: Option<DateTime<FixedOffset>>,
    modified: Option<DateTime<FixedOffset>>,
    signed: Option<&signatures::Signed>,
) -> Check {
    let (result, evidence) = match (created, modified) {
        // Signing saves the file again: that modification is the signature's.
        (Some(c), Some(m)) if signed.is_some() => (
            CheckResult::Pass,
            format!(
                "modified {} after its creation {}, when it was signed",
                m.to_rfc3339(),
                c.to_rfc3339()
            ),
        ),
        (Some(c), Some(m)) if m > c + chrono::Duration::seconds(MOD_DATE_SLACK_SECONDS) => (
            CheckResult::Fail,
            format!(
                "modified {} after its creation {}",
                m.to_rfc3339(),
                c.to_rfc3339()
            ),
        ),
        (Some(c), Some(m)) => (
            CheckResult::Pass,
            format!("created {} and modified {}", c.to_rfc3339(), m.to_rfc3339()),
        ),
        (Some(c), None) => (
            CheckResult::Pass,
            format!("created {}, no modification date", c.to_rfc3339()),
        ),
        _ => (
            CheckResult::Unknown,
            "the file states no creation date".to_string(),
        ),
    };
    Check::new(names::MODIFIED_AFTER_CREATION, result, evidence)
}

fn editing_tool_check(
    info: &std::collections::BTreeMap<&'static str, String>,
    modified_later: bool,
) -> Check {
    let producer = info.get("Producer").map(String::as_str).unwrap_or("");
    let creator = info.get("Creator").map(String::as_str).unwrap_or("");
    let stated = format!("producer '{producer}', creator '{creator}'");
    match editing_tool(producer, creator, modified_later) {
        Some(tool) => Check::new(
            names::EDITING_TOOL,
            CheckResult::Fail,
            format!("{stated}: {} is an editing tool", tool.name),
        ),
        None if producer.is_empty() && creator.is_empty() => Check::new(
            names::EDITING_TOOL,
            CheckResult::Unknown,
            "the file names no producer or creator",
        ),
        None => Check::new(
            names::EDITING_TOOL,
            CheckResult::Pass,
            format!("{stated}: not an editing tool"),
        ),
    }
}

/// A font's family: its name less the style after a hyphen or comma ("DejaVuSans-Bold" →
/// "DejaVuSans").
pub fn family(font: &str) -> &str {
    font.split(['-', ','])
        .next()
        .unwrap_or(font)
        .trim_end_matches("MT")
        .trim_end_matches("PS")
}

fn is_amount(run: &Run) -> bool {
    run.text.split_whitespace().any(|w| money(w).is_some())
}

/// An amount whose font family no other amount of its page shares, while at least three others
/// share one family: the others are its neighbours.
fn font_consistency(pages: &[Page]) -> Check {
    let mut outliers = vec![];
    let mut summary = vec![];
    for (index, page) in pages.iter().enumerate() {
        let amounts: Vec<&Run> = page.runs().filter(|r| is_amount(r)).collect();
        let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for r in &amounts {
            *counts.entry(family(&r.font)).or_default() += 1;
        }
        let Some((main, main_count)) = counts
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(f, n)| (*f, *n))
        else {
            continue;
        };
        summary.push(format!(
            "page {}: {} amount(s), {main_count} in {main}",
            index + 1,
            amounts.len()
        ));
        if main_count < 3 {
            continue;
        }
        // A row drawn wholly in another family (bold totals in a serif) is the layout's; an
        // amount alone in its family, beside a label in the page's, is not.
        let labelled_alike = |r: &Run| {
            (page.lines.iter())
                .find(|l| l.runs.iter().any(|o| std::ptr::eq(o, r)))
                .is_some_and(|l| {
                    (l.runs.iter()).any(|o| !is_amount(o) && family(&o.font) == family(&r.font))
                })
        };
        for r in amounts.iter().filter(|r| {
            family(&r.font) != main && counts[family(&r.font)] <= 2 && !labelled_alike(r)
        }) {
            outliers.push(format!(
                "page {}: '{}' is drawn in {} while its {main_count} neighbouring amounts use {main}",
                index + 1,
                r.text.trim(),
                r.font
            ));
        }
    }
    if !outliers.is_empty() {
        Check::new(
            names::FONT_CONSISTENCY,
            CheckResult::Fail,
            outliers.join("; "),
        )
    } else if summary.is_empty() {
        Check::new(
            names::FONT_CONSISTENCY,
            CheckResult::NotApplicable,
            "no amounts in the text",
        )
    } else {
        Check::new(
            names::FONT_CONSISTENCY,
            CheckResult::Pass,
            summary.join("; "),
        )
    }
}

/// Direct objects are searched this deep inside each indirect object (the intake refuses deeper
/// nesting anyway).
const ACTIVE_DEPTH: usize = 40;

/// JavaScript (document or page actions) and embedded files, anywhere in the file.
fn active_content(doc: &Document) -> Check {
    let (mut javascript, mut embedded, mut lists) = (0, 0, 0);
    let mut pending: Vec<(&Object, usize)> = doc.objects.values().map(|o| (o, 0)).collect();
    while let Some((object, depth)) = pending.pop() {
        let dict = match object {
            Object::Dictionary(d) => d,
            Object::Stream(s) => &s.dict,
            Object::Array(items) if depth < ACTIVE_DEPTH => {
                pending.extend(items.iter().map(|o| (o, depth + 1)));
                continue;
            }
            _ => continue,
        };
        if dict.has(b"JS") || dict.get(b"S").and_then(Object::as_name).ok() == Some(b"JavaScript") {
            javascript += 1;
        }
        if dict.get(b"Type").and_then(Object::as_name).ok() == Some(b"EmbeddedFile")
            || dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"FileAttachment")
        {
            embedded += 1;
        }
        lists += usize::from(dict.has(b"EmbeddedFiles"));
        if depth < ACTIVE_DEPTH {
            pending.extend(dict.iter().map(|(_, o)| (o, depth + 1)));
        }
    }
    let mut found = vec![];
    if javascript > 0 {
        found.push(format!("{javascript} JavaScript action(s)"));
    }
    if embedded > 0 {
        found.push(format!("{embedded} embedded file(s)"));
    } else if lists > 0 {
        found.push("a list of embedded files".to_string());
    }
    if found.is_empty() {
        Check::new(
            names::ACTIVE_CONTENT,
            CheckResult::Pass,
            "no JavaScript and no embedded file",
        )
    } else {
        Check::new(names::ACTIVE_CONTENT, CheckResult::Fail, found.join(", "))
    }
}
