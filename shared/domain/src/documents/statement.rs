//! A bank statement's figures: the holder, the statement period and the deposits, read from the
//! lines of its deposits section (each a date, a description naming the payer, an amount).

use chrono::{Datelike, NaiveDate};

use super::extract::{BankStatement, Deposit};
use super::fields::{
    address_block_name, amounts, date, date_after, dates, dates_after, money, normalise, value_text,
};
use super::text::Line;

const DEPOSIT_SECTIONS: &[&str] = &[
    "deposits",
    "deposits and additions",
    "deposits and other credits",
    "credits",
    "deposits and credits",
    "electronic deposits",
];

/// Words of a deposit's description that name the transfer, not the payer.
const TRANSFER_WORDS: &[&str] = &[
    "direct",
    "dep",
    "deposit",
    "dir",
    "ach",
    "credit",
    "ppd",
    "payroll",
    "electronic",
];

/// Headings of a ledger's credit column, when every transaction stands in one table.
const CREDIT_COLUMNS: &[&str] = &[
    "deposits",
    "credits",
    "deposits credits",
    "credit",
    "deposit",
    "additions",
    "money in",
];

/// Headings of a deposits table's columns: such a row goes on inside its section.
const COLUMN_HEADINGS: &[&str] = &[
    "date",
    "posting date",
    "post date",
    "transaction date",
    "description",
    "transaction",
    "details",
    "amount",
    "reference",
];

/// A bank statement's figures.
pub fn bank_statement(lines: &[Line]) -> BankStatement {
    let holder = value_text(
        lines,
        &[
            "account holder",
            "primary account holder",
            "account name",
            "prepared for",
            "customer name",
        ],
    )
    .filter(|v| v.chars().any(char::is_alphabetic) && !v.chars().any(|c| c.is_ascii_digit()))
    .or_else(|| address_block_name(lines));
    let (start, end) = period(lines);
    let mut deposits = deposits(lines, end);
    deposits.extend(ledger_deposits(lines, end));
    BankStatement {
        holder,
        period_start: start,
        period_end: end,
        deposits,
    }
}

/// The statement's period: after its label; else an opening and a closing date; else a line
/// near the top that is only two dates ("March 5, 2026 through April 4, 2026").
fn period(lines: &[Line]) -> (Option<NaiveDate>, Option<NaiveDate>) {
    let labelled = dates_after(lines, &["statement period", "period", "for the period"]);
    if let [s, e, ..] = labelled[..] {
        return (Some(s), Some(e));
    }
    let opening = date_after(lines, &["opening date", "beginning date", "start date"]);
    let closing = date_after(lines, &["closing date", "ending date", "end date"]);
    if let (Some(s), Some(e)) = (opening, closing) {
        return (Some(s), Some(e));
    }
    let alone = (lines.iter().take(15).map(Line::text)).find_map(|t| {
        let found = dates(&t);
        let words = normalise(&t);
        let only_dates = words.split(' ').all(|w| {
            w.chars().all(|c| c.is_ascii_digit()) || w == "through" || w == "to" || month_word(w)
        });
        match found[..] {
            [s, e] if only_dates && s < e => Some((s, e)),
            _ => None,
        }
    });
    alone.map_or((None, None), |(s, e)| (Some(s), Some(e)))
}

/// A month's name or its three-letter abbreviation.
fn month_word(w: &str) -> bool {
    short_month(w).is_some() && (w.len() == 3 || dates(&format!("{w} 1, 2026")).len() == 1)
}

/// Whether a line is a deposits section's heading, its "(continued)" on a later page included;
/// "&" and "and" are one.
fn deposit_heading(norm: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        (t.split(' '))
            .filter(|w| !matches!(*w, "and" | "continued" | ""))
            .map(str::to_string)
            .collect()
    };
    let mine = words(norm);
    DEPOSIT_SECTIONS.iter().any(|s| words(s) == mine)
}

fn deposits(lines: &[Line], period_end: Option<NaiveDate>) -> Vec<Deposit> {
    let mut found = vec![];
    let mut inside = false;
    // Where the last deposit's date stood: a line starting right of it, without an amount, is
    // its description going on (a reference on a second line).
    let mut date_x: Option<f32> = None;
    for line in lines {
        let text = line.text();
        let norm = normalise(&text);
        let cells = line.cells();
        let amount = cells
            .iter()
            .skip(1)
            .find_map(|c| amounts(&c.text).first().copied());
        if amount.is_none() && inside {
            let headings =
                (cells.iter()).all(|c| COLUMN_HEADINGS.contains(&normalise(&c.text).as_str()));
            let goes_on = date_x
                .zip(cells.first())
                .is_some_and(|(x, c)| c.x > x + 20.0);
            if headings || goes_on {
                continue;
            }
        }
        if amount.is_none() || norm.starts_with("total") {
            inside = amount.is_none() && deposit_heading(&norm);
            date_x = None;
            continue;
        }
        if !inside {
            continue;
        }
        let Some(first) = cells.first() else { continue };
        let Some(day) = date(&first.text).or_else(|| short_date(&first.text, period_end)) else {
            continue;
        };
        date_x = Some(first.x);
        let description: Vec<&str> = cells
            .iter()
            .skip(1)
            .filter(|c| amounts(&c.text).is_empty())
            .map(|c| c.text.as_str())
            .collect();
        let payer = payer_of(&description.join(" "));
        if let Some(cents) = amount {
            found.push(Deposit {
                date: day,
                cents,
                payer,
            });
        }
    }
    found
}

