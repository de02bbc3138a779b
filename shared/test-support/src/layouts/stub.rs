//! Pay stubs: who, when and how often in one of three header styles, then the earnings,
//! deductions, employer-paid and net pay tables.

use chrono::{Duration, NaiveDate};
use domain::income::PayFrequency;

use super::{
    Align, Block, Cell, Draw, EMPLOYERS, Face, PEOPLE, SPLIT, cell, date_words, money,
    printed_name, right,
};

/// What a generated stub states: the fields the analysis should read, or report missing.
#[derive(Debug, Clone, PartialEq)]
pub struct StubTruth {
    pub employer: String,
    pub employee: String,
    /// The tenant's name as the verification holds it (the stub may write it another way).
    pub tenant: String,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub pay_date: NaiveDate,
    /// None when the stub prints no frequency.
    pub frequency: Option<PayFrequency>,
    pub gross_cents: i64,
    pub net_cents: i64,
    pub ytd_gross_cents: i64,
    pub ytd_net_cents: i64,
}

pub(super) fn truth(d: &mut Draw) -> StubTruth {
    let (first, middle, last) = *d.pick(PEOPLE);
    let employee = printed_name(d, (first, middle, last));
    let frequency = *d.pick(&[
        PayFrequency::Weekly,
        PayFrequency::Biweekly,
        PayFrequency::Biweekly,
        PayFrequency::SemiMonthly,
        PayFrequency::Monthly,
    ]);
    let year_start = NaiveDate::from_ymd_opt(2026, 1, 1).expect("a date");
    let (period_start, period_end, n) = match frequency {
        PayFrequency::Weekly | PayFrequency::Biweekly => {
            let days = if frequency == PayFrequency::Weekly {
                7
            } else {
                14
            };
            let n = 1 + d.below(if days == 7 { 45 } else { 22 }) as i64;
            let start = year_start + Duration::days(days * (n - 1) + 3);
            (start, start + Duration::days(days - 1), n)
        }
        PayFrequency::SemiMonthly => {
            let month = 1 + d.below(11) as u32;
            let second = d.chance(50);
            let start = NaiveDate::from_ymd_opt(2026, month, if second { 16 } else { 1 });
            let start = start.expect("a date");
            let end = if second {
                NaiveDate::from_ymd_opt(2026, month + 1, 1).expect("a date") - Duration::days(1)
            } else {
                NaiveDate::from_ymd_opt(2026, month, 15).expect("a date")
            };
            (start, end, 2 * month as i64 - 1 + second as i64)
        }
        _ => {
            let month = 1 + d.below(11) as u32;
            let start = NaiveDate::from_ymd_opt(2026, month, 1).expect("a date");
            let end = NaiveDate::from_ymd_opt(2026, month + 1, 1).expect("a date");
            (start, end - Duration::days(1), month as i64)
        }
    };
    // Up to 3 days before the period's end (a Friday before a Saturday end), up to 14 after.
    let lag = d.below(18) as i64 - 3;
    let pay_date = period_end + Duration::days(lag);
    let gross_cents = 40_000 + d.below(500_000) as i64;
    let net_cents = gross_cents - deductions_of(gross_cents).iter().sum::<i64>();
    StubTruth {
        employer: d.pick(EMPLOYERS).to_string(),
        employee,
        tenant: format!("{first} {last}"),
        period_start,
        period_end,
        pay_date,
        frequency: (!d.chance(8)).then_some(frequency),
        gross_cents,
        net_cents,
        ytd_gross_cents: gross_cents * n,
        ytd_net_cents: net_cents * n,
    }
}

/// This period's taxes (federal, social security, Medicare, state) and deductions (401(k),
/// medical), from gross pay.
fn deductions_of(gross: i64) -> [i64; 6] {
    let share = |per_mille: i64| gross * per_mille / 1000;
    [
        share(110),
        share(62),
        share(14) + 1,
        share(41),
        share(50),
        (gross / 40).min(12_500),
    ]
}

const TAX_NAMES: [&str; 4] = [
    "Federal Income Tax",
    "Social Security",
    "Medicare",
    "State Income Tax",
];
const DEDUCTION_NAMES: [&str; 2] = ["401(k)", "Medical Plan"];

