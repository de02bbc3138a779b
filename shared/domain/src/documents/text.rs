//! Each page's text as positioned runs, from the page's content stream: every text-showing
//! operator becomes a run with its position (top-down, in points), its font and its size. Runs
//! group into lines by their baseline, left to right, and lines read top to bottom. Images drawn
//! on the page count towards how much of it they cover (a scan is one image over the page).

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::intake::{Limits, Refusal};
use super::{Check, CheckResult, names};

mod font;
mod interpret;
pub mod metrics;

use interpret::{Matrix, Reader};

/// One run of text as drawn: where it starts and ends, in which font and size.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub text: String,
    pub x: f32,
    pub end_x: f32,
    /// Distance of the baseline from the top of the page.
    pub y: f32,
    pub size: f32,
    /// The font's name without its subset prefix ("DejaVuSans-Bold").
    pub font: String,
}

/// Runs sharing a baseline, left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub y: f32,
    pub runs: Vec<Run>,
}

/// Adjacent runs closer than this many font sizes belong to one cell of a line.
const CELL_GAP_EMS: f32 = 0.9;
/// Adjacent runs farther apart than this many font sizes are separate words.
const WORD_GAP_EMS: f32 = 0.15;

/// A line's text split where runs stand far apart: the columns of a table row.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    pub x: f32,
    pub end_x: f32,
}

impl Line {
    /// The line's text, runs joined (with a space where they stand apart).
    pub fn text(&self) -> String {
        self.cells()
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join("  ")
    }

    /// The line's cells, left to right.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells: Vec<Cell> = vec![];
        let mut last: Option<&Run> = None;
        for run in &self.runs {
            let gap = last.map(|l| run.x - l.end_x);
            let em = run.size.max(1.0);
            match (cells.last_mut(), gap) {
                (Some(cell), Some(gap)) if gap < CELL_GAP_EMS * em => {
                    if gap > WORD_GAP_EMS * em && !cell.text.ends_with(' ') {
                        cell.text.push(' ');
                    }
                    cell.text.push_str(&run.text);
                    cell.end_x = run.end_x;
                }
                _ => cells.push(Cell {
                    text: run.text.clone(),
                    x: run.x,
                    end_x: run.end_x,
                }),
            }
            last = Some(run);
        }
        for cell in &mut cells {
            cell.text = cell.text.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        cells.retain(|c| !c.text.is_empty());
        cells
    }
}

/// One page: its lines top to bottom, and how much of it images cover (0 to 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub lines: Vec<Line>,
    pub image_cover: f32,
    /// The text white boxes hide, each with what is drawn on it.
    pub covered: Vec<Covering>,
}

/// Text a white box drawn later hides, and the text drawn on the box: how an edit covers a
/// figure and writes a new one. A box drawn before its text (a table's background) hides none.
#[derive(Debug, Clone, PartialEq)]
pub struct Covering {
    pub hidden: Vec<String>,
    pub over: Vec<String>,
}

/// What each white box hides of the runs drawn before it (a run is under a box when its middle
/// is), and the runs drawn on it after. Runs in page space, before lines are made.
fn coverings(runs: &[Run], boxes: &[interpret::WhiteBox]) -> Vec<Covering> {
    let texts = |runs: &[Run], [x0, y0, x1, y1]: [f32; 4]| -> Vec<String> {
        (runs.iter())
            .filter(|r| {
                let (x, y) = ((r.x + r.end_x) / 2.0, r.y + r.size * 0.3);
                x > x0 && x < x1 && y > y0 && y < y1 && !r.text.trim().is_empty()
            })
            .map(|r| r.text.trim().to_string())
            .collect()
    };
    (boxes.iter())
        .filter_map(|b| {
            let before = &runs[..b.runs_before.min(runs.len())];
            let hidden = texts(before, b.rect);
            let after = &runs[b.runs_before.min(runs.len())..];
            (!hidden.is_empty()).then(|| Covering {
                hidden,
                over: texts(after, b.rect),
            })
        })
        .collect()
}

