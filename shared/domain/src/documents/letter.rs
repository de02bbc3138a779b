//! A benefit award letter's figures: the payer (labelled, or the agency in the letterhead), the
//! recipient, the monthly amount and the date it takes effect.

use chrono::NaiveDate;

use super::extract::{BenefitLetter, name_after};
use super::fields::{address_block_name, amounts, amounts_after, date_after, dates, normalise};
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

/// Words of a sentence about an amount paid before, not the award ("Your previous monthly
/// benefit was $1,180.00").
const EARLIER_WORDS: &[&str] = &["previous", "prior", "was", "old", "former", "last"];

/// Words of a salutation before the name: "Dear Ms. Doe", "Dear Beneficiary Doe".
const SALUTATION_WORDS: &[&str] = &[
    "mr",
    "mrs",
    "ms",
    "miss",
    "mx",
    "dr",
    "beneficiary",
    "claimant",
    "member",
    "annuitant",
    "retiree",
    "veteran",
    "recipient",
    "customer",
];

/// The person a letter greets: the salutation's name less its titles; when only a surname is
/// left, the name of the letter's address block when it holds that surname, or nothing: a surname alone is not read as the recipient's name.
fn addressee(lines: &[Line]) -> Option<String> {
    let greeted = name_after(lines, &["dear"])?;
    let words: Vec<&str> = (greeted.trim_end_matches([':', ',']).split_whitespace())
        .skip_while(|w| SALUTATION_WORDS.contains(&normalise(w).as_str()))
        .collect();
    match words[..] {
        [] => None,
        [surname] => {
            let block = address_block_name(lines)?;
            let surname = normalise(surname);
            normalise(&block)
                .split(' ')
                .any(|w| w == surname)
                .then_some(block)
        }
        _ => Some(words.join(" ")),
    }
}

/// The first day of the month an award is paid from, when a sentence names only its month:
/// "starting with your payment for April 2026" (an award counts from its month's first day).
fn first_month_paid(text: &str) -> Option<NaiveDate> {
    let norm = normalise(text);
    let (_, after) = ["payment for ", "starting ", "beginning ", "effective "]
        .iter()
        .find_map(|w| norm.split_once(w))?;
    let mut words = after.split(' ');
    let (month, year) = (words.next()?, words.next()?);
    dates(&format!("{month} 1, {year}")).first().copied()
}

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
                let earlier = n.split(' ').any(|w| EARLIER_WORDS.contains(&w));
                !earlier
                    && (n.contains("per month")
                        || n.contains("each month")
                        || n.contains("monthly"))
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
    })
    .or_else(|| lines.iter().find_map(|l| first_month_paid(&l.text())));
    let recipient = name_after(lines, &["recipient", "beneficiary", "claimant", "name"])
        .or_else(|| addressee(lines))
        .map(|n| n.trim_end_matches([':', ',']).to_string());
    BenefitLetter {
        payer,
        recipient,
        monthly_cents: monthly,
        effective_date: effective,
    }
}
