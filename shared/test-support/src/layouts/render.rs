//! A generated layout drawn three ways: straight to PDF (pdf-writer, the standard 14 fonts), as
//! HTML whose cells stand where the layout puts them (for Chromium's print), and as PostScript
//! (for Ghostscript's `pdfwrite`). The same rows, so the same figures, from three producers.

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use super::{Align, Block, Face, Layout, SPLIT};

const PAGE_WIDTH: f32 = 612.0;
const PAGE_HEIGHT: f32 = 792.0;
const TOP: f32 = 56.0;
const ROW: f32 = 14.0;
const GAP: f32 = 8.0;
const SIZE: f32 = 9.0;
const TITLE_SIZE: f32 = 14.0;

/// One positioned run: page, x, distance of its baseline from the top, size, face, text.
struct Placed<'a> {
    page: usize,
    x: f32,
    y: f32,
    size: f32,
    face: Face,
    /// Words joined by `SPLIT` are drawn as runs of their own, a space apart.
    text: &'a str,
    /// The right edge a right-aligned run ends at: Chromium aligns it itself, in whatever font
    /// it has.
    right_edge: Option<f32>,
}

fn placed<'a>(layout: &'a Layout) -> Vec<Placed<'a>> {
    let (mut page, mut y) = (0, TOP);
    let mut out = vec![];
    for block in &layout.blocks {
        match block {
            Block::Title(text) => {
                y += TITLE_SIZE + 4.0;
                out.push(Placed {
                    page,
                    x: 40.0,
                    y,
                    size: TITLE_SIZE,
                    face: Face::Bold,
                    text,
                    right_edge: None,
                });
                y += 4.0;
            }
            Block::Row(cells) => {
                y += ROW;
                for c in cells {
                    let at = |x: f32, text: &'a str| Placed {
                        page,
                        x,
                        y,
                        size: SIZE,
                        face: c.face,
                        text,
                        right_edge: None,
                    };
                    match c.align {
                        Align::Left => out.push(at(c.x, &c.text)),
                        Align::Right | Align::Accounting => {
                            if c.align == Align::Accounting {
                                out.push(at(c.x - 75.0, "$"));
                            }
                            out.push(Placed {
                                right_edge: Some(c.x),
                                ..at(c.x - width(&c.text, c.face, SIZE), &c.text)
                            });
                        }
                    }
                }
            }
            Block::Gap => y += GAP,
            Block::PageBreak => {
                page += 1;
                y = TOP;
            }
        }
    }
    out
}

/// A text's width in points, by the standard fonts' metrics (Helvetica, Helvetica-Bold and
/// Times-Bold), so a right-aligned amount ends where its column does.
pub(super) fn width(text: &str, face: Face, size: f32) -> f32 {
    use domain::documents::text::metrics::{FIRST_CODE, standard_widths};
    let font = match face {
        Face::Regular => "Helvetica",
        Face::Bold => "Helvetica-Bold",
        Face::OtherBold => "Times-Bold",
    };
    let table = standard_widths(font).expect("a standard font");
    let em: f32 = (text.chars())
        .map(|c| {
            let code = (c as u32).wrapping_sub(FIRST_CODE) as usize;
            table.get(code).copied().unwrap_or(556.0)
        })
        .sum();
    em * size / 1000.0
}

fn pages(layout: &Layout) -> usize {
    1 + (layout.blocks.iter())
        .filter(|b| matches!(b, Block::PageBreak))
        .count()
}

fn font_name(face: Face) -> Name<'static> {
    match face {
        Face::Regular => Name(b"F1"),
        Face::Bold => Name(b"F2"),
        Face::OtherBold => Name(b"F3"),
    }
}

