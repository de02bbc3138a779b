//! Page machinery of the report PDF: a cursor down A4 pages, lines in two weights of Helvetica,
//! label/value rows, word wrapping and page breaks. Knows nothing about reports.

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

const PAGE_WIDTH: f32 = 595.0;
const PAGE_HEIGHT: f32 = 842.0;
const MARGIN: f32 = 56.0;
const VALUE_X: f32 = MARGIN + 190.0;
const REGULAR: Name<'static> = Name(b"F1");
const BOLD: Name<'static> = Name(b"F2");

/// A document being laid out: finished pages plus the one being written.
pub struct Document {
    pages: Vec<Content>,
    current: Content,
    y: f32,
}

impl Default for Document {
    fn default() -> Self {
        Self::new()
    }
}

impl Document {
    pub fn new() -> Self {
        Document {
            pages: Vec::new(),
            current: Content::new(),
            y: PAGE_HEIGHT - MARGIN,
        }
    }

    /// The document's title line.
    pub fn title(&mut self, text: &str) {
        self.line(BOLD, 18.0, MARGIN, text, 10.0);
    }

    /// A small grey line under the title (who generated it, when).
    pub fn subtitle(&mut self, text: &str) {
        self.current.set_fill_gray(0.35);
        self.line(REGULAR, 9.0, MARGIN, text, 5.0);
        self.current.set_fill_gray(0.0);
    }

    /// A section heading with a rule under it.
    pub fn heading(&mut self, text: &str) {
        self.space(10.0);
        self.ensure_room(40.0);
        self.line(BOLD, 12.5, MARGIN, text, 6.0);
        self.current
            .set_line_width(0.6)
            .move_to(MARGIN, self.y)
            .line_to(PAGE_WIDTH - MARGIN, self.y)
            .stroke();
        self.y -= 12.0;
    }

    /// A label and its value on one row; a long value wraps in its column.
    pub fn row(&mut self, label: &str, value: &str) {
        let labels = wrap(label, chars_per_width(VALUE_X - MARGIN - 8.0, 10.0));
        let values = wrap(value, chars_per_width(PAGE_WIDTH - MARGIN - VALUE_X, 10.0));
        let count = labels.len().max(values.len());
        self.ensure_room(14.0 * count as f32);
        for i in 0..count {
            if let Some(label) = labels.get(i) {
                self.text_at(REGULAR, 10.0, MARGIN, self.y - 10.0, label);
            }
            if let Some(value) = values.get(i) {
                self.text_at(BOLD, 10.0, VALUE_X, self.y - 10.0, value);
            }
            self.y -= 14.0;
        }
    }

    /// A paragraph of running text, wrapped to the page width.
    pub fn paragraph(&mut self, text: &str) {
        for line in wrap(text, chars_per_width(PAGE_WIDTH - 2.0 * MARGIN, 10.0)) {
            self.line(REGULAR, 10.0, MARGIN, &line, 4.0);
        }
    }

    /// Vertical space.
    pub fn space(&mut self, height: f32) {
        self.y -= height;
    }

    /// The PDF bytes, every page with its number.
    pub fn finish(mut self, title: &str) -> Vec<u8> {
        let last = std::mem::replace(&mut self.current, Content::new());
        self.pages.push(last);
        let count = self.pages.len();
        let catalog = Ref::new(1);
        let tree = Ref::new(2);
        let regular = Ref::new(3);
        let bold = Ref::new(4);
        let info = Ref::new(5);
        let first_page = 10;
        let mut pdf = Pdf::new();
        pdf.catalog(catalog).pages(tree);
        let page_ids: Vec<Ref> = (0..count)
            .map(|i| Ref::new(first_page + 2 * i as i32))
            .collect();
        pdf.pages(tree)
            .kids(page_ids.iter().copied())
            .count(count as i32);
        for (font, base) in [(regular, "Helvetica"), (bold, "Helvetica-Bold")] {
            pdf.type1_font(font)
                .base_font(Name(base.as_bytes()))
                .encoding_predefined(Name(b"WinAnsiEncoding"));
        }
        pdf.document_info(info)
            .title(TextStr(title))
            .creator(TextStr("Tenant Income Verification Service"));
        for (i, mut content) in self.pages.into_iter().enumerate() {
            let footer = format!("Page {} of {count}", i + 1);
            content
                .begin_text()
                .set_font(REGULAR, 8.0)
                .next_line(PAGE_WIDTH - MARGIN - 60.0, MARGIN / 2.0)
                .show(Str(&win_ansi(&footer)))
                .end_text();
            let page_id = page_ids[i];
            let content_id = Ref::new(page_id.get() + 1);
            let mut page = pdf.page(page_id);
            page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
                .parent(tree)
                .contents(content_id);
            let mut resources = page.resources();
            resources.fonts().pair(REGULAR, regular).pair(BOLD, bold);
            resources.finish();
            page.finish();
            pdf.stream(content_id, &content.finish());
        }
        pdf.finish()
    }

