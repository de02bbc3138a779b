//! A benefit award letter's figures: the payer (labelled, or the agency in the letterhead), the
//! recipient, the monthly amount and the date it takes effect.

use super::extract::{BenefitLetter, name_after};
use super::fields::{amounts, amounts_after, date_after, dates, normalise};
use super::text::Line;

const ORGANISATION_WORDS: &[&str] = &[
    "administration",
    "department",
    "agency",
    "commission",
    "office",
    "board",
    "retirement",
    "fund",
    "division",
    "bureau",
    "services",
    "veterans affairs",
];

/// A benefit letter's figures.
pub fn benefit_letter(lines: &[Line]) -> BenefitLetter {
    let payer = name_after(lines, &["payer", "paid by", "from"]).or_else(|| {
        lines.iter().take(5).map(Line::text).find(|t| {
            let n = normalise(t);
            ORGANISATION_WORDS
                .iter()
                .any(|w| n.split(' ').any(|x| x == *w) || n.contains(w))
        })
    });
    let monthly = amounts_after(
        lines,
        &[
            "monthly benefit amount",
            "monthly benefit",
            "monthly amount",
            "monthly payment",
            "new benefit amount",
            "benefit amount",
        ],
    )
    .first()
    .copied()
    .or_else(|| {
        lines
            .iter()
            .map(Line::text)
            .filter(|t| {
                let n = normalise(t);
                n.contains("per month") || n.contains("each month") || n.contains("monthly")
            })
            .find_map(|t| amounts(&t).first().copied())
    });
    let effective = date_after(
        lines,
        &["effective date", "effective", "beginning", "starting"],
    )
    .or_else(|| {
        lines
            .iter()
            .map(Line::text)
            .filter(|t| normalise(t).contains("effective"))
            .find_map(|t| dates(&t).first().copied())
    });
    let recipient = name_after(
        lines,
        &["recipient", "beneficiary", "claimant", "name", "dear"],
    )
    .map(|n| n.trim_end_matches([':', ',']).to_string());
    BenefitLetter {
        payer,
        recipient,
        monthly_cents: monthly,
        effective_date: effective,
    }
}
