//! Reading figures out of text: amounts (in cents), dates, and the value that follows a label on
//! its line or stands below it in the next one. Nothing here guesses: a label that is not found,
//! or a value that does not parse, is None.

use chrono::NaiveDate;

use super::text::{Cell, Line, Page};

mod columns;

pub(crate) use columns::ytd_first;
use columns::{is_amount_cell, quantity_columns};

/// An amount in cents from a token such as `$1,234.56`, `1234.56`, `(12.00)` or `-12.00`. The
/// amount must have exactly two decimals, so hours, rates and years are not read as money.
pub fn money(token: &str) -> Option<i64> {
    let t = token.trim().trim_end_matches([',', ';', ':', '.']);
    let negative =
        t.starts_with('-') || (t.starts_with('(') && t.ends_with(')')) || t.ends_with('-');
    let t = t.trim_matches(|c| c == '(' || c == ')' || c == '-' || c == '+');
    let t = t
        .strip_prefix("US$")
        .or_else(|| t.strip_prefix('$'))
        .unwrap_or(t);
    let t = t.trim_start_matches('$');
    let (whole, cents) = t.rsplit_once('.')?;
    if cents.len() != 2 || !cents.chars().all(|c| c.is_ascii_digit()) || whole.is_empty() {
        return None;
    }
    let groups: Vec<&str> = whole.split(',').collect();
    let grouped_ok = groups.len() == 1
        || (groups[0].len() <= 3
            && !groups[0].is_empty()
            && groups[1..].iter().all(|g| g.len() == 3));
    if !grouped_ok || !groups.iter().all(|g| g.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let whole: i64 = groups.concat().parse().ok()?;
    let value = whole.checked_mul(100)? + cents.parse::<i64>().ok()?;
    Some(if negative { -value } else { value })
}

/// Every amount in a text, in order (absolute values: deductions are often printed negative).
pub fn amounts(text: &str) -> Vec<i64> {
    text.split_whitespace()
        .filter_map(money)
        .map(i64::abs)
        .collect()
}

/// Cents as dollars, `1234.5` → `$1,234.50`.
pub fn dollars(cents: i64) -> String {
    crate::affordability::format_money(cents)
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// The first date in a text: `11/14/2026`, `11/14/26`, `2026-11-14`, `Nov 14, 2026` or
/// `November 14, 2026`.
pub fn date(text: &str) -> Option<NaiveDate> {
    dates(text).into_iter().next()
}

/// Every date in a text, in order.
pub fn dates(text: &str) -> Vec<NaiveDate> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '–' || c == '—')
        .filter(|w| !w.is_empty() && *w != "-" && *w != "to" && *w != "through")
        .collect();
    let mut found = vec![];
    let mut i = 0;
    while i < words.len() {
        let w = words[i].trim_matches(|c: char| c == ',' || c == '(' || c == ')' || c == ':');
        let w = w
            .strip_suffix('.')
            .filter(|w| numeric_date(w).is_some())
            .unwrap_or(w);
        if let Some(d) = numeric_date(w) {
            found.push(d);
        } else if let Some(month) = month_of(w)
            && let (Some(day), Some(year)) = (words.get(i + 1), words.get(i + 2))
            && let (Ok(day), Ok(year)) = (
                day.trim_end_matches(',').parse::<u32>(),
                year.trim_end_matches([',', '.', ')']).parse::<i32>(),
            )
            && let Some(d) = NaiveDate::from_ymd_opt(year, month, day)
        {
            found.push(d);
            i += 2;
        }
        i += 1;
    }
    found
}

fn month_of(word: &str) -> Option<u32> {
    const FULL: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    FULL.iter()
        .position(|m| m.starts_with(&w) || (w == "sept" && *m == "september"))
        .filter(|i| w.starts_with(MONTHS[*i]))
        .map(|i| i as u32 + 1)
}

