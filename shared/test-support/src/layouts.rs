//! A generator of genuine documents in layouts the analysis has never seen: pay stubs
//! (`stub`), bank statements (`statement`) and benefit award letters (`letter`). Each is drawn
//! from a seed, with the figures it states (`Truth`), and rendered three ways (`render`):
//! straight to PDF, as HTML for Chromium's print, and as PostScript for Ghostscript.
//! The variations are those real producers show: label words with and without colons, extra
//! rows, columns in other orders, right-aligned amounts, subtotals, several pages, dates in
//! several forms, names written four ways.

use chrono::{Datelike, NaiveDate};

mod letter;
pub mod render;
mod statement;
mod stub;

pub use letter::LetterTruth;
pub use statement::{StatementDeposit, StatementTruth};
pub use stub::StubTruth;

/// The kinds of document the generator draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Stub,
    Statement,
    Letter,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Stub, Kind::Statement, Kind::Letter];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Stub => "pay stub",
            Kind::Statement => "bank statement",
            Kind::Letter => "benefit letter",
        }
    }
}

/// What a generated document states: the fields the analysis should read, or report missing.
#[derive(Debug, Clone, PartialEq)]
pub enum Truth {
    Stub(StubTruth),
    Statement(StatementTruth),
    Letter(LetterTruth),
}

impl Truth {
    /// The tenant's name as the verification holds it (the document may write it another way).
    pub fn tenant(&self) -> &str {
        match self {
            Truth::Stub(t) => &t.tenant,
            Truth::Statement(t) => &t.tenant,
            Truth::Letter(t) => &t.tenant,
        }
    }
}

/// The font of a cell: the layout's regular and bold, and a bold of another family for totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Face {
    Regular,
    Bold,
    OtherBold,
}

/// Where a cell's `x` stands: its left edge, or its right edge (amounts in columns); or its
/// right edge with a dollar sign in a run of its own at the column's left, as accounting
/// layouts print money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
    Accounting,
}

/// Joins the words of a left-aligned cell that are drawn as runs of their own.
pub const SPLIT: char = '\u{1f}';

/// One run of text at a column, in points from the page's left edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub x: f32,
    pub text: String,
    pub face: Face,
    pub align: Align,
}

/// The document, top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Row(Vec<Cell>),
    Title(String),
    Gap,
    PageBreak,
}

/// A generated document: what it states, and how it is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub seed: u64,
    pub truth: Truth,
    pub blocks: Vec<Block>,
}

impl Layout {
    /// The layout of a kind and a seed.
    pub fn of(kind: Kind, seed: u64) -> Layout {
        let mut d = Draw(seed ^ 0x5EED_1A70);
        let (truth, blocks) = match kind {
            Kind::Stub => {
                let t = stub::truth(&mut d);
                let blocks = stub::blocks(&mut d, &t);
                (Truth::Stub(t), blocks)
            }
            Kind::Statement => {
                let mut t = statement::truth(&mut d);
                let blocks = statement::blocks(&mut d, &mut t);
                (Truth::Statement(t), blocks)
            }
            Kind::Letter => {
                let t = letter::truth(&mut d);
                let blocks = letter::blocks(&mut d, &t);
                (Truth::Letter(t), blocks)
            }
        };
        Layout {
            seed,
            truth,
            blocks,
        }
    }
}

/// splitmix64: a small, fixed generator, so a seed always draws the same layout.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }
}

pub(crate) const EMPLOYERS: &[&str] = &[
    "Acme Widgets Inc",
    "Northwind Traders LLC",
    "Blue Harbor Logistics Corp",
    "Riverside Care Partners LLC",
    "Summit Foods Co",
    "Granite Peak Builders Inc",
];
const PEOPLE: &[(&str, &str, &str)] = &[
    ("Jane", "Q", "Doe"),
    ("Marcus", "T", "Okafor"),
    ("Li", "W", "Chen"),
    ("Sofia", "M", "Alvarez"),
    ("Robert", "J", "Kowalski"),
    ("Aisha", "N", "Rahman"),
];

/// Money as stubs print it: `1,234.56`.
pub fn money(cents: i64) -> String {
    crate::documents::amount(cents)
}

/// A person's name as documents print it, in one of four forms.
fn printed_name(d: &mut Draw, (first, middle, last): (&str, &str, &str)) -> String {
    match d.below(4) {
        0 => format!("{first} {middle}. {last}"),
        1 => format!("{} {}", first.to_uppercase(), last.to_uppercase()),
        2 => format!("{}, {} {middle}", last.to_uppercase(), first.to_uppercase()),
        _ => format!("{first} {last}"),
    }
}

fn date_words(d: &mut Draw, date: NaiveDate) -> String {
    match d.below(3) {
        0 => date.format("%m/%d/%Y").to_string(),
        1 => date.format("%Y-%m-%d").to_string(),
        _ => format!("{} {}, {}", date.format("%b"), date.day(), date.year()),
    }
}

fn cell(x: f32, text: impl Into<String>, face: Face) -> Cell {
    Cell {
        x,
        text: text.into(),
        face,
        align: Align::Left,
    }
}

/// An amount whose right edge stands at `x`, as columns of figures print them.
fn right(x: f32, text: impl Into<String>, face: Face) -> Cell {
    Cell {
        x,
        text: text.into(),
        face,
        align: Align::Right,
    }
}
