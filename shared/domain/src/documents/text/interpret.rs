//! The content-stream interpreter: runs a page's operators with the graphics and text state a
//! viewer keeps, and records each text run and each image's footprint.

use std::collections::BTreeMap;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::Run;
use super::font::{FontInfo, push_unligatured};
use crate::documents::intake::{Limits, Refusal};

/// An affine matrix [a b c d e f], as PDF writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matrix([f32; 6]);

impl Matrix {
    pub const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

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
    /// The fill colour is white (gray 1, RGB 1 1 1, CMYK 0 0 0 0).
    white_fill: bool,
}

/// A white filled rectangle in page space (x0, y0, x1, y1), and how many runs were drawn
/// before it: text under it drawn earlier is hidden.
#[derive(Debug, Clone, PartialEq)]
pub struct WhiteBox {
    pub rect: [f32; 4],
    pub runs_before: usize,
}

/// At most this many white boxes (and rectangles of one path) are kept for a page.
const MAX_BOXES: usize = 1_000;

pub struct Reader<'a, 'b> {
    doc: &'a Document,
    limits: &'b Limits,
    budget: &'b mut usize,
    fonts: BTreeMap<ObjectId, FontInfo<'a>>,
    pub runs: Vec<Run>,
    pub image_area: f32,
    /// The rectangles of the path being built.
    path: Vec<[f32; 4]>,
    pub white_boxes: Vec<WhiteBox>,
}

/// At most this many text runs are kept for a page; a pay stub has a few hundred.
pub const MAX_RUNS: usize = 10_000;

/// Form XObjects nest at most this deep.
const MAX_FORM_DEPTH: usize = 8;

impl<'a, 'b> Reader<'a, 'b> {
    pub fn new(doc: &'a Document, limits: &'b Limits, budget: &'b mut usize) -> Self {
        Reader {
            doc,
            limits,
            budget,
            fonts: BTreeMap::new(),
            runs: vec![],
            image_area: 0.0,
            path: vec![],
            white_boxes: vec![],
        }
    }

    fn take(&mut self, bytes: usize) -> Result<(), Refusal> {
        *self.budget = self.budget.checked_sub(bytes).ok_or(Refusal::Inflates {
            limit: self.limits.max_content_bytes,
        })?;
        Ok(())
    }

    pub fn inflate_page(&mut self, page_id: ObjectId) -> Result<Vec<u8>, Refusal> {
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

    pub fn run(
        &mut self,
        content: &[u8],
        resources: &Dictionary,
        ctm: Matrix,
        depth: usize,
    ) -> Result<(), Refusal> {
        let mut state = State {
            ctm,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            scale: 1.0,
            leading: 0.0,
            rise: 0.0,
            white_fill: false,
        };
        let mut stack: Vec<State> = vec![];
        let mut tm = Matrix::IDENTITY;
        let mut tlm = Matrix::IDENTITY;
        let mut font_id: Option<ObjectId> = None;
        // One operation at a time: a long stream never sits in memory as a list of operations.
        for op in Content::decode_iter(content) {
            let Ok(op) = op else { break };
            let nums: Vec<f32> = op
                .operands
                .iter()
                .filter_map(|o| o.as_float().ok())
                .collect();
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
                "g" => state.white_fill = nums.len() == 1 && nums[0] >= 0.99,
                "rg" => state.white_fill = nums.len() == 3 && nums.iter().all(|c| *c >= 0.99),
                "k" => state.white_fill = nums.len() == 4 && nums.iter().all(|c| *c <= 0.01),
                "sc" | "scn" => {
                    state.white_fill = match nums.len() {
                        1 | 3 => nums.iter().all(|c| *c >= 0.99),
                        4 => nums.iter().all(|c| *c <= 0.01),
                        _ => false,
                    }
                }
                "cs" => state.white_fill = false,
                "re" => {
                    if let [x, y, w, h] = nums[..]
                        && self.path.len() < MAX_BOXES
                    {
                        let (x0, y0) = state.ctm.apply(x, y);
                        let (x1, y1) = state.ctm.apply(x + w, y + h);
                        self.path
                            .push([x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)]);
                    }
                }
                "f" | "F" | "f*" | "B" | "B*" | "b" | "b*" => {
                    if state.white_fill {
                        let room = MAX_BOXES.saturating_sub(self.white_boxes.len());
                        let runs_before = self.runs.len();
                        let boxes = self.path.drain(..).take(room);
                        self.white_boxes
                            .extend(boxes.map(|rect| WhiteBox { rect, runs_before }));
                    }
                    self.path.clear();
                }
                "n" | "S" | "s" => self.path.clear(),
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

    /// Appends runs, up to [`MAX_RUNS`] per page.
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
                    // A wide gap inside one TJ separates words or columns; a wide step back
                    // (a column drawn left of the one before) starts a run of its own too.
                    if !(-200.0..=200.0).contains(&n)
                        && let Some(run) = current.take()
                    {
                        finished.push(run);
                    }
                }
            }
        }
        finished.extend(current);
        let room = MAX_RUNS.saturating_sub(self.runs.len());
        self.runs.extend(
            finished
                .into_iter()
                .filter(|r| !r.text.is_empty())
                .take(room),
        );
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