fn frequency_words(d: &mut Draw, f: PayFrequency) -> &'static str {
    match f {
        PayFrequency::Weekly => "Weekly",
        PayFrequency::Biweekly => d.word(&["Biweekly", "Bi-Weekly", "Every two weeks"]),
        PayFrequency::SemiMonthly => d.word(&["Semi-Monthly", "Semimonthly", "Twice a month"]),
        _ => "Monthly",
    }
}

/// The rows of the stub's header: who, when and how often, in one of three styles.
fn info_rows(d: &mut Draw, t: &StubTruth) -> Vec<Block> {
    let colon = if d.chance(50) { ":" } else { "" };
    let employee_label = d.word(&["Employee Name", "Employee", "Name"]);
    let pay_date_label = d.word(&["Pay Date", "Check Date", "Pay Day", "Payment Date"]);
    let mut fields: Vec<(String, String)> = vec![(employee_label.into(), t.employee.clone())];
    let extras = [
        ("Employee ID", format!("{:06}", d.below(999_999))),
        ("SSN", format!("XXX-XX-{:04}", d.below(9999))),
        (
            "Department",
            d.word(&["Warehouse", "Nursing", "Sales"]).to_string(),
        ),
        ("Check Number", format!("{:07}", d.below(9_999_999))),
    ];
    for (label, value) in extras {
        if d.chance(60) {
            fields.push((label.into(), value));
        }
    }
    if d.chance(50) {
        let (s, e) = (date_words(d, t.period_start), date_words(d, t.period_end));
        fields.push(("Pay Period".into(), format!("{s} - {e}")));
    } else {
        let (b, e) = *d.pick(&[
            ("Period Beginning", "Period Ending"),
            ("Period Start", "Period End"),
        ]);
        fields.push((b.into(), date_words(d, t.period_start)));
        fields.push((e.into(), date_words(d, t.period_end)));
    }
    fields.push((pay_date_label.into(), date_words(d, t.pay_date)));
    if let Some(f) = t.frequency {
        let label = d.word(&["Pay Frequency", "Frequency", "Pay Schedule"]);
        fields.push((label.into(), frequency_words(d, f).into()));
    }
    // The extra rows among the others, in another order each time; the employee's row first
    // half the time, so "Employee ID" often stands right under "Employee".
    if d.chance(50) {
        let tail = fields.split_off(1);
        let mut tail = tail;
        for i in (1..tail.len()).rev() {
            tail.swap(i, d.below(i + 1));
        }
        fields.extend(tail);
    }
    let mut rows = vec![];
    match d.below(3) {
        // One run "Label: value".
        0 => {
            for (label, value) in fields {
                rows.push(Block::Row(vec![cell(
                    40.0,
                    format!("{label}: {value}"),
                    Face::Regular,
                )]));
            }
        }
        // Label and value in two columns.
        1 => {
            for (label, value) in fields {
                rows.push(Block::Row(vec![
                    cell(40.0, format!("{label}{colon}"), Face::Bold),
                    cell(170.0, value, Face::Regular),
                ]));
            }
        }
        // Header tables: labels on one row, values under them, three columns at a time.
        _ => {
            for chunk in fields.chunks(3) {
                let xs = [40.0, 230.0, 420.0];
                let heads = (chunk.iter().zip(xs))
                    .map(|((l, _), x)| cell(x, l.clone(), Face::Bold))
                    .collect();
                let values = (chunk.iter().zip(xs))
                    .map(|((_, v), x)| cell(x, v.clone(), Face::Regular))
                    .collect();
                rows.push(Block::Row(heads));
                rows.push(Block::Row(values));
                rows.push(Block::Gap);
            }
        }
    }
    rows
}

/// How a layout prints its amount columns: right-aligned or not, a dollar sign (none, attached,
/// or in a run of its own), thousands separators or none.
struct Columns {
    right: bool,
    dollar: usize,
    grouped: bool,
}

impl Columns {
    fn draw(d: &mut Draw) -> Columns {
        Columns {
            right: d.chance(50),
            dollar: [0, 0, 0, 1, 1, 2][d.below(6)],
            grouped: !d.chance(15),
        }
    }

    /// The right edge of a column starting at `x`.
    fn edge(x: f32) -> f32 {
        x + 70.0
    }

    fn head(&self, x: f32, text: &str) -> Cell {
        if self.right {
            right(Self::edge(x), text, Face::Bold)
        } else {
            cell(x, text, Face::Bold)
        }
    }

