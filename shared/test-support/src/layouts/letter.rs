//! Benefit award letters: the agency's letterhead with its address, the letter's date, the
//! recipient's address block, a salutation in one of three forms, the award told in one of
//! five wordings (some with the amount paid before, some with a summary table), a second page
//! now and then, and a signature.

use chrono::{Datelike, Duration, NaiveDate};

use super::{Block, Draw, Face, PEOPLE, cell, date_words, money, printed_name};

/// What a generated letter states.
#[derive(Debug, Clone, PartialEq)]
pub struct LetterTruth {
    pub payer: String,
    /// The recipient as the address block prints it.
    pub recipient: String,
    pub tenant: String,
    pub monthly_cents: i64,
    pub effective_date: NaiveDate,
}

const AGENCIES: &[&str] = &[
    "Social Security Administration",
    "Department of Veterans Affairs",
    "State Teachers Retirement System",
    "Railroad Retirement Board",
    "Office of Personnel Management",
    "County Employees Retirement Fund",
];

pub(super) fn truth(d: &mut Draw) -> LetterTruth {
    let person = *d.pick(PEOPLE);
    let month = 1 + d.below(11) as u32;
    LetterTruth {
        payer: d.pick(AGENCIES).to_string(),
        recipient: printed_name(d, person),
        tenant: format!("{} {}", person.0, person.2),
        monthly_cents: 60_000 + d.below(300_000) as i64,
        effective_date: NaiveDate::from_ymd_opt(2026, month + 1, 1).expect("a date"),
    }
}

fn line(text: impl Into<String>) -> Block {
    Block::Row(vec![cell(40.0, text, Face::Regular)])
}

/// The letter's rows.
pub(super) fn blocks(d: &mut Draw, t: &LetterTruth) -> Vec<Block> {
    let mut out = vec![
        Block::Row(vec![cell(40.0, t.payer.clone(), Face::Bold)]),
        line(d.word(&[
            "PO Box 3000",
            "1200 Capitol Avenue",
            "Post Office Box 17775",
        ])),
        line(d.word(&[
            "Baltimore, MD 21290",
            "Sacramento, CA 95814",
            "Chicago, IL 60611",
        ])),
    ];
    if d.chance(40) {
        out.push(line("Telephone: 1-800-772-1213"));
    }
    out.push(Block::Gap);
    let written = t.effective_date - Duration::days(20 + d.below(20) as i64);
    let written = date_words(d, written);
    out.push(line(if d.chance(30) {
        format!("Date: {written}")
    } else {
        written
    }));
    out.push(Block::Gap);
    for l in [
        t.recipient.as_str(),
        "12 Elm Street Apt 4",
        "Springfield, OH 45501",
    ] {
        out.push(line(l));
    }
    out.push(Block::Gap);
    out.push(Block::Title(
        d.word(&[
            "Notice of Award",
            "Benefit Verification Letter",
            "Your Benefit Amount",
        ])
        .into(),
    ));
    out.push(Block::Gap);
    let (first, _, last) = PEOPLE
        .iter()
        .copied()
        .find(|p| t.tenant == format!("{} {}", p.0, p.2))
        .expect("a known person");
    out.push(line(match d.below(3) {
        0 => format!("Dear {first} {last}:"),
        1 => format!("Dear {}:", t.recipient),
        _ => format!("Dear Beneficiary {last},"),
    }));
    out.push(Block::Gap);
    let amount = money(t.monthly_cents);
    let amount = if d.chance(80) {
        format!("${amount}")
    } else {
        amount
    };
    let date = date_words(d, t.effective_date);
    let long = format!(
        "{} {}, {}",
        t.effective_date.format("%B"),
        t.effective_date.day(),
        t.effective_date.year()
    );
    if d.chance(30) {
        let before = money(t.monthly_cents * 97 / 100);
        out.push(line(format!(
            "Your previous monthly benefit was ${before} before the cost-of-living adjustment."
        )));
    }
    match d.below(5) {
        0 => {
            out.push(line("We are writing to tell you about your benefits."));
            out.push(line(format!(
                "Beginning {long}, your monthly benefit amount will be {amount}."
            )));
        }
        1 => out.push(line(format!(
            "Your new benefit amount is {amount} per month, effective {long}."
        ))),
        2 => {
            out.push(line("We approved your claim for benefits."));
            out.push(line(format!(
                "You will receive {amount} each month starting with your payment for {}.",
                t.effective_date.format("%B %Y")
            )));
        }
        3 => {
            let colon = if d.chance(50) { ":" } else { "" };
            out.push(line("The information below describes your award."));
            out.push(Block::Gap);
            for (label, value) in [
                ("Monthly Benefit Amount", amount),
                ("Effective Date", date),
                ("Payment Method", "Direct Deposit".to_string()),
            ] {
                out.push(Block::Row(vec![
                    cell(60.0, format!("{label}{colon}"), Face::Bold),
                    cell(260.0, value, Face::Regular),
                ]));
            }
        }
        _ => {
            out.push(line(format!(
                "This letter confirms that you are entitled to monthly benefits of {amount}."
            )));
            out.push(line(format!("This amount is effective {date}.")));
        }
    }
    out.push(Block::Gap);
    if d.chance(30) {
        out.push(line(
            "Please keep this letter. You may need it to apply for housing or other help.",
        ));
        out.push(Block::PageBreak);
        out.push(Block::Row(vec![
            cell(40.0, t.recipient.clone(), Face::Regular),
            cell(450.0, "Page 2 of 2", Face::Regular),
        ]));
        out.push(Block::Gap);
        out.push(line(
            "If you disagree with this decision, you have 60 days to ask for an appeal.",
        ));
    }
    out.push(Block::Gap);
    out.push(line("Sincerely,"));
    out.push(line(d.word(&["Michael Grant", "Patricia Owens"])));
    out.push(line(d.word(&["Regional Commissioner", "Benefits Officer"])));
    out
}