impl Page {
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        self.lines.iter().flat_map(|l| l.runs.iter())
    }

    pub fn has_text(&self) -> bool {
        self.runs()
            .any(|r| r.text.chars().any(char::is_alphanumeric))
    }
}

/// A page whose images cover at least this share of it reads as a scan, even with text over
/// the image (a scanner's recognised text, which the checks can't trust).
pub const SCAN_COVER: f32 = 0.5;

/// `text_layer`: passes when every page has text and no image covers most of it; unknown
/// otherwise (a scan or a photo of a document), with how much of the page images cover.
pub fn text_layer_check(pages: &[Page]) -> Check {
    let blank: Vec<String> = pages
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.has_text() || p.image_cover >= SCAN_COVER)
        .map(|(i, p)| {
            format!(
                "page {} has {}, images cover {:.0}% of it",
                i + 1,
                if p.has_text() {
                    "text over an image"
                } else {
                    "no text"
                },
                p.image_cover * 100.0
            )
        })
        .collect();
    if blank.is_empty() {
        let runs: usize = pages.iter().map(|p| p.runs().count()).sum();
        Check::new(
            names::TEXT_LAYER,
            CheckResult::Pass,
            format!("{} page(s), {runs} text runs", pages.len()),
        )
    } else {
        Check::new(names::TEXT_LAYER, CheckResult::Unknown, blank.join("; "))
    }
}

/// Reads every page's runs, within the limits on inflated content.
pub fn read_pages(doc: &Document, limits: &Limits) -> Result<Vec<Page>, Refusal> {
    let mut budget = limits.max_content_bytes;
    let mut pages = vec![];
    for page_id in doc.get_pages().into_values() {
        let mut reader = Reader::new(doc, limits, &mut budget);
        let (width, height) = page_size(doc, page_id);
        let content = reader.inflate_page(page_id)?;
        let resources = page_resources(doc, page_id);
        reader.run(&content, &resources, Matrix::IDENTITY, 0)?;
        let Reader {
            runs,
            image_area,
            white_boxes,
            ..
        } = reader;
        pages.push(Page {
            covered: coverings(&runs, &white_boxes),
            lines: into_lines(runs, height),
            image_cover: (image_area / (width * height).max(1.0)).min(1.0),
        });
    }
    Ok(pages)
}

fn page_size(doc: &Document, page_id: ObjectId) -> (f32, f32) {
    let mut node = doc.get_dictionary(page_id).ok();
    for _ in 0..16 {
        let Some(dict) = node else { break };
        if let Ok(Object::Array(b)) = dict
            .get(b"MediaBox")
            .and_then(|o| doc.dereference(o))
            .map(|(_, o)| o)
        {
            let n: Vec<f32> = b.iter().filter_map(|o| o.as_float().ok()).collect();
            if let [x0, y0, x1, y1] = n[..] {
                return ((x1 - x0).abs(), (y1 - y0).abs());
            }
        }
        node = dict
            .get(b"Parent")
            .and_then(Object::as_reference)
            .and_then(|id| doc.get_dictionary(id))
            .ok();
    }
    (612.0, 792.0)
}

/// The page's resource dictionary, merged with those it inherits.
fn page_resources(doc: &Document, page_id: ObjectId) -> Dictionary {
    let mut merged = Dictionary::new();
    if let Ok((own, inherited)) = doc.get_page_resources(page_id) {
        for id in inherited.iter().rev() {
            if let Ok(d) = doc.get_dictionary(*id) {
                merged.extend(d);
            }
        }
        if let Some(d) = own {
            merged.extend(d);
        }
    }
    merged
}

/// Runs into lines: a run joins a line whose baseline is within a third of its size.
fn into_lines(mut runs: Vec<Run>, height: f32) -> Vec<Line> {
    for r in &mut runs {
        r.y = height - r.y;
    }
    runs.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
    let mut lines: Vec<Line> = vec![];
    for run in runs {
        match lines.last_mut() {
            Some(line) if (run.y - line.y).abs() <= run.size.max(1.0) / 3.0 => line.runs.push(run),
            _ => lines.push(Line {
                y: run.y,
                runs: vec![run],
            }),
        }
    }
    for line in &mut lines {
        line.runs.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    lines
}