    /// An amount; `negative` 1 prints it with a minus, 2 in parentheses.
    fn amount(&self, x: f32, cents: i64, negative: usize, face: Face) -> Cell {
        let number = if self.grouped {
            money(cents)
        } else {
            format!("{}.{:02}", cents / 100, cents % 100)
        };
        let number = if self.dollar == 1 {
            format!("${number}")
        } else {
            number
        };
        let text = match negative {
            1 => format!("-{number}"),
            2 => format!("({number})"),
            _ => number,
        };
        match (self.right, self.dollar) {
            (true, 2) => Cell {
                x: Self::edge(x),
                text,
                face,
                align: Align::Accounting,
            },
            (true, _) => right(Self::edge(x), text, face),
            (false, 2) => cell(x, format!("$ {text}"), face),
            _ => cell(x, text, face),
        }
    }
}

/// The earnings, deductions and net pay tables.
fn money_rows(d: &mut Draw, t: &StubTruth) -> Vec<Vec<Block>> {
    let n = t.ytd_gross_cents / t.gross_cents;
    let (cur, ytd) = if d.chance(50) {
        (330.0, 450.0)
    } else {
        (300.0, 420.0)
    };
    // The year to date before the current column, as some payroll layouts print it.
    let (cur, ytd) = if d.chance(20) { (ytd, cur) } else { (cur, ytd) };
    let cols = Columns::draw(d);
    let hours = d.chance(50);
    let (cur_head, ytd_head) = *d.pick(&[
        ("Current", "YTD"),
        ("This Period", "Year to Date"),
        ("Current", "Year-to-Date"),
    ]);
    let total_face = *d.pick(&[Face::Bold, Face::Bold, Face::OtherBold]);
    let mut earnings = vec![Block::Row(
        [
            vec![cell(40.0, d.word(&["Earnings", "Description"]), Face::Bold)],
            if hours {
                vec![
                    cell(170.0, "Hours", Face::Bold),
                    cell(230.0, "Rate", Face::Bold),
                ]
            } else {
                vec![]
            },
            vec![cols.head(cur, cur_head), cols.head(ytd, ytd_head)],
        ]
        .concat(),
    )];
    let mut regular = vec![cell(40.0, "Regular", Face::Regular)];
    if hours {
        regular.push(cell(170.0, "80.00", Face::Regular));
        regular.push(cell(
            230.0,
            format!("{:.4}", t.gross_cents as f64 / 8000.0),
            Face::Regular,
        ));
    }
    regular.push(cols.amount(cur, t.gross_cents, 0, Face::Regular));
    regular.push(cols.amount(ytd, t.ytd_gross_cents, 0, Face::Regular));
    earnings.push(Block::Row(regular));
    let mut gross = vec![cell(
        40.0,
        d.word(&["Gross Pay", "Gross Earnings", "Total Gross", "Gross Wages"]),
        total_face,
    )];
    if hours && d.chance(60) {
        gross.push(cell(170.0, "80.00", total_face));
    }
    gross.push(cols.amount(cur, t.gross_cents, 0, total_face));
    gross.push(cols.amount(ytd, t.ytd_gross_cents, 0, total_face));
    earnings.push(Block::Row(gross));

    let parts = deductions_of(t.gross_cents);
    let style = d.below(3);
    let line = |name: &str, c: i64| {
        Block::Row(vec![
            cell(40.0, name, Face::Regular),
            cols.amount(cur, c, style, Face::Regular),
            cols.amount(ytd, c * n, 0, Face::Regular),
        ])
    };
    let head = |name: &str| {
        Block::Row(vec![
            cell(40.0, name, Face::Bold),
            cols.head(cur, cur_head),
            cols.head(ytd, ytd_head),
        ])
    };
    let taxes: i64 = parts[..4].iter().sum();
    let others: i64 = parts[4..].iter().sum();
    let mut deductions = vec![];
    let separate = d.chance(40);
    if separate {
        deductions.push(head(d.word(&[
            "Taxes",
            "Employee Taxes",
            "Statutory Deductions",
        ])));
    } else {
        deductions.push(head(d.word(&[
            "Deductions",
            "Taxes and Deductions",
            "Withholdings",
        ])));
    }
    for (name, c) in TAX_NAMES.iter().zip(&parts[..4]) {
        deductions.push(line(name, *c));
    }
    let subtotal = separate || d.chance(40);
    if subtotal {
        deductions.push(Block::Row(vec![
            cell(40.0, "Total Taxes", Face::Bold),
            cols.amount(cur, taxes, 0, Face::Bold),
            cols.amount(ytd, taxes * n, 0, Face::Bold),
        ]));
    }
    if separate {
        deductions.push(Block::Gap);
        deductions.push(head(d.word(&[
            "Deductions",
            "Pre Tax Deductions",
            "Other Deductions",
        ])));
    }
    for (name, c) in DEDUCTION_NAMES.iter().zip(&parts[4..]) {
        deductions.push(line(name, *c));
    }
    if separate || d.chance(60) {
        let total = if separate { others } else { taxes + others };
        deductions.push(Block::Row(vec![
            cell(40.0, "Total Deductions", total_face),
            cols.amount(cur, total, 0, total_face),
            cols.amount(ytd, total * n, 0, total_face),
        ]));
    }
    let mut employer_paid = vec![];
    if d.chance(40) {
        employer_paid.push(head("Employer Paid Benefits"));
        let matched = t.gross_cents / 40;
        employer_paid.push(Block::Row(vec![
            cell(40.0, "Employer 401(k) Match", Face::Regular),
            cols.amount(cur, matched, 0, Face::Regular),
            cols.amount(ytd, matched * n, 0, Face::Regular),
        ]));
    }
    let net = vec![Block::Row(vec![
        cell(
            40.0,
            d.word(&["Net Pay", "Net Check", "Take Home Pay"]),
            total_face,
        ),
        cols.amount(cur, t.net_cents, 0, total_face),
        cols.amount(ytd, t.ytd_net_cents, 0, total_face),
    ])];
    vec![earnings, deductions, employer_paid, net]
}

