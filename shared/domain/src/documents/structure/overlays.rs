//! The `overlays` check: something drawn over the text read. An annotation or a form field over
//! it, one run of text drawn over another, or a white box drawn over earlier text (the classic
//! edit: cover a figure, write a new one on the box). A white box drawn before its text, as a
//! table's background, hides nothing.

use lopdf::{Document, Object, ObjectId};

use super::super::text::{Page, Run};
use super::super::{Check, CheckResult, names};

/// Annotation kinds that draw over a page (links and popups do not).
const OVERLAY_ANNOTATIONS: &[&str] = &[
    "FreeText", "Widget", "Stamp", "Square", "Ink", "Text", "Redact", "Caret", "Line", "Polygon",
];

pub(super) fn overlays(doc: &Document, pages: &[Page]) -> Check {
    let mut found = vec![];
    for (index, page_id) in doc.get_pages().into_values().enumerate() {
        let height = pages
            .get(index)
            .map_or(792.0, |_| page_height(doc, page_id));
        for annot in doc.get_page_annotations(page_id).unwrap_or_default() {
            let subtype = annot
                .get(b"Subtype")
                .and_then(Object::as_name)
                .map(|n| String::from_utf8_lossy(n).to_string())
                .unwrap_or_default();
            if !OVERLAY_ANNOTATIONS.contains(&subtype.as_str()) {
                continue;
            }
            let rect: Vec<f32> = annot
                .get(b"Rect")
                .and_then(Object::as_array)
                .map(|a| a.iter().filter_map(|o| o.as_float().ok()).collect())
                .unwrap_or_default();
            let covered: Vec<String> = match (&rect[..], pages.get(index)) {
                (&[x0, y0, x1, y1], Some(page)) => page
                    .runs()
                    .filter(|r| {
                        let y = height - r.y;
                        r.x < x0.max(x1)
                            && r.end_x > x0.min(x1)
                            && y >= y0.min(y1) - 2.0
                            && y <= y0.max(y1) + 2.0
                    })
                    .map(|r| format!("'{}'", r.text.trim()))
                    .collect(),
                _ => vec![],
            };
            if !covered.is_empty() {
                found.push(format!(
                    "page {}: a {subtype} annotation over {}",
                    index + 1,
                    covered.join(", ")
                ));
            }
        }
    }
    for (index, page) in pages.iter().enumerate() {
        found.extend(page.covered.iter().map(|c| {
            let quoted = |t: &[String]| {
                t.iter()
                    .map(|t| format!("'{t}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match &c.over[..] {
                [] => format!(
                    "page {}: a white box hides {}",
                    index + 1,
                    quoted(&c.hidden)
                ),
                over => format!(
                    "page {}: a white box hides {} with {} drawn on it",
                    index + 1,
                    quoted(&c.hidden),
                    quoted(over)
                ),
            }
        }));
        found.extend(text_over_text(page).into_iter().map(|(a, b)| {
            format!(
                "page {}: '{a}' and '{b}' drawn one over the other",
                index + 1
            )
        }));
    }
    if found.is_empty() {
        Check::new(
            names::OVERLAYS,
            CheckResult::Pass,
            "no annotation, form field, white box or other text over the text",
        )
    } else {
        Check::new(names::OVERLAYS, CheckResult::Fail, found.join("; "))
    }
}

/// Runs of one line drawn over other text: more than half of the narrower one covered, with
/// other words (a writer's fake bold draws the same words twice). A printed document never
/// draws one figure on top of another; an editor hiding the old figure under a new one does.
fn text_over_text(page: &Page) -> Vec<(String, String)> {
    let mut found = vec![];
    for line in &page.lines {
        let mut runs: Vec<&Run> = line.runs.iter().filter(|r| r.end_x > r.x).collect();
        runs.sort_by(|a, b| a.x.total_cmp(&b.x));
        for (i, under) in runs.iter().enumerate() {
            for over in runs[i + 1..].iter().take_while(|o| o.x < under.end_x) {
                let overlap = under.end_x.min(over.end_x) - over.x;
                let narrower = (under.end_x - under.x).min(over.end_x - over.x);
                let (a, b) = (under.text.trim(), over.text.trim());
                if overlap > narrower / 2.0 && !a.is_empty() && !b.is_empty() && a != b {
                    found.push((b.to_string(), a.to_string()));
                }
            }
        }
    }
    found
}

fn page_height(doc: &Document, page_id: ObjectId) -> f32 {
    doc.get_dictionary(page_id)
        .and_then(|d| d.get(b"MediaBox"))
        .and_then(Object::as_array)
        .ok()
        .and_then(|b| Some(b.get(3)?.as_float().ok()? - b.get(1)?.as_float().ok()?))
        .unwrap_or(792.0)
}

#[cfg(test)]
mod tests {
    use lopdf::{Dictionary, Document, Stream, dictionary};

    use super::super::super::samples::edits::page_doc;
    use super::super::super::{Verdict, analyse};
    use super::*;

    /// A one-page PDF of this content, Helvetica as /F1.
    fn pdf(content: &str) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let font = doc.add_object(
            dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" },
        );
        let stream = doc.add_object(Stream::new(Dictionary::new(), content.as_bytes().to_vec()));
        let resources = dictionary! { "Font" => dictionary! { "F1" => font } };
        page_doc(doc, stream, resources, 1).unwrap()
    }

    const STUB: &str = "BT /F1 12 Tf 72 700 Td (Earnings Statement) Tj 0 -20 Td (Gross Pay) Tj \
        200 0 Td (2,000.00) Tj -200 -20 Td (Net Pay) Tj 200 0 Td (1,467.00) Tj ET";

    fn overlay_check(bytes: &[u8]) -> Check {
        let a = analyse(bytes, None).unwrap();
        let check = (a.checks.iter())
            .find(|c| c.check == names::OVERLAYS)
            .unwrap()
            .clone();
        if check.result == CheckResult::Fail {
            assert_eq!(a.verdict, Verdict::Edited, "{:#?}", a.checks);
        }
        check
    }

    #[test]
    fn a_white_box_over_a_figure_with_a_new_one_on_it_is_an_edit() {
        // White in each colour space a producer writes it in, the new figure on the box.
        for white in ["1 1 1 rg", "1 g", "0 0 0 0 k", "/DeviceRGB cs 1 1 1 sc"] {
            let edit = format!(
                "{STUB} q {white} 270 655 70 16 re f 0 g BT /F1 12 Tf 280 660 Td (1,967.00) Tj ET Q"
            );
            let check = overlay_check(&pdf(&edit));
            assert_eq!(
                check.result,
                CheckResult::Fail,
                "{white}: {}",
                check.evidence
            );
            assert!(
                check
                    .evidence
                    .contains("a white box hides '1,467.00' with '1,967.00' drawn on it"),
                "{white}: {}",
                check.evidence
            );
        }
        // A box that only hides a figure is an edit too.
        let hidden = overlay_check(&pdf(&format!("{STUB} 1 g 270 655 70 16 re f")));
        assert_eq!(hidden.result, CheckResult::Fail);
        assert!(hidden.evidence.contains("a white box hides '1,467.00'"));
    }

    #[test]
    fn a_white_background_drawn_before_the_text_is_no_edit() {
        for background in [
            "1 1 1 rg 60 640 300 90 re f 0 g",
            "q 1 g 0 0 612 792 re f Q",
            // Other colours and strokes over the text hide nothing white.
            "0.9 g 270 655 70 16 re f 0 g",
        ] {
            let check = overlay_check(&pdf(&format!("{background} {STUB}")));
            assert_eq!(
                check.result,
                CheckResult::Pass,
                "{background}: {}",
                check.evidence
            );
        }
        let grey_over = overlay_check(&pdf(&format!("{STUB} 0.9 g 270 655 70 16 re f")));
        assert_eq!(
            grey_over.result,
            CheckResult::Pass,
            "{}",
            grey_over.evidence
        );
        let stroked = overlay_check(&pdf(&format!("{STUB} 1 G 1 g 270 655 70 16 re S")));
        assert_eq!(stroked.result, CheckResult::Pass, "{}", stroked.evidence);
    }
}