impl Layout {
    /// The stub as a PDF, written in-process.
    pub fn pdf(&self) -> Vec<u8> {
        let count = pages(self);
        let (catalog, tree, info) = (Ref::new(1), Ref::new(2), Ref::new(3));
        let fonts = [
            (Face::Regular, Ref::new(4), "Helvetica"),
            (Face::Bold, Ref::new(5), "Helvetica-Bold"),
            (Face::OtherBold, Ref::new(6), "Times-Bold"),
        ];
        let page_ids: Vec<Ref> = (0..count).map(|i| Ref::new(10 + 2 * i as i32)).collect();
        let mut pdf = Pdf::new();
        pdf.catalog(catalog).pages(tree);
        pdf.pages(tree)
            .kids(page_ids.iter().copied())
            .count(count as i32);
        let runs = placed(self);
        for (i, id) in page_ids.iter().enumerate() {
            let content_id = Ref::new(11 + 2 * i as i32);
            let mut page = pdf.page(*id);
            page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
                .parent(tree)
                .contents(content_id);
            let mut resources = page.resources();
            let mut names = resources.fonts();
            for (face, font, _) in fonts {
                names.pair(font_name(face), font);
            }
            names.finish();
            resources.finish();
            page.finish();
            let mut content = Content::new();
            for r in runs.iter().filter(|r| r.page == i) {
                let mut x = r.x;
                for word in r.text.split(SPLIT) {
                    content
                        .begin_text()
                        .set_font(font_name(r.face), r.size)
                        .next_line(x, PAGE_HEIGHT - r.y)
                        .show(Str(word.as_bytes()))
                        .end_text();
                    x += width(&format!("{word} "), r.face, r.size);
                }
            }
            pdf.stream(content_id, &content.finish());
        }
        for (_, id, base) in fonts {
            pdf.type1_font(id)
                .base_font(Name(base.as_bytes()))
                .encoding_predefined(Name(b"WinAnsiEncoding"));
        }
        pdf.document_info(info)
            .producer(TextStr("Layout Generator 1.0"))
            .creation_date(pdf_writer::Date::new(2026).month(11).day(20).hour(9));
        pdf.finish()
    }

    /// The stub as HTML: each cell where the layout puts it, a page per `PageBreak`.
    pub fn html(&self) -> String {
        let mut html = String::from(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>\
             @page { size: 612pt 792pt; margin: 0 }\
             body { margin: 0 }\
             .page { position: relative; width: 612pt; height: 792pt; page-break-after: always; }\
             .page:last-child { page-break-after: auto; }\
             span { position: absolute; white-space: pre; font-family: Helvetica, Arial, sans-serif; }\
             span.w { position: static; font-family: inherit; }\
             .b { font-weight: bold; } .o { font-weight: bold; font-family: 'Times New Roman', serif; }\
             </style></head><body>",
        );
        let runs = placed(self);
        for page in 0..pages(self) {
            html.push_str("<div class=\"page\">");
            for r in runs.iter().filter(|r| r.page == page) {
                let class = match r.face {
                    Face::Regular => "",
                    Face::Bold => "b",
                    Face::OtherBold => "o",
                };
                // The span's top is the baseline less the font's ascent (about 0.9 em).
                let side = match r.right_edge {
                    Some(edge) => format!("right:{}pt", PAGE_WIDTH - edge),
                    None => format!("left:{}pt", r.x),
                };
                // Split words as spans of their own, laid out by Chromium in its own font.
                let words: Vec<String> = (r.text.split(SPLIT))
                    .map(|w| format!("<span class=\"w\">{}</span>", escape_html(w)))
                    .collect();
                html.push_str(&format!(
                    "<span class=\"{class}\" style=\"{side};top:{}pt;font-size:{}pt\">{}</span>",
                    r.y - r.size * 0.9,
                    r.size,
                    words.join(" ")
                ));
            }
            html.push_str("</div>");
        }
        html.push_str("</body></html>");
        html
    }

    /// The stub as PostScript, for Ghostscript's `pdfwrite`.
    pub fn postscript(&self) -> String {
        let mut ps = String::from("%!PS-Adobe-3.0\n%%Title: pay statement\n");
        let runs = placed(self);
        for page in 0..pages(self) {
            ps.push_str("<< /PageSize [612 792] >> setpagedevice\n");
            for r in runs.iter().filter(|r| r.page == page) {
                let font = match r.face {
                    Face::Regular => "Helvetica",
                    Face::Bold => "Helvetica-Bold",
                    Face::OtherBold => "Times-Bold",
                };
                let words: Vec<String> = (r.text.split(SPLIT))
                    .map(|w| {
                        let w = w
                            .replace('\\', "\\\\")
                            .replace('(', "\\(")
                            .replace(')', "\\)");
                        format!("({w}) show")
                    })
                    .collect();
                ps.push_str(&format!(
                    "/{font} findfont {} scalefont setfont {} {} moveto {}\n",
                    r.size,
                    r.x,
                    PAGE_HEIGHT - r.y,
                    words.join(" ( ) show ")
                ));
            }
            ps.push_str("showpage\n");
        }
        ps
    }
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