pub(super) fn blocks(d: &mut Draw, t: &StubTruth) -> Vec<Block> {
    let mut out = vec![];
    let labelled_employer = d.chance(50);
    if !labelled_employer {
        out.push(Block::Row(vec![cell(40.0, t.employer.clone(), Face::Bold)]));
        // The employer's address under its name, as printed on a mailed stub.
        if d.chance(50) {
            for line in ["1200 Industrial Parkway, Suite 4", "Columbus, OH 43215"] {
                out.push(Block::Row(vec![cell(40.0, line, Face::Regular)]));
            }
        }
    }
    let title = d.word(&[
        "Earnings Statement",
        "Pay Statement",
        "Payroll Advice",
        "Pay Stub",
    ]);
    out.push(Block::Title(title.into()));
    if labelled_employer {
        let label = d.word(&["Company", "Employer", "Employer Name"]);
        out.push(Block::Row(vec![
            cell(40.0, label, Face::Bold),
            cell(170.0, t.employer.clone(), Face::Regular),
        ]));
    }
    out.push(Block::Gap);
    out.extend(info_rows(d, t));
    out.push(Block::Gap);
    let sections = money_rows(d, t);
    let break_before = if d.chance(35) { 1 + d.below(3) } else { 9 };
    for (i, section) in sections.into_iter().enumerate() {
        if section.is_empty() {
            continue;
        }
        if i == break_before {
            out.push(Block::PageBreak);
            // The next page repeats who the stub is from and for.
            if d.chance(60) {
                out.push(Block::Row(vec![
                    cell(40.0, t.employer.clone(), Face::Bold),
                    cell(450.0, "Page 2 of 2", Face::Regular),
                ]));
                out.push(Block::Row(vec![cell(
                    40.0,
                    format!("Employee: {}", t.employee),
                    Face::Regular,
                )]));
                out.push(Block::Gap);
            }
        }
        out.extend(section);
        out.push(Block::Gap);
    }
    if d.chance(50) {
        out.push(Block::Row(vec![cell(
            40.0,
            "Keep this statement for your records.",
            Face::Regular,
        )]));
    }
    // Labels whose words are runs of their own, as producers that place each word write them.
    if d.chance(25) {
        for block in &mut out {
            if let Block::Row(cells) = block {
                for c in cells
                    .iter_mut()
                    .filter(|c| c.x == 40.0 && c.align == Align::Left)
                {
                    c.text = c.text.replace(' ', &SPLIT.to_string());
                }
            }
        }
    }
    out
}
