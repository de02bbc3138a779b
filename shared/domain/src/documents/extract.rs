//! The typed figures of each kind of document, read by their labels. The labels are those of
//! the common US payroll layouts (ADP's "Earnings Statement", Paychex, Gusto, Workday and
//! similar): a value beside its label, or under it in a table's column. A field whose label is
//! not found, or whose value does not parse, is None: never guessed.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::DocumentKind;
use super::fields::{
    all_lines, amounts, amounts_after, date_after, dates_after, normalise, value_text, ytd_first,
};
use super::text::{Line, Page};
use crate::income::PayFrequency;

/// One deduction line of a pay stub (taxes included), this period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deduction {
    pub name: String,
    pub cents: i64,
}

/// What a pay stub states. Amounts in cents.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PayStub {
    pub employer: Option<String>,
    pub employee: Option<String>,
    pub period_start: Option<NaiveDate>,
    pub period_end: Option<NaiveDate>,
    pub pay_date: Option<NaiveDate>,
    pub pay_frequency: Option<PayFrequency>,
    pub gross_cents: Option<i64>,
    pub net_cents: Option<i64>,
    /// Each tax and deduction line, this period.
    pub deductions: Vec<Deduction>,
    /// The total the stub states; None when it prints none.
    pub deductions_total_cents: Option<i64>,
    /// The taxes' subtotal the stub states beside its deductions total; None when it prints none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taxes_total_cents: Option<i64>,
    pub ytd_gross_cents: Option<i64>,
    pub ytd_net_cents: Option<i64>,
}

/// One deposit of a bank statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deposit {
    pub date: NaiveDate,
    pub cents: i64,
    pub payer: String,
}

/// What a bank statement states.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BankStatement {
    pub holder: Option<String>,
    pub period_start: Option<NaiveDate>,
    pub period_end: Option<NaiveDate>,
    pub deposits: Vec<Deposit>,
}

/// What a benefit award letter states.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BenefitLetter {
    pub payer: Option<String>,
    /// The person the letter is addressed to, for the identity check.
    pub recipient: Option<String>,
    pub monthly_cents: Option<i64>,
    pub effective_date: Option<NaiveDate>,
}

/// The figures of one document, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fields {
    PayStub(PayStub),
    BankStatement(BankStatement),
    BenefitLetter(BenefitLetter),
    None,
}

impl Fields {
    /// The name of the person the document is about, with what it was read as.
    pub fn person(&self) -> Option<(&'static str, &str)> {
        match self {
            Fields::PayStub(s) => s.employee.as_deref().map(|n| ("employee", n)),
            Fields::BankStatement(s) => s.holder.as_deref().map(|n| ("account holder", n)),
            Fields::BenefitLetter(l) => l.recipient.as_deref().map(|n| ("recipient", n)),
            Fields::None => None,
        }
    }
}

const STUB_WORDS: &[&str] = &[
    "earnings statement",
    "pay stub",
    "paystub",
    "pay statement",
    "payslip",
    "net pay",
    "gross pay",
    "pay period",
    "pay date",
    "pay day",
    "check date",
    "deductions",
    "ytd",
    "year to date",
    "payroll advice",
    "earnings",
    "gross earnings",
    "gross wages",
    "net check",
    "take home pay",
    "withholdings",
    "period ending",
    "pay frequency",
];
const STATEMENT_WORDS: &[&str] = &[
    "bank statement",
    "account statement",
    "statement period",
    "account number",
    "beginning balance",
    "ending balance",
    "deposits",
    "withdrawals",
    "account summary",
];
const LETTER_WORDS: &[&str] = &[
    "award letter",
    "benefit",
    "benefits",
    "monthly benefit",
    "social security",
    "effective",
    "we are writing",
    "your payment",
    "per month",
    "each month",
];

/// The kind whose words appear most, with at least two of them; Unknown otherwise.
pub fn detect_kind(pages: &[Page]) -> DocumentKind {
    let text = format!(
        " {} ",
        normalise(
            &all_lines(pages)
                .iter()
                .map(Line::text)
                .collect::<Vec<_>>()
                .join(" ")
        )
    );
    let score = |words: &[&str]| {
        words
            .iter()
            .filter(|w| text.contains(&format!(" {} ", normalise(w))))
            .count()
    };
    let scores = [
        (score(STUB_WORDS), DocumentKind::PayStub),
        (score(STATEMENT_WORDS), DocumentKind::BankStatement),
        (score(LETTER_WORDS), DocumentKind::BenefitLetter),
    ];
    let (best, kind) = scores
        .iter()
        .copied()
        .rev()
        .max_by_key(|(s, _)| *s)
        .unwrap_or((0, DocumentKind::Unknown));
    if best >= 2 {
        kind
    } else {
        DocumentKind::Unknown
    }
}