/// The deposits of a ledger, one table of every transaction with a credit column (and debit and
/// balance columns beside it): each dated row's amount whose nearest heading is the credit
/// column's. A row with no amount there is a withdrawal; the balance column is never read.
fn ledger_deposits(lines: &[Line], period_end: Option<NaiveDate>) -> Vec<Deposit> {
    let mut found = vec![];
    // The amount columns' headings (x, end, whether it is the credit column).
    let mut columns: Vec<(f32, f32, bool)> = vec![];
    for line in lines {
        let cells = line.cells();
        let heads: Vec<String> = cells.iter().map(|c| normalise(&c.text)).collect();
        let is_header = heads.iter().any(|h| h == "date") && heads.iter().any(|h| h == "balance");
        if is_header {
            columns = (cells.iter().zip(&heads))
                .filter(|(_, h)| !COLUMN_HEADINGS.contains(&h.as_str()))
                .map(|(c, h)| (c.x, c.end_x, CREDIT_COLUMNS.contains(&h.as_str())))
                .collect();
            if !columns.iter().any(|c| c.2) {
                columns.clear();
            }
            continue;
        }
        if columns.is_empty() {
            continue;
        }
        let Some(first) = cells.first() else { continue };
        let Some(day) = date(&first.text).or_else(|| short_date(&first.text, period_end)) else {
            continue;
        };
        // The column an amount ending at `end` stands in: the heading whose span is nearest.
        let credit_at = |end: f32, start: f32| {
            let distance = |(x, e, _): &(f32, f32, bool)| {
                let (mid, head_mid) = ((start + end) / 2.0, (x + e) / 2.0);
                (mid - head_mid).abs().min((end - e).abs())
            };
            (columns.iter())
                .min_by(|a, b| distance(a).total_cmp(&distance(b)))
                .is_some_and(|c| c.2)
        };
        // An amount cell in the credit column; or, where a long description runs into it, a
        // cell whose last word is an amount there.
        let under = cells.iter().skip(1).find_map(|c| {
            if is_money_cell(&c.text) {
                return credit_at(c.end_x, c.x).then(|| (amounts(&c.text)[0], String::new()));
            }
            let (words, last) = c.text.rsplit_once(' ')?;
            let width = (c.end_x - c.x) * last.len() as f32 / c.text.len().max(1) as f32;
            (money(last).is_some()
                && amounts(words).is_empty()
                && credit_at(c.end_x, c.end_x - width))
            .then(|| Some((money(last)?.abs(), words.to_string())))
            .flatten()
        });
        let Some((cents, merged)) = under else {
            continue;
        };
        let mut description: Vec<&str> = (cells.iter().skip(1))
            .filter(|c| amounts(&c.text).is_empty())
            .map(|c| c.text.as_str())
            .collect();
        description.push(&merged);
        found.push(Deposit {
            date: day,
            cents,
            payer: payer_of(description.join(" ").trim()),
        });
    }
    found
}

/// A cell that is one amount and nothing else.
fn is_money_cell(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "$").collect();
    words.len() == 1 && money(words[0]).is_some()
}

/// `MM/DD` or `Mar 09` in the statement's year (the year before when it falls after the
/// period's end).
fn short_date(text: &str, period_end: Option<NaiveDate>) -> Option<NaiveDate> {
    let end = period_end?;
    let text = text.trim();
    let (m, d) = text.split_once('/').or_else(|| text.split_once(' '))?;
    let m: u32 = m.parse().ok().or_else(|| short_month(m))?;
    let d: u32 = d.trim().parse().ok()?;
    let this_year = NaiveDate::from_ymd_opt(end.year(), m, d)?;
    if this_year > end {
        NaiveDate::from_ymd_opt(end.year() - 1, m, d)
    } else {
        Some(this_year)
    }
}

/// A month's number from its name or its first three letters.
fn short_month(w: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let w = w.trim_end_matches('.').to_ascii_lowercase();
    (w.len() >= 3)
        .then(|| MONTHS.iter().position(|m| w.starts_with(m)))
        .flatten()
        .map(|i| i as u32 + 1)
}

/// The payer in a deposit's description: its words less the transfer's and any reference.
fn payer_of(description: &str) -> String {
    description
        .split_whitespace()
        .take_while(|w| !w.contains(':') && !w.eq_ignore_ascii_case("id"))
        .filter(|w| {
            let n = normalise(w);
            !TRANSFER_WORDS.contains(&n.as_str()) && !n.chars().all(|c| c.is_ascii_digit())
        })
        .collect::<Vec<_>>()
        .join(" ")
}