fn numeric_date(w: &str) -> Option<NaiveDate> {
    if let Ok(d) = NaiveDate::parse_from_str(w, "%Y-%m-%d") {
        return Some(d);
    }
    let parts: Vec<&str> = w.split('/').collect();
    let [m, d, y] = parts[..] else { return None };
    let (m, d): (u32, u32) = (m.parse().ok()?, d.parse().ok()?);
    let y: i32 = match y.len() {
        4 => y.parse().ok()?,
        2 => 2000 + y.parse::<i32>().ok()?,
        _ => return None,
    };
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Lowercase letters and digits, single spaces: the form labels are compared in.
pub fn normalise(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a label was found: the line, and the cell that starts with it.
pub struct Found<'a> {
    pub label: &'static str,
    pub line_index: usize,
    pub line: &'a Line,
    pub cell: Cell,
    /// The line's text after the label (the label's cell included).
    pub rest: String,
}

/// Words that, after a label such as "Employee", make it another field's label ("Employee ID",
/// "Employee Number"): that cell is not the label sought.
pub const QUALIFIERS: &[&str] = &[
    "id",
    "number",
    "no",
    "num",
    "code",
    "ssn",
    "address",
    "type",
    "status",
    "department",
    "dept",
    "signature",
    "benefits",
    "paid",
    "contribution",
    "contributions",
    "match",
    "account",
    "name",
];

/// The first line (over all pages) whose cell starts with one of `labels` (normalised), not
/// followed by a word that makes it another field's label.
pub fn find_label<'a>(lines: &'a [Line], labels: &[&'static str]) -> Option<Found<'a>> {
    for label in labels {
        for (line_index, line) in lines.iter().enumerate() {
            let cells = line.cells();
            for (k, cell) in cells.iter().enumerate() {
                let norm = normalise(&cell.text);
                let qualified = norm
                    .strip_prefix(&format!("{label} "))
                    .and_then(|rest| rest.split(' ').next())
                    .is_some_and(|next| QUALIFIERS.contains(&next));
                if (norm == *label || norm.starts_with(&format!("{label} "))) && !qualified {
                    let rest = cells[k..]
                        .iter()
                        .map(|c| c.text.as_str())
                        .collect::<Vec<_>>()
                        .join("  ");
                    let rest = rest[label_end(&rest, label)..].to_string();
                    return Some(Found {
                        label,
                        line_index,
                        line,
                        cell: cell.clone(),
                        rest,
                    });
                }
            }
        }
    }
    None
}

/// The byte offset just past a label's words at the start of `text`.
fn label_end(text: &str, label: &str) -> usize {
    let mut words = label.split(' ').count();
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let alnum = c.is_alphanumeric();
        if in_word && !alnum {
            words -= 1;
            if words == 0 {
                return i;
            }
        }
        in_word = alnum;
    }
    text.len()
}

/// The cell of the next line that stands under a cell (their spans overlap).
pub fn below(lines: &[Line], line_index: usize, cell: &Cell) -> Option<String> {
    let next = lines.get(line_index + 1)?;
    next.cells()
        .into_iter()
        .find(|c| c.x < cell.end_x && c.end_x > cell.x)
        .map(|c| c.text)
}

/// The labels of the common layouts' fields: a cell that is one of them (or ends in a colon) is
/// a label, never a value.
const KNOWN_LABELS: &[&str] = &[
    "employee",
    "employee name",
    "employee id",
    "employee number",
    "employer",
    "employer name",
    "company",
    "company name",
    "name",
    "ssn",
    "social security",
    "department",
    "dept",
    "location",
    "job title",
    "title",
    "position",
    "check number",
    "check no",
    "advice number",
    "pay date",
    "check date",
    "pay day",
    "payment date",
    "advice date",
    "pay period",
    "period",
    "period beginning",
    "period ending",
    "period start",
    "period end",
    "pay frequency",
    "frequency",
    "pay schedule",
    "pay cycle",
    "pay type",
    "pay rate",
    "rate",
    "hours",
    "current",
    "this period",
    "year to date",
    "ytd",
    "gross pay",
    "net pay",
    "net check",
    "deductions",
    "taxes",
    "earnings",
    "address",
    "account",
    "federal",
    "state",
    "filing status",
    "allowances",
    "description",
    "amount",
    "total",
    "memo",
];

/// Whether a cell reads as a label rather than a value.
pub fn is_label(text: &str) -> bool {
    let norm = normalise(text);
    text.trim_end().ends_with(':')
        || KNOWN_LABELS.iter().any(|l| {
            norm == *l
                || norm.strip_prefix(l).is_some_and(|r| r.starts_with(' '))
                    && !norm.chars().any(|c| c.is_ascii_digit())
                    && norm.split(' ').count() <= 4
        })
}

/// Whether a line is a table's header: two cells or more, every one a label.
fn is_header(line: &Line) -> bool {
    let cells = line.cells();
    cells.len() >= 2 && cells.iter().all(|c| is_label(&c.text))
}

/// The value of a label: the rest of its own cell; else, in a table's header, the cell under
/// it; else the next cell on its line. A cell that is itself a label is never the value ("Employee"
/// above "Employee ID" has no value there), so such a field is missing rather than misread.
pub fn value_text(lines: &[Line], labels: &[&'static str]) -> Option<String> {
    let found = find_label(lines, labels)?;
    let own = &found.cell.text[label_end(&found.cell.text, found.label)..];
    let own = own.trim_start_matches([':', ' ', '#', '-']).trim();
    if !own.is_empty() {
        return Some(own.to_string());
    }
    let cells = found.line.cells();
    let next = cells
        .iter()
        .find(|c| c.x >= found.cell.end_x)
        .map(|c| c.text.clone());
    let value = |t: &Option<String>| t.clone().filter(|t| !is_label(t));
    if next.as_deref().is_none_or(is_label) || is_header(found.line) {
        return value(&below(lines, found.line_index, &found.cell));
    }
    value(&next)
}

/// The dates after a label: on the rest of its line, else in the cell under it.
pub fn dates_after(lines: &[Line], labels: &[&'static str]) -> Vec<NaiveDate> {
    let Some(found) = find_label(lines, labels) else {
        return vec![];
    };
    let on_line = dates(&found.rest);
    if !on_line.is_empty() {
        return on_line;
    }
    below(lines, found.line_index, &found.cell)
        .map(|t| dates(&t))
        .unwrap_or_default()
}

/// The amounts that follow a label: the amount cells right after it on its line, or else the
/// amount cells standing under it, line after line (a table's column: current, then
/// year-to-date).
pub fn amounts_after(lines: &[Line], labels: &[&'static str]) -> Vec<i64> {
    let Some(found) = find_label(lines, labels) else {
        return vec![];
    };
    let own = &found.cell.text[label_end(&found.cell.text, found.label)..];
    let mut on_line = amounts(own);
    let not_money = quantity_columns(lines, found.line_index);
    for cell in found
        .line
        .cells()
        .iter()
        .filter(|c| c.x >= found.cell.end_x)
        .filter(|c| !not_money.iter().any(|(x, end)| c.x < *end && c.end_x > *x))
    {
        // A dollar sign in a run of its own stands before its amount.
        if cell.text.trim() == "$" {
            continue;
        }
        let found_here = amounts(&cell.text);
        if found_here.is_empty() || !is_amount_cell(&cell.text) {
            break;
        }
        on_line.extend(found_here);
    }
    if on_line.len() >= 2 && ytd_first(lines, found.line_index) {
        on_line.reverse();
    }
    if !on_line.is_empty() {
        return on_line;
    }
    let mut column = vec![];
    let mut at = found.line_index;
    while let Some(text) = below(lines, at, &found.cell) {
        if !is_amount_cell(&text) {
            break;
        }
        column.extend(amounts(&text));
        at += 1;
    }
    column
}

/// The first date after a label, on its line or under it.
pub fn date_after(lines: &[Line], labels: &[&'static str]) -> Option<NaiveDate> {
    dates_after(lines, labels).into_iter().next()
}

/// Words of an organisation's name: a line holding one is a letterhead, never a person.
const ORGANISATION_NAME_WORDS: &[&str] = &[
    "bank",
    "credit",
    "union",
    "savings",
    "trust",
    "financial",
    "federal",
    "national",
    "administration",
    "department",
    "agency",
    "office",
    "board",
    "system",
    "fund",
    "retirement",
    "services",
    "inc",
    "llc",
    "corp",
    "co",
    "company",
    "statement",
    "account",
];

/// The name of a mailing address block: a line of two to five words of letters, then a line
/// starting with a number (the street), then "City, ST 12345". The first line of the page is a
/// letterhead, and a line with an organisation's word is no person, so neither is read.
pub fn address_block_name(lines: &[Line]) -> Option<String> {
    lines.windows(3).take(25).skip(1).find_map(|w| {
        let name = w[0].text();
        let words: Vec<String> = normalise(&name).split(' ').map(str::to_string).collect();
        let person = (2..=5).contains(&words.len())
            && name
                .chars()
                .all(|c| c.is_alphabetic() || " .,'-".contains(c))
            && !words
                .iter()
                .any(|x| ORGANISATION_NAME_WORDS.contains(&x.as_str()));
        let street = w[1]
            .text()
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit());
        let city = w[2].text();
        let city_words: Vec<&str> = city.split_whitespace().collect();
        let zip = city_words
            .last()
            .is_some_and(|z| z.len() >= 5 && z.chars().take(5).all(|c| c.is_ascii_digit()));
        let state = city_words.len() >= 3
            && city_words[city_words.len() - 2].len() == 2
            && city_words[city_words.len() - 2]
                .chars()
                .all(|c| c.is_ascii_uppercase())
            && city_words[city_words.len() - 3].ends_with(',');
        (person && street && zip && state).then_some(name)
    })
}

/// Every line of every page, in reading order.
pub fn all_lines(pages: &[Page]) -> Vec<Line> {
    pages.iter().flat_map(|p| p.lines.iter().cloned()).collect()
}

#[cfg(test)]
mod tests;