const GROSS: &[&str] = &[
    "gross pay",
    "gross earnings",
    "total gross",
    "gross wages",
    "total earnings",
    "gross",
];
const NET: &[&str] = &["net pay", "net check", "net amount", "take home pay", "net"];
const DEDUCTIONS_TOTAL: &[&str] = &[
    "total deductions",
    "total taxes and deductions",
    "total withholdings",
    "deductions total",
];
const TAXES_TOTAL: &[&str] = &[
    "total taxes",
    "total employee taxes",
    "total tax",
    "taxes total",
    "total withholding taxes",
];
const DEDUCTION_SECTIONS: &[&str] = &[
    "deductions",
    "statutory deductions",
    "taxes",
    "employee taxes",
    "withholdings",
    "pre tax deductions",
    "post tax deductions",
    "voluntary deductions",
    "other deductions",
    "taxes and deductions",
];

/// Headings of a stub's other sections: they end a deductions section.
const OTHER_SECTIONS: &[&str] = &[
    "earnings",
    "summary",
    "hours",
    "net pay",
    "gross",
    "pay distribution",
    "direct deposit",
    "benefits",
    "memo",
    "taxable",
    "time off",
    "paid time off",
    "message",
    "employer paid",
];

/// Words of a stub's own vocabulary: a value holding one is a heading or a label ("Employee
/// Taxes", "Deductions"), never a person's or a company's name.
const NOT_NAME_WORDS: &[&str] = &[
    "id",
    "number",
    "no",
    "code",
    "ssn",
    "address",
    "type",
    "status",
    "taxes",
    "tax",
    "deductions",
    "deduction",
    "earnings",
    "pay",
    "gross",
    "net",
    "total",
    "ytd",
    "period",
    "date",
    "hours",
    "rate",
    "current",
    "amount",
    "description",
    "summary",
    "information",
    "info",
    "details",
    "benefits",
    "withholding",
    "withholdings",
    "statement",
    "department",
    "name",
];

