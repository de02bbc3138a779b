//! A bank statement's figures: the holder, the statement period and the deposits, read from the
//! lines of its deposits section (each a date, a description naming the payer, an amount).

use chrono::{Datelike, NaiveDate};

use super::extract::{BankStatement, Deposit};
use super::fields::{amounts, date, dates_after, normalise, value_text};
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
    .filter(|v| v.chars().any(char::is_alphabetic) && !v.chars().any(|c| c.is_ascii_digit()));
    let period = dates_after(lines, &["statement period", "period", "for the period"]);
    let (start, end) = match period[..] {
        [s, e, ..] => (Some(s), Some(e)),
        _ => (None, None),
    };
    BankStatement {
        holder,
        period_start: start,
        period_end: end,
        deposits: deposits(lines, end),
    }
}

fn deposits(lines: &[Line], period_end: Option<NaiveDate>) -> Vec<Deposit> {
    let mut found = vec![];
    let mut inside = false;
    for line in lines {
        let text = line.text();
        let norm = normalise(&text);
        let cells = line.cells();
        let amount = cells
            .iter()
            .skip(1)
            .find_map(|c| amounts(&c.text).first().copied());
        if amount.is_none() || norm.starts_with("total") {
            inside = amount.is_none() && DEPOSIT_SECTIONS.iter().any(|s| norm == *s);
            continue;
        }
        if !inside {
            continue;
        }
        let Some(first) = cells.first() else { continue };
        let Some(day) = date(&first.text).or_else(|| short_date(&first.text, period_end)) else {
            continue;
        };
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

/// `MM/DD` in the statement's year (the year before when it falls after the period's end).
fn short_date(text: &str, period_end: Option<NaiveDate>) -> Option<NaiveDate> {
    let end = period_end?;
    let (m, d) = text.trim().split_once('/')?;
    let (m, d): (u32, u32) = (m.parse().ok()?, d.parse().ok()?);
    let this_year = NaiveDate::from_ymd_opt(end.year(), m, d)?;
    if this_year > end {
        NaiveDate::from_ymd_opt(end.year() - 1, m, d)
    } else {
        Some(this_year)
    }
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
