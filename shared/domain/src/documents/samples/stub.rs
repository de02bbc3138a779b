//! A sample pay stub's figures and its PDF, written with `pdf-writer` in the label-and-table
//! layout of the common payroll systems (an "Earnings Statement" as ADP prints it).

use chrono::{Datelike, Duration, NaiveDate};
use pdf_writer::{Content, Date, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use crate::affordability::format_money;

const PAGE_WIDTH: f32 = 612.0;
const PAGE_HEIGHT: f32 = 792.0;
const REGULAR: Name<'static> = Name(b"F1");
const BOLD: Name<'static> = Name(b"F2");
/// The font of the one amount drawn apart (`SampleStub::net_in_other_font`).
const OTHER: Name<'static> = Name(b"F3");

/// A biweekly pay stub whose figures add up unless told otherwise.
#[derive(Clone)]
pub struct SampleStub {
    pub employer: String,
    pub employee: String,
    pub pay_date: NaiveDate,
    /// Gross pay this period, in cents.
    pub gross: i64,
    /// Added to the printed net pay (a total that no longer adds up).
    pub net_error: i64,
    /// Added to the printed year-to-date gross and net (a year-to-date that goes backwards).
    pub ytd_error: i64,
    /// The net pay drawn in Times instead of Helvetica.
    pub net_in_other_font: bool,
    /// The file's creation time, as its `/CreationDate` says.
    pub created: (NaiveDate, u8),
}

impl SampleStub {
    /// The pay number of the year: biweekly pays since January 1st, this one included.
    pub fn pays_this_year(&self) -> i64 {
        i64::from(self.pay_date.ordinal0()) / 14 + 1
    }

    /// Federal, Social Security, Medicare, state and 401(k), this period.
    pub fn deductions(&self) -> [(&'static str, i64); 5] {
        let g = self.gross;
        [
            ("Federal Income Tax", g / 10),
            ("Social Security Tax", g * 62 / 1000),
            ("Medicare Tax", g * 145 / 10000),
            ("State Income Tax", g * 4 / 100),
            ("401(k)", g * 5 / 100),
        ]
    }

    /// What the figures make the net pay (before any `net_error`).
    pub fn net(&self) -> i64 {
        self.gross - self.deductions().iter().map(|(_, c)| c).sum::<i64>()
    }

    /// The net pay as printed.
    pub fn printed_net(&self) -> String {
        format!("${}", amount(self.net() + self.net_error))
    }

    /// The pay period: two weeks ending five days before the pay date.
    pub fn period(&self) -> (NaiveDate, NaiveDate) {
        let end = self.pay_date - Duration::days(5);
        (end - Duration::days(13), end)
    }

    /// The stub as a one-page PDF.
    pub fn pdf(&self) -> Vec<u8> {
        let n = self.pays_this_year();
        let us = |d: NaiveDate| d.format("%m/%d/%Y").to_string();
        let (start, end) = self.period();
        let mut page = Page::default();
        page.text(BOLD, 16.0, 48.0, "Earnings Statement");
        page.down(12.0);
        for line in [
            format!("Employer: {}", self.employer),
            format!("Employee Name: {}", self.employee),
            format!("Period Beginning: {}", us(start)),
            format!("Period Ending: {}", us(end)),
            format!("Pay Date: {}", us(self.pay_date)),
            "Pay Frequency: Biweekly".to_string(),
        ] {
            page.text(REGULAR, 10.0, 48.0, &line);
        }
        page.down(10.0);
        let columns = [48.0, 260.0, 380.0];
        page.row(BOLD, &columns, &["Earnings", "This Period", "Year to Date"]);
        let ytd_gross = self.gross * n + self.ytd_error;
        page.row(
            REGULAR,
            &columns,
            &[
                "Gross Pay",
                &format!("${}", amount(self.gross)),
                &format!("${}", amount(ytd_gross)),
            ],
        );
        page.down(8.0);
        page.row(
            BOLD,
            &columns,
            &["Deductions", "This Period", "Year to Date"],
        );
        for (name, cents) in self.deductions() {
            page.row(
                REGULAR,
                &columns,
                &[name, &format!("-{}", amount(cents)), &amount(cents * n)],
            );
        }
        page.down(8.0);
        let net_font = if self.net_in_other_font {
            OTHER
        } else {
            REGULAR
        };
        let ytd_net = self.net() * n + self.ytd_error;
        page.text(BOLD, 10.0, columns[0], "Net Pay");
        page.up_one();
        page.text(net_font, 10.0, columns[1], &self.printed_net());
        page.up_one();
        page.text(REGULAR, 10.0, columns[2], &format!("${}", amount(ytd_net)));
        page.down(10.0);
        page.text(
            REGULAR,
            8.0,
            48.0,
            "Sample document of the income verification sandbox: not a real pay stub.",
        );
        page.finish(
            &format!("Earnings Statement {}", us(self.pay_date)),
            self.created,
        )
    }
}

/// Cents as `1,234.56`.
pub fn amount(cents: i64) -> String {
    format_money(cents).trim_start_matches('$').to_string()
}

/// One page being written, top to bottom.
struct Page {
    content: Content,
    y: f32,
    last_advance: f32,
}

impl Default for Page {
    fn default() -> Self {
        Page {
            content: Content::new(),
            y: PAGE_HEIGHT - 56.0,
            last_advance: 0.0,
        }
    }
}

impl Page {
    /// One run of text at `x`, on a new line.
    fn text(&mut self, font: Name<'static>, size: f32, x: f32, text: &str) {
        self.y -= size + 4.0;
        self.last_advance = size + 4.0;
        self.content
            .begin_text()
            .set_font(font, size)
            .next_line(x, self.y)
            .show(Str(text.as_bytes()))
            .end_text();
    }

    /// Back to the line just written (the next run sits beside the last).
    fn up_one(&mut self) {
        self.y += self.last_advance;
    }

    fn down(&mut self, height: f32) {
        self.y -= height;
    }

    /// A table row: one run per column.
    fn row(&mut self, font: Name<'static>, columns: &[f32], cells: &[&str]) {
        for (i, (x, cell)) in columns.iter().zip(cells).enumerate() {
            if i > 0 {
                self.up_one();
            }
            self.text(font, 10.0, *x, cell);
        }
    }

    fn finish(self, title: &str, (created_day, created_hour): (NaiveDate, u8)) -> Vec<u8> {
        let (catalog, tree, page_id, content_id, info) = (
            Ref::new(1),
            Ref::new(2),
            Ref::new(3),
            Ref::new(4),
            Ref::new(5),
        );
        let fonts = [
            (REGULAR, Ref::new(6), "Helvetica"),
            (BOLD, Ref::new(7), "Helvetica-Bold"),
            (OTHER, Ref::new(8), "Times-Roman"),
        ];
        let mut pdf = Pdf::new();
        pdf.catalog(catalog).pages(tree);
        pdf.pages(tree).kids([page_id]).count(1);
        let mut page = pdf.page(page_id);
        page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
            .parent(tree)
            .contents(content_id);
        let mut resources = page.resources();
        let mut font_names = resources.fonts();
        for (name, id, _) in fonts {
            font_names.pair(name, id);
        }
        font_names.finish();
        resources.finish();
        page.finish();
        for (_, id, base) in fonts {
            pdf.type1_font(id)
                .base_font(Name(base.as_bytes()))
                .encoding_predefined(Name(b"WinAnsiEncoding"));
        }
        let created = Date::new(created_day.year() as u16)
            .month(created_day.month() as u8)
            .day(created_day.day() as u8)
            .hour(created_hour);
        pdf.document_info(info)
            .title(TextStr(title))
            .producer(TextStr("Payroll Sample Writer 1.0"))
            .creation_date(created);
        pdf.stream(content_id, &self.content.finish());
        pdf.finish()
    }
}
