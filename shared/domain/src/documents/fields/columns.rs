//! Which column of a table an amount stands in, by the table's header: hours and rates are
//! quantities, not money; some layouts print the year to date left of the current period.

use super::{amounts, money, normalise};
use crate::documents::text::Line;

/// Headers of columns that hold quantities, not money, though printed with two decimals.
const QUANTITY_HEADERS: &[&str] = &["hours", "hrs", "units", "rate", "qty", "quantity"];

/// The spans of the quantity columns (hours, rate) of the table a line belongs to: those of its
/// header, the nearest line above without amounts, of two cells or more.
pub(super) fn quantity_columns(lines: &[Line], line_index: usize) -> Vec<(f32, f32)> {
    let header = (lines[..line_index].iter().rev().take(12)).find(|line| {
        let cells = line.cells();
        cells.len() >= 2 && cells.iter().all(|c| amounts(&c.text).is_empty())
    });
    (header.map(Line::cells).unwrap_or_default().into_iter())
        .filter(|c| QUANTITY_HEADERS.contains(&normalise(&c.text).as_str()))
        .map(|c| (c.x - 2.0, c.end_x + 2.0))
        .collect()
}

/// Whether a cell holds only amounts (and currency signs).
pub(super) fn is_amount_cell(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "$").collect();
    !words.is_empty() && words.iter().all(|w| money(w).is_some())
}

/// Headings of a table's current-period column.
const CURRENT_HEADERS: &[&str] = &[
    "current",
    "this period",
    "current period",
    "current amount",
    "amount",
];

/// Headings of a table's year-to-date column.
const YTD_HEADERS: &[&str] = &["ytd", "year to date", "ytd amount", "year to date amount"];

/// Whether the table a line belongs to prints its year-to-date column left of its current one:
/// by the nearest header above that names both (a net pay row has none of its own, so the
/// table above it tells).
pub(crate) fn ytd_first(lines: &[Line], line_index: usize) -> bool {
    let header = (lines[..line_index].iter().rev().take(40)).find_map(|line| {
        let cells = line.cells();
        let x_of = |names: &[&str]| {
            (cells.iter())
                .find(|c| names.contains(&normalise(&c.text).as_str()))
                .map(|c| c.x)
        };
        x_of(CURRENT_HEADERS).zip(x_of(YTD_HEADERS))
    });
    header.is_some_and(|(current, ytd)| ytd < current)
}
