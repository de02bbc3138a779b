//! Appended revisions that only sign the document. Payroll portals and e-signing services append
//! a signature after the file is made: a signature dictionary, its form field and widget, the
//! form's dictionary, the catalog and page pointing at them, and the widget's appearance. None of
//! that changes what the pages draw, so it is no edit. Anything else in an update (a page's
//! content, an object the page's resources reach, an annotation other than a signature's) is.

use std::collections::BTreeSet;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::super::intake::Pdf;

/// The signatures of the updates, when they are all the updates hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Signed {
    /// Each signature's `/Name`, or "an unnamed signer".
    pub signers: Vec<String>,
    /// Whether the first signature's byte range covers the whole earlier revision.
    pub covers_earlier: bool,
}

impl Signed {
    pub fn words(&self) -> String {
        format!(
            "signed by {}; the signature {} the whole earlier revision",
            self.signers.join(", "),
            if self.covers_earlier {
                "covers"
            } else {
                "does not cover"
            }
        )
    }
}

/// Objects followed this deep, and at most this many, from a page's resources.
const REACH_DEPTH: usize = 12;
const REACH_MAX: usize = 20_000;

/// The signatures, when every object the updates write only adds a signature; None otherwise
/// (or when the file has one revision).
pub fn signature_only(pdf: &Pdf) -> Option<Signed> {
    let earlier_end = pdf.eof_offsets.first()? + "%%EOF".len();
    if pdf.eof_offsets.len() <= 1 || pdf.updated_objects.is_empty() {
        return None;
    }
    let doc = &pdf.doc;
    let drawn = drawn_by_pages(doc);
    let mut signers = vec![];
    let mut ranges = vec![];
    let updated: BTreeSet<ObjectId> = pdf.updated_objects.iter().copied().collect();
    for id in &updated {
        if drawn.contains(id) {
            return None;
        }
        let Some(dict) = dictionary(doc, *id) else {
            continue;
        };
        if is_signature(dict) {
            signers.push(signer(dict));
            ranges.push(byte_range(dict));
        } else if is_annotation(dict) && !is_signature_field(doc, dict) {
            return None;
        }
    }
    let first = ranges.first()?.clone();
    Some(Signed {
        signers,
        covers_earlier: matches!(first[..], [0, length, ..] if length >= earlier_end as i64),
    })
}

fn dictionary(doc: &Document, id: ObjectId) -> Option<&Dictionary> {
    match doc.get_object(id).ok()? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

fn name_is(dict: &Dictionary, key: &[u8], value: &[u8]) -> bool {
    dict.get(key)
        .and_then(Object::as_name)
        .is_ok_and(|n| n == value)
}

fn is_signature(dict: &Dictionary) -> bool {
    name_is(dict, b"Type", b"Sig") || (dict.has(b"ByteRange") && dict.has(b"Contents"))
}

fn is_annotation(dict: &Dictionary) -> bool {
    name_is(dict, b"Type", b"Annot") || (dict.has(b"Subtype") && dict.has(b"Rect"))
}

/// A widget of a signature field: its own `/FT /Sig`, or its parent's.
fn is_signature_field(doc: &Document, dict: &Dictionary) -> bool {
    name_is(dict, b"FT", b"Sig")
        || dict
            .get_deref(b"Parent", doc)
            .and_then(Object::as_dict)
            .is_ok_and(|p| name_is(p, b"FT", b"Sig"))
}

fn signer(dict: &Dictionary) -> String {
    match dict.get(b"Name") {
        Ok(Object::String(bytes, _)) => String::from_utf8_lossy(bytes).into_owned(),
        _ => "an unnamed signer".into(),
    }
}

fn byte_range(dict: &Dictionary) -> Vec<i64> {
    dict.get(b"ByteRange")
        .and_then(Object::as_array)
        .map(|a| a.iter().filter_map(|o| o.as_i64().ok()).collect())
        .unwrap_or_default()
}

/// Every object a page draws: its content streams, and what its resources reach (fonts, images,
/// forms). An update writing one of them changes what the page shows.
fn drawn_by_pages(doc: &Document) -> BTreeSet<ObjectId> {
    let mut drawn = BTreeSet::new();
    for page in doc.get_pages().into_values() {
        drawn.extend(doc.get_page_contents(page));
        if let Ok(page_dict) = doc.get_dictionary(page)
            && let Ok(resources) = page_dict.get(b"Resources")
        {
            reach(doc, resources, &mut drawn, 0);
        }
    }
    drawn
}

fn reach(doc: &Document, object: &Object, seen: &mut BTreeSet<ObjectId>, depth: usize) {
    if depth > REACH_DEPTH || seen.len() > REACH_MAX {
        return;
    }
    match object {
        Object::Reference(id) => {
            if seen.insert(*id)
                && let Ok(target) = doc.get_object(*id)
            {
                reach(doc, target, seen, depth + 1);
            }
        }
        Object::Array(items) => items.iter().for_each(|o| reach(doc, o, seen, depth + 1)),
        Object::Dictionary(d) => d.iter().for_each(|(_, o)| reach(doc, o, seen, depth + 1)),
        Object::Stream(s) => s
            .dict
            .iter()
            .for_each(|(_, o)| reach(doc, o, seen, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::documents::samples::{Sample, edits, sample_pdf};
    use crate::documents::{CheckResult, Verdict, analyse, names};
    use chrono::NaiveDate;
    use uuid::Uuid;

    const TENANT: &str = "Jane Doe";

    fn genuine() -> Vec<u8> {
        let today = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        sample_pdf(Sample::Genuine, Uuid::from_u128(42), TENANT, today).unwrap()
    }

    #[test]
    fn a_revision_that_only_signs_is_no_edit_and_names_the_signer() {
        let signed = edits::signed(&genuine(), "Payroll Portal Inc", None).unwrap();
        let a = analyse(&signed, Some(TENANT)).unwrap();
        assert_eq!(a.verdict, Verdict::Clean, "{:#?}", a.checks);
        let check = a.check(names::INCREMENTAL_UPDATES).unwrap();
        assert_eq!(check.result, CheckResult::Pass);
        assert!(
            check.evidence.contains(
                "signed by Payroll Portal Inc; the signature covers the whole earlier revision"
            ),
            "{}",
            check.evidence
        );
        let modified = a.check(names::MODIFIED_AFTER_CREATION).unwrap();
        assert_eq!(modified.result, CheckResult::Pass, "{}", modified.evidence);
        assert!(modified.evidence.contains("when it was signed"));
    }

    #[test]
    fn a_signature_beside_a_content_change_is_still_an_edit() {
        let stub = genuine();
        let doc = lopdf::Document::load_mem(&stub).unwrap();
        let pages = crate::documents::text::read_pages(&doc, &Default::default()).unwrap();
        let net = (pages[0].runs())
            .map(|r| r.text.trim().to_string())
            .filter(|t| t.starts_with('$'))
            .last()
            .unwrap();
        let edited = edits::signed(&stub, "Payroll Portal Inc", Some((&net, "$9,999.00"))).unwrap();
        let a = analyse(&edited, Some(TENANT)).unwrap();
        assert_eq!(a.verdict, Verdict::Edited, "{:#?}", a.checks);
        let check = a.check(names::INCREMENTAL_UPDATES).unwrap();
        assert_eq!(check.result, CheckResult::Fail);
        assert!(
            check.evidence.contains("content of page 1"),
            "{}",
            check.evidence
        );
    }
}