    fn line(&mut self, font: Name<'static>, size: f32, x: f32, text: &str, advance: f32) {
        self.ensure_room(size + advance);
        self.text_at(font, size, x, self.y - size, text);
        self.y -= size + advance;
    }

    fn text_at(&mut self, font: Name<'static>, size: f32, x: f32, y: f32, text: &str) {
        self.current
            .begin_text()
            .set_font(font, size)
            .next_line(x, y)
            .show(Str(&win_ansi(text)))
            .end_text();
    }

    /// Starts a new page when fewer than `height` points are left above the bottom margin.
    fn ensure_room(&mut self, height: f32) {
        if self.y - height < MARGIN {
            let full = std::mem::replace(&mut self.current, Content::new());
            self.pages.push(full);
            self.y = PAGE_HEIGHT - MARGIN;
        }
    }
}

/// How many characters of Helvetica at `size` safely fit in `width` (an average glyph is about
/// half the size; capitals and digits a little more, hence 0.55).
fn chars_per_width(width: f32, size: f32) -> usize {
    ((width / (size * 0.55)) as usize).max(8)
}

/// Splits text into lines of at most `max` characters at spaces (a longer word is cut).
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            let mut word: Vec<char> = word.chars().collect();
            while word.len() > max {
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                lines.push(word.drain(..max).collect());
            }
            let word: String = word.into_iter().collect();
            let len = line.chars().count();
            if len > 0 && len + 1 + word.chars().count() > max {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        lines.push(line);
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

/// Encodes text for the base-14 fonts' WinAnsiEncoding: Latin-1 as is, the typographic marks
/// Windows-1252 adds, and `?` for anything else. Control characters become spaces.
pub fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{ff}' => c as u8,
            '\u{20ac}' => 0x80,
            '\u{2018}' => 0x91,
            '\u{2019}' => 0x92,
            '\u{201c}' => 0x93,
            '\u{201d}' => 0x94,
            '\u{2022}' => 0x95,
            '\u{2013}' => 0x96,
            '\u{2014}' => 0x97,
            '\u{2026}' => 0x85,
            c if c.is_control() => b' ',
            _ => b'?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let lines = wrap("one two three four five six", 9);
        assert_eq!(lines, ["one two", "three", "four five", "six"]);
        let cut = wrap("abcdefghijkl", 5);
        assert_eq!(cut, ["abcde", "fghij", "kl"]);
        assert_eq!(wrap("", 5), [""]);
    }

    #[test]
    fn text_is_encoded_for_win_ansi() {
        assert_eq!(win_ansi("Zoë – 5€"), b"Zo\xeb \x96 5\x80".to_vec());
        assert_eq!(win_ansi("日\n"), b"? ".to_vec());
        // Parentheses and backslashes are escaped by pdf-writer's `Str`, not here.
        assert_eq!(win_ansi("(a\\b)"), b"(a\\b)".to_vec());
    }

    #[test]
    fn a_long_document_breaks_into_numbered_pages() {
        let mut doc = Document::new();
        doc.title("T");
        for i in 0..120 {
            doc.row(&format!("row {i}"), "value");
        }
        let bytes = doc.finish("t");
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.starts_with("%PDF-"));
        assert!(
            text.contains("/Count 3"),
            "120 rows of 14pt need three A4 pages"
        );
        assert!(text.contains("(Page 3 of 3)"));
    }
}