/// A name-like value, trying each label in turn: the label's value when it has letters, no
/// digits and none of a stub's own words.
pub(super) fn name_after(lines: &[Line], labels: &[&'static str]) -> Option<String> {
    labels.iter().find_map(|label| {
        let value = value_text(lines, std::slice::from_ref(label))?;
        let norm = normalise(&value);
        let ok = value.chars().any(char::is_alphabetic)
            && !value.chars().any(|c| c.is_ascii_digit())
            && value.split_whitespace().count() <= 6
            && !norm.split(' ').any(|w| NOT_NAME_WORDS.contains(&w));
        ok.then(|| value.trim_end_matches(',').to_string())
    })
}

/// A pay stub's figures.
pub fn pay_stub(lines: &[Line]) -> PayStub {
    let gross = amounts_after(lines, GROSS);
    let net = amounts_after(lines, NET);
    let (period_start, period_end) = match dates_after(lines, &["pay period", "period"])[..] {
        [start, end, ..] => (Some(start), Some(end)),
        _ => (None, None),
    };
    let period_start = period_start.or_else(|| {
        date_after(
            lines,
            &[
                "period beginning",
                "period begin",
                "period start",
                "period start date",
                "pay period begin",
            ],
        )
    });
    let period_end = period_end.or_else(|| {
        date_after(
            lines,
            &[
                "period ending",
                "period end",
                "period end date",
                "pay period end",
            ],
        )
    });
    PayStub {
        employer: name_after(
            lines,
            &[
                "employer name",
                "employer",
                "company name",
                "paid by",
                "company",
            ],
        )
        .or_else(|| company_line(lines)),
        employee: name_after(
            lines,
            &["employee name", "employee", "pay to the order of", "name"],
        ),
        period_start,
        period_end,
        pay_date: date_after(
            lines,
            &[
                "pay date",
                "pay day",
                "check date",
                "payment date",
                "advice date",
                "paid on",
            ],
        ),
        pay_frequency: value_text(
            lines,
            &["pay frequency", "frequency", "pay schedule", "pay cycle"],
        )
        .and_then(|t| frequency(&t)),
        gross_cents: gross.first().copied(),
        net_cents: net.first().copied(),
        deductions: deduction_lines(lines),
        deductions_total_cents: amounts_after(lines, DEDUCTIONS_TOTAL).first().copied(),
        taxes_total_cents: amounts_after(lines, TAXES_TOTAL).first().copied(),
        ytd_gross_cents: (gross.len() >= 2).then(|| gross[gross.len() - 1]),
        ytd_net_cents: (net.len() >= 2).then(|| net[net.len() - 1]),
    }
}

/// The current period's amount of a row: its first, or its last when the table prints the
/// year to date first.
fn this_period(cells: &[super::text::Cell], ytd_first: bool) -> Option<i64> {
    let mut found = cells
        .iter()
        .skip(1)
        .filter_map(|c| amounts(&c.text).first().copied());
    if ytd_first {
        found.next_back()
    } else {
        found.next()
    }
}

/// Words that end a company's name.
const COMPANY_SUFFIXES: &[&str] = &[
    "inc",
    "llc",
    "corp",
    "corporation",
    "co",
    "company",
    "ltd",
    "lp",
    "llp",
    "plc",
];

/// The first cell of the first lines that ends in a company suffix ("Acme Widgets Inc"): many
/// stubs print the employer's name unlabelled at the top.
fn company_line(lines: &[Line]) -> Option<String> {
    lines.iter().take(5).find_map(|line| {
        let cell = line.cells().into_iter().next()?;
        let last = normalise(&cell.text).rsplit(' ').next()?.to_string();
        COMPANY_SUFFIXES
            .contains(&last.as_str())
            .then_some(cell.text)
    })
}

/// A frequency in words: weekly, biweekly (every two weeks), semi-monthly, monthly.
pub fn frequency(text: &str) -> Option<PayFrequency> {
    let t = normalise(text).replace(' ', "");
    let found = [
        ("semimonthly", PayFrequency::SemiMonthly),
        ("twiceamonth", PayFrequency::SemiMonthly),
        ("biweekly", PayFrequency::Biweekly),
        ("everytwoweeks", PayFrequency::Biweekly),
        ("everyotherweek", PayFrequency::Biweekly),
        ("fortnightly", PayFrequency::Biweekly),
        ("weekly", PayFrequency::Weekly),
        ("monthly", PayFrequency::Monthly),
    ];
    found
        .iter()
        .find(|(w, _)| t.starts_with(w))
        .map(|(_, f)| *f)
}

/// The lines of the deduction sections: each line under a section heading, up to the next line
/// without an amount, or a total, gross or net line.
fn deduction_lines(lines: &[Line]) -> Vec<Deduction> {
    let mut found = vec![];
    let mut inside = false;
    for (index, line) in lines.iter().enumerate() {
        let cells = line.cells();
        let Some(first) = cells.first() else { continue };
        let label = normalise(&first.text);
        let has_amount = cells.iter().skip(1).any(|c| !amounts(&c.text).is_empty());
        let stop = DEDUCTIONS_TOTAL
            .iter()
            .chain(GROSS)
            .chain(NET)
            .any(|l| label.starts_with(l));
        if !has_amount {
            // A heading opens or closes the deductions; a table's column headers leave it.
            let heading = normalise(&line.text());
            let opens = |names: &[&str]| {
                names
                    .iter()
                    .any(|s| heading == *s || heading.starts_with(&format!("{s} ")))
            };
            if opens(DEDUCTION_SECTIONS) {
                inside = true;
            } else if opens(OTHER_SECTIONS) {
                inside = false;
            }
            continue;
        }
        if stop {
            inside = false;
            continue;
        }
        // A subtotal ("Total Taxes") repeats lines already read; what the employer pays
        // (a 401(k) match) is no deduction from the pay.
        let subtotal = label.starts_with("total")
            || label.starts_with("subtotal")
            || label.ends_with(" total");
        if subtotal || label.contains("employer") {
            continue;
        }
        if inside
            && amounts(&first.text).is_empty()
            && let Some(cents) = this_period(&cells, ytd_first(lines, index))
        {
            found.push(Deduction {
                name: first.text.trim_end_matches(':').to_string(),
                cents,
            });
        }
    }
    found
}
