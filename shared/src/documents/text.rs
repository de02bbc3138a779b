//! Each page's text as positioned runs, from the page's content stream: every text-showing
//! operator becomes a run with its position (top-down, in points), its font and its size. Runs
//! group into lines by their baseline, left to right, and lines read top to bottom. Images drawn
//! on the page count towards how much of it they cover (a scan is one image over the page).

use std::collections::BTreeMap;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::intake::{Limits, Refusal};
use super::{Check, CheckResult, names};

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
}

impl Page {
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        self.lines.iter().flat_map(|l| l.runs.iter())
    }

    pub fn has_text(&self) -> bool {
        self.runs().any(|r| r.text.chars().any(char::is_alphanumeric))
    }
}

/// A page whose images cover at least this share of it, with no text, reads as a scan.
pub const SCAN_COVER: f32 = 0.5;

/// `text_layer`: passes when every page has text; unknown when a page has none (a scan or a
/// photo of a document), with how much of it images cover.
pub fn text_layer_check(pages: &[Page]) -> Check {
    let blank: Vec<String> = pages
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.has_text())
        .map(|(i, p)| {
            format!(
                "page {} has no text, images cover {:.0}% of it",
                i + 1,
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
            runs, image_area, ..
        } = reader;
        pages.push(Page {
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
        if let Ok(Object::Array(b)) = dict.get(b"MediaBox").and_then(|o| doc.dereference(o)).map(|(_, o)| o) {
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

/// An affine matrix [a b c d e f], as PDF writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Matrix([f32; 6]);

impl Matrix {
    const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    fn translate(x: f32, y: f32) -> Matrix {
        Matrix([1.0, 0.0, 0.0, 1.0, x, y])
    }

    /// self × other: apply self, then other.
    fn then(self, o: Matrix) -> Matrix {
        let [a, b, c, d, e, f] = self.0;
        let [oa, ob, oc, od, oe, of] = o.0;
        Matrix([
            a * oa + b * oc,
            a * ob + b * od,
            c * oa + d * oc,
            c * ob + d * od,
            e * oa + f * oc + oe,
            e * ob + f * od + of,
        ])
    }

    fn apply(self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }

    fn from_operands(ops: &[Object]) -> Option<Matrix> {
        let n: Vec<f32> = ops.iter().filter_map(|o| o.as_float().ok()).collect();
        let m: [f32; 6] = n.try_into().ok()?;
        Some(Matrix(m))
    }
}

/// What a font needs to decode and measure its codes.
struct FontInfo<'a> {
    name: String,
    encoding: Option<lopdf::Encoding<'a>>,
    two_byte: bool,
    widths: BTreeMap<u32, f32>,
    default_width: f32,
}

impl<'a> FontInfo<'a> {
    fn load(doc: &'a Document, dict: &'a Dictionary, limit: usize) -> Result<Self, Refusal> {
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
        Ok(FontInfo {
            name,
            encoding,
            two_byte,
            widths,
            default_width,
        })
    }

    /// The codes of a string, each with its text and width in thousandths of the font size.
    fn glyphs(&self, bytes: &[u8]) -> Vec<(String, f32, bool)> {
        let step = if self.two_byte { 2 } else { 1 };
        bytes
            .chunks(step)
            .map(|code| {
                let number = code.iter().fold(0u32, |n, b| n * 256 + *b as u32);
                let text = match &self.encoding {
                    Some(e) => e.bytes_to_string(code).unwrap_or_default(),
                    None => code.iter().map(|b| *b as char).collect(),
                };
                let width = self.widths.get(&number).copied().unwrap_or(self.default_width);
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

/// Graphics and text state while a content stream runs.
#[derive(Clone)]
struct State {
    ctm: Matrix,
    font: Option<Vec<u8>>,
    size: f32,
    char_spacing: f32,
    word_spacing: f32,
    scale: f32,
    leading: f32,
    rise: f32,
}

struct Reader<'a, 'b> {
    doc: &'a Document,
    limits: &'b Limits,
    budget: &'b mut usize,
    fonts: BTreeMap<ObjectId, FontInfo<'a>>,
    runs: Vec<Run>,
    image_area: f32,
}

/// Form XObjects nest at most this deep.
const MAX_FORM_DEPTH: usize = 8;

impl<'a, 'b> Reader<'a, 'b> {
    fn new(doc: &'a Document, limits: &'b Limits, budget: &'b mut usize) -> Self {
        Reader {
            doc,
            limits,
            budget,
            fonts: BTreeMap::new(),
            runs: vec![],
            image_area: 0.0,
        }
    }

    fn take(&mut self, bytes: usize) -> Result<(), Refusal> {
        *self.budget = self.budget.checked_sub(bytes).ok_or(Refusal::Inflates {
            limit: self.limits.max_content_bytes,
        })?;
        Ok(())
    }

    fn inflate_page(&mut self, page_id: ObjectId) -> Result<Vec<u8>, Refusal> {
        let limit = self.limits.max_stream_bytes.min(*self.budget);
        let mut content = vec![];
        for id in self.doc.get_page_contents(page_id) {
            let Ok(stream) = self.doc.get_object(id).and_then(Object::as_stream) else {
                continue;
            };
            let bytes = inflate(stream, limit)?;
            self.take(bytes.len())?;
            content.extend_from_slice(&bytes);
            content.push(b'\n');
        }
        Ok(content)
    }

    fn font(&mut self, resources: &Dictionary, name: &[u8]) -> Result<Option<ObjectId>, Refusal> {
        let doc = self.doc;
        let Some((id, dict)) = resources
            .get_deref(b"Font", doc)
            .and_then(Object::as_dict)
            .and_then(|fonts| fonts.get(name))
            .ok()
            .and_then(|o| match o {
                Object::Reference(id) => doc.get_dictionary(*id).ok().map(|d| (*id, d)),
                _ => None,
            })
        else {
            return Ok(None);
        };
        if !self.fonts.contains_key(&id) {
            let info = FontInfo::load(doc, dict, self.limits.max_stream_bytes)?;
            self.fonts.insert(id, info);
        }
        Ok(Some(id))
    }

    fn run(
        &mut self,
        content: &[u8],
        resources: &Dictionary,
        ctm: Matrix,
        depth: usize,
    ) -> Result<(), Refusal> {
        let Ok(content) = Content::decode(content) else {
            return Ok(());
        };
        let mut state = State {
            ctm,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        };
        let mut stack: Vec<State> = vec![];
        let mut tm = Matrix::IDENTITY;
        let mut tlm = Matrix::IDENTITY;
        let mut font_id: Option<ObjectId> = None;
        for op in &content.operations {
            let nums: Vec<f32> = op.operands.iter().filter_map(|o| o.as_float().ok()).collect();
            match op.operator.as_str() {
                "q" if stack.len() < 64 => stack.push(state.clone()),
                "Q" => {
                    if let Some(s) = stack.pop() {
                        state = s;
                        font_id = None;
                    }
                }
                "cm" => {
                    if let Some(m) = Matrix::from_operands(&op.operands) {
                        state.ctm = m.then(state.ctm);
                    }
                }
                "BT" => {
                    tm = Matrix::IDENTITY;
                    tlm = Matrix::IDENTITY;
                }
                "Tf" => {
                    if let (Some(Ok(name)), Some(size)) =
                        (op.operands.first().map(Object::as_name), nums.first())
                    {
                        state.font = Some(name.to_vec());
                        state.size = *size;
                        font_id = None;
                    }
                }
                "Tc" => state.char_spacing = nums.first().copied().unwrap_or(0.0),
                "Tw" => state.word_spacing = nums.first().copied().unwrap_or(0.0),
                "Tz" => state.scale = nums.first().copied().unwrap_or(100.0) / 100.0,
                "TL" => state.leading = nums.first().copied().unwrap_or(0.0),
                "Ts" => state.rise = nums.first().copied().unwrap_or(0.0),
                "Td" | "TD" => {
                    if let [x, y] = nums[..] {
                        if op.operator == "TD" {
                            state.leading = -y;
                        }
                        tlm = Matrix::translate(x, y).then(tlm);
                        tm = tlm;
                    }
                }
                "Tm" => {
                    if let Some(m) = Matrix::from_operands(&op.operands) {
                        tm = m;
                        tlm = m;
                    }
                }
                "T*" => {
                    tlm = Matrix::translate(0.0, -state.leading).then(tlm);
                    tm = tlm;
                }
                "Tj" | "'" | "\"" | "TJ" => {
                    if op.operator != "Tj" && op.operator != "TJ" {
                        tlm = Matrix::translate(0.0, -state.leading).then(tlm);
                        tm = tlm;
                    }
                    if op.operator == "\"" && nums.len() >= 2 {
                        state.word_spacing = nums[0];
                        state.char_spacing = nums[1];
                    }
                    if font_id.is_none()
                        && let Some(name) = state.font.clone()
                    {
                        font_id = self.font(resources, &name)?;
                    }
                    let Some(fid) = font_id else { continue };
                    let parts: Vec<&Object> = match (op.operator.as_str(), op.operands.last()) {
                        ("TJ", Some(Object::Array(items))) => items.iter().collect(),
                        (_, Some(last)) => vec![last],
                        _ => vec![],
                    };
                    self.show(fid, &parts, &state, &mut tm);
                }
                "Do" => {
                    if let Some(Ok(name)) = op.operands.first().map(Object::as_name) {
                        self.draw_xobject(resources, name, &state, depth)?;
                    }
                }
                "EI" => self.image_area += unit_square_area(state.ctm),
                _ => {}
            }
        }
        Ok(())
    }

    fn show(&mut self, fid: ObjectId, parts: &[&Object], state: &State, tm: &mut Matrix) {
        let font = &self.fonts[&fid];
        let size = state.size;
        let mut current: Option<Run> = None;
        let mut finished = vec![];
        let render = |tm: Matrix| {
            Matrix([size * state.scale, 0.0, 0.0, size, 0.0, state.rise])
                .then(tm)
                .then(state.ctm)
        };
        for part in parts {
            match part {
                Object::String(bytes, _) => {
                    for (text, width, space) in font.glyphs(bytes) {
                        let m = render(*tm);
                        let (x, y) = m.apply(0.0, 0.0);
                        let em = (m.0[2] * m.0[2] + m.0[3] * m.0[3]).sqrt();
                        let advance = (width / 1000.0 * size
                            + state.char_spacing
                            + if space { state.word_spacing } else { 0.0 })
                            * state.scale;
                        *tm = Matrix::translate(advance, 0.0).then(*tm);
                        let (end_x, _) = render(*tm).apply(0.0, 0.0);
                        let run = current.get_or_insert_with(|| Run {
                            text: String::new(),
                            x,
                            end_x: x,
                            y,
                            size: em,
                            font: font.name.clone(),
                        });
                        push_unligatured(&mut run.text, &text);
                        run.end_x = end_x;
                    }
                }
                other => {
                    let Ok(n) = other.as_float() else { continue };
                    let advance = -n / 1000.0 * size * state.scale;
                    *tm = Matrix::translate(advance, 0.0).then(*tm);
                    // A wide gap inside one TJ separates words or columns.
                    if n < -200.0 {
                        if let Some(run) = current.take() {
                            finished.push(run);
                        }
                    }
                }
            }
        }
        finished.extend(current);
        self.runs.extend(finished.into_iter().filter(|r| !r.text.is_empty()));
    }

    fn draw_xobject(
        &mut self,
        resources: &Dictionary,
        name: &[u8],
        state: &State,
        depth: usize,
    ) -> Result<(), Refusal> {
        let doc = self.doc;
        let Ok(stream) = resources
            .get_deref(b"XObject", doc)
            .and_then(Object::as_dict)
            .and_then(|x| x.get_deref(name, doc))
            .and_then(Object::as_stream)
        else {
            return Ok(());
        };
        match stream.dict.get(b"Subtype").and_then(Object::as_name) {
            Ok(b"Image") => self.image_area += unit_square_area(state.ctm),
            Ok(b"Form") if depth < MAX_FORM_DEPTH => {
                let bytes = inflate(stream, self.limits.max_stream_bytes.min(*self.budget))?;
                self.take(bytes.len())?;
                let matrix = stream
                    .dict
                    .get(b"Matrix")
                    .and_then(Object::as_array)
                    .ok()
                    .and_then(|m| Matrix::from_operands(m))
                    .unwrap_or(Matrix::IDENTITY);
                let inner = stream
                    .dict
                    .get_deref(b"Resources", doc)
                    .and_then(Object::as_dict)
                    .unwrap_or(resources)
                    .clone();
                self.run(&bytes, &inner, matrix.then(state.ctm), depth + 1)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Appends text with typographic ligatures (fi, ff, ...) spelled out, so labels compare.
fn push_unligatured(out: &mut String, text: &str) {
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

/// A stream's content, inflated within `limit` bytes.
fn inflate(stream: &lopdf::Stream, limit: usize) -> Result<Vec<u8>, Refusal> {
    if stream.dict.get(b"Filter").is_err() {
        return Ok(stream.content.clone());
    }
    stream
        .decompressed_content_with_limit(limit)
        .map_err(|e| match e {
            lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => {
                Refusal::Inflates { limit }
            }
            other => Refusal::Corrupt(other.to_string()),
        })
}

/// The area the unit square covers under a matrix (an image's footprint on the page).
fn unit_square_area(m: Matrix) -> f32 {
    let [a, b, c, d, _, _] = m.0;
    (a * d - b * c).abs()
}
