//! Bank statements: the bank's letterhead, the holder (labelled, or an address block without a
//! label), the period in one of five forms, an account summary, then the deposits either as a
//! section of their own (with withdrawals and daily balances beside them) or as the credit column
//! of one ledger with a running balance; deposits dated three ways, descriptions wrapping to a
//! second line, a page break with the section's heading repeated.

use chrono::{Duration, NaiveDate};

use super::{
    Block, Cell, Draw, EMPLOYERS, Face, PEOPLE, cell, date_words, money, printed_name, right,
};

/// One deposit a statement states.
#[derive(Debug, Clone, PartialEq)]
pub struct StatementDeposit {
    pub date: NaiveDate,
    pub cents: i64,
    /// The employer, for a payroll deposit: the payer the reading should name. None for any
    /// other credit (a transfer, a mobile deposit, interest).
    pub employer: Option<String>,
}

/// What a generated statement states.
#[derive(Debug, Clone, PartialEq)]
pub struct StatementTruth {
    pub bank: String,
    /// The holder as printed; None when the statement prints the name only in an address block
    /// without a label (read as missing, by design).
    pub holder: Option<String>,
    pub tenant: String,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub deposits: Vec<StatementDeposit>,
}

const BANKS: &[&str] = &[
    "First Harbor Bank",
    "Citizens Valley Credit Union",
    "Pinecrest National Bank",
    "Lakeshore Savings Bank",
];

/// A withdrawal's description and amount.
struct Debit {
    date: NaiveDate,
    cents: i64,
    what: &'static str,
}

pub(super) fn truth(d: &mut Draw) -> StatementTruth {
    let person = *d.pick(PEOPLE);
    let holder = printed_name(d, person);
    let month = 1 + d.below(10) as u32;
    let start_day = *d.pick(&[1, 1, 5, 16]);
    let period_start = NaiveDate::from_ymd_opt(2026, month, start_day).expect("a date");
    let period_end =
        NaiveDate::from_ymd_opt(2026, month + 1, start_day).expect("a date") - Duration::days(1);
    let employer = d.pick(EMPLOYERS).to_string();
    let pay = 80_000 + d.below(300_000) as i64;
    let every = *d.pick(&[7i64, 14, 14, 15]);
    let mut deposits = vec![];
    let mut day = period_start + Duration::days(d.below(every as usize) as i64);
    while day <= period_end {
        deposits.push(StatementDeposit {
            date: day,
            cents: pay,
            employer: Some(employer.clone()),
        });
        day += Duration::days(every);
    }
    for _ in 0..d.below(3) {
        let date = period_start + Duration::days(d.below(28) as i64);
        deposits.push(StatementDeposit {
            date,
            cents: 1_000 + d.below(90_000) as i64,
            employer: None,
        });
    }
    deposits.sort_by_key(|x| x.date);
    StatementTruth {
        bank: d.pick(BANKS).to_string(),
        holder: Some(holder),
        tenant: format!("{} {}", person.0, person.2),
        period_start,
        period_end,
        deposits,
    }
}

/// A deposit's description, and the second line it wraps to (a reference), if any; `narrow` in
/// a ledger, whose amount columns leave the description less room.
fn description(d: &mut Draw, x: &StatementDeposit, narrow: bool) -> (String, Option<String>) {
    let reference = format!("{:010}", d.below(9_999_999_999usize));
    match &x.employer {
        Some(employer) => {
            let up = employer.to_uppercase();
            match d.below(4) {
                0 if narrow => (
                    format!("{up} PAYROLL"),
                    Some(format!("PPD ID: {reference}")),
                ),
                0 => (format!("{up} PAYROLL PPD ID: {reference}"), None),
                1 => (format!("DIRECT DEP {up}"), None),
                2 => (
                    format!("{employer} DIR DEP"),
                    Some(format!("PPD ID {reference}")),
                ),
                _ if narrow => (format!("ACH CREDIT {up}"), None),
                _ => (format!("ACH CREDIT {up} PAYROLL"), None),
            }
        }
        None => (
            d.word(&[
                "MOBILE DEPOSIT",
                "ONLINE TRANSFER FROM SAV 4411",
                "INTEREST PAYMENT",
                "ZELLE FROM R SMITH",
            ])
            .to_string(),
            None,
        ),
    }
}

fn deposit_date(style: usize, date: NaiveDate) -> String {
    match style {
        0 => date.format("%m/%d").to_string(),
        1 => date.format("%m/%d/%Y").to_string(),
        _ => date.format("%b %d").to_string(),
    }
}

fn debits(d: &mut Draw, t: &StatementTruth) -> Vec<Debit> {
    let mut out: Vec<Debit> = (0..3 + d.below(6))
        .map(|_| Debit {
            date: t.period_start + Duration::days(d.below(28) as i64),
            cents: 500 + d.below(150_000) as i64,
            what: d.word(&[
                "CARD PURCHASE GROCERY OUTLET",
                "ONLINE PAYMENT RENT",
                "ATM WITHDRAWAL",
                "ELECTRIC COMPANY AUTOPAY",
                "CHECK 1042",
            ]),
        })
        .collect();
    out.sort_by_key(|x| x.date);
    out
}

fn amount_text(cents: i64, dollar: bool) -> String {
    if dollar {
        format!("${}", money(cents))
    } else {
        money(cents)
    }
}

/// The top of the statement: the bank, the title, the holder, the account and the period.
fn header(d: &mut Draw, t: &mut StatementTruth) -> Vec<Block> {
    let mut out = vec![
        Block::Row(vec![cell(40.0, t.bank.clone(), Face::Bold)]),
        Block::Row(vec![cell(
            40.0,
            d.word(&[
                "PO Box 1800, Columbus, OH 43216",
                "100 Main Street, Dayton, OH 45402",
            ]),
            Face::Regular,
        )]),
        Block::Title(
            d.word(&[
                "Account Statement",
                "Bank Statement",
                "Checking Account Statement",
                "Statement of Account",
            ])
            .into(),
        ),
        Block::Gap,
    ];
    let colon = if d.chance(50) { ":" } else { "" };
    let holder = t.holder.clone().expect("a holder");
    if d.chance(20) {
        // The address block of a mailed statement: the name has no label.
        t.holder = None;
        for line in [
            holder.as_str(),
            "12 Elm Street Apt 4",
            "Springfield, OH 45501",
        ] {
            out.push(Block::Row(vec![cell(40.0, line, Face::Regular)]));
        }
        out.push(Block::Gap);
    } else {
        let label = d.word(&[
            "Account Holder",
            "Primary Account Holder",
            "Account Name",
            "Prepared For",
            "Customer Name",
        ]);
        out.push(if d.chance(50) {
            Block::Row(vec![cell(
                40.0,
                format!("{label}: {holder}"),
                Face::Regular,
            )])
        } else {
            Block::Row(vec![
                cell(40.0, format!("{label}{colon}"), Face::Bold),
                cell(170.0, holder, Face::Regular),
            ])
        });
    }
    let account = format!("XXXXXX{:04}", d.below(9999));
    let account_label = d.word(&["Account Number", "Account No.", "Account #"]);
    out.push(Block::Row(vec![
        cell(40.0, format!("{account_label}{colon}"), Face::Bold),
        cell(170.0, account, Face::Regular),
    ]));
    let (s, e) = (date_words(d, t.period_start), date_words(d, t.period_end));
    out.push(match d.below(5) {
        0 => Block::Row(vec![cell(
            40.0,
            format!("Statement Period: {s} - {e}"),
            Face::Regular,
        )]),
        1 => Block::Row(vec![
            cell(40.0, format!("Statement Period{colon}"), Face::Bold),
            cell(170.0, format!("{s} to {e}"), Face::Regular),
        ]),
        2 => Block::Row(vec![cell(
            40.0,
            format!("For the period {s} through {e}"),
            Face::Regular,
        )]),
        3 => {
            let long = |date: NaiveDate| date.format("%B %-d, %Y").to_string();
            Block::Row(vec![cell(
                40.0,
                format!("{} through {}", long(t.period_start), long(t.period_end)),
                Face::Regular,
            )])
        }
        _ => Block::Row(vec![
            cell(40.0, format!("Opening Date{colon}"), Face::Bold),
            cell(170.0, s, Face::Regular),
            cell(300.0, format!("Closing Date{colon}"), Face::Bold),
            cell(420.0, e, Face::Regular),
        ]),
    });
    out.push(Block::Gap);
    out
}

/// The account summary: balances and totals, each an amount beside its label.
fn summary(d: &mut Draw, opening: i64, credits: i64, debits: i64, at: f32) -> Vec<Block> {
    let dollar = d.chance(50);
    let row = |label: &str, cents: i64| {
        Block::Row(vec![
            cell(40.0, label, Face::Regular),
            right(at, amount_text(cents, dollar), Face::Regular),
        ])
    };
    vec![
        Block::Row(vec![cell(40.0, "Account Summary", Face::Bold)]),
        row("Beginning Balance", opening),
        row("Deposits and Additions", credits),
        row("Withdrawals and Subtractions", debits),
        row("Ending Balance", opening + credits - debits),
        Block::Gap,
    ]
}

/// The statement's rows; `t.holder` becomes None when the name is printed without a label.
pub(super) fn blocks(d: &mut Draw, t: &mut StatementTruth) -> Vec<Block> {
    let mut out = header(d, t);
    let debits = debits(d, t);
    let credits: i64 = t.deposits.iter().map(|x| x.cents).sum();
    let spent: i64 = debits.iter().map(|x| x.cents).sum();
    // Enough at the start that the balance never goes below zero.
    let opening = spent + 50_000 + d.below(400_000) as i64;
    out.extend(summary(d, opening, credits, spent, 330.0));
    let style = d.below(3);
    let dollar = d.chance(30);
    if d.chance(50) {
        sections(d, t, &debits, style, dollar, &mut out);
    } else {
        ledger(d, t, &debits, opening, style, dollar, &mut out);
    }
    out.push(Block::Row(vec![cell(
        40.0,
        "Member FDIC. Please examine this statement promptly.",
        Face::Regular,
    )]));
    out
}

/// The repeated top of a later page: the bank, the page number, the holder's account.
fn page_header(t: &StatementTruth) -> Vec<Block> {
    vec![
        Block::PageBreak,
        Block::Row(vec![
            cell(40.0, t.bank.clone(), Face::Bold),
            cell(450.0, "Page 2 of 2", Face::Regular),
        ]),
        Block::Gap,
    ]
}

/// Deposits in a section of their own, then withdrawals, then (sometimes) daily balances.
fn sections(
    d: &mut Draw,
    t: &StatementTruth,
    debits: &[Debit],
    style: usize,
    dollar: bool,
    out: &mut Vec<Block>,
) {
    let heading = d.word(&[
        "Deposits and Additions",
        "Deposits and Other Credits",
        "Deposits & Credits",
        "Electronic Deposits",
        "DEPOSITS",
    ]);
    let columns = d.chance(60);
    let column_heads = || {
        Block::Row(vec![
            cell(40.0, "Date", Face::Bold),
            cell(110.0, "Description", Face::Bold),
            right(480.0, "Amount", Face::Bold),
        ])
    };
    out.push(Block::Row(vec![cell(40.0, heading, Face::Bold)]));
    if columns {
        out.push(column_heads());
    }
    let break_at = d.chance(35).then(|| d.below(t.deposits.len().max(1)));
    for (i, x) in t.deposits.iter().enumerate() {
        if break_at == Some(i) {
            out.extend(page_header(t));
            out.push(Block::Row(vec![cell(
                40.0,
                format!("{heading} (continued)"),
                Face::Bold,
            )]));
            if columns {
                out.push(column_heads());
            }
        }
        let (what, more) = description(d, x, false);
        out.push(Block::Row(vec![
            cell(40.0, deposit_date(style, x.date), Face::Regular),
            cell(110.0, what, Face::Regular),
            right(480.0, amount_text(x.cents, dollar), Face::Regular),
        ]));
        if let Some(more) = more {
            out.push(Block::Row(vec![cell(110.0, more, Face::Regular)]));
        }
    }
    let credits: i64 = t.deposits.iter().map(|x| x.cents).sum();
    out.push(Block::Row(vec![
        cell(
            40.0,
            format!("Total {}", heading.to_lowercase()),
            Face::Bold,
        ),
        right(480.0, amount_text(credits, dollar), Face::Bold),
    ]));
    out.push(Block::Gap);
    out.push(Block::Row(vec![cell(
        40.0,
        d.word(&[
            "Withdrawals and Other Debits",
            "Checks and Withdrawals",
            "Electronic Withdrawals",
        ]),
        Face::Bold,
    )]));
    for x in debits {
        out.push(Block::Row(vec![
            cell(40.0, deposit_date(style, x.date), Face::Regular),
            cell(110.0, x.what, Face::Regular),
            right(480.0, amount_text(x.cents, dollar), Face::Regular),
        ]));
    }
    out.push(Block::Gap);
    if d.chance(50) {
        out.push(Block::Row(vec![cell(
            40.0,
            "Daily Ending Balance",
            Face::Bold,
        )]));
        let mut balance = 120_000;
        for x in t.deposits.iter().take(4) {
            balance += x.cents / 3;
            out.push(Block::Row(vec![
                cell(40.0, deposit_date(style, x.date), Face::Regular),
                right(200.0, money(balance), Face::Regular),
            ]));
        }
        out.push(Block::Gap);
    }
}

/// One ledger of every transaction, by date, with withdrawal and deposit columns (in either
/// order) and the running balance.
fn ledger(
    d: &mut Draw,
    t: &StatementTruth,
    debits: &[Debit],
    opening: i64,
    style: usize,
    dollar: bool,
    out: &mut Vec<Block>,
) {
    let (credit_head, debit_head) = *d.pick(&[
        ("Deposits", "Withdrawals"),
        ("Credits", "Debits"),
        ("Deposits/Credits", "Withdrawals/Debits"),
        ("Additions", "Subtractions"),
    ]);
    let credit_first = d.chance(40);
    // Far enough apart that the longest headings keep a gap in any font.
    let (credit_x, debit_x) = if credit_first {
        (375.0, 485.0)
    } else {
        (485.0, 375.0)
    };
    let heads = || {
        Block::Row(vec![
            cell(40.0, "Date", Face::Bold),
            cell(110.0, "Description", Face::Bold),
            right(debit_x, debit_head, Face::Bold),
            right(credit_x, credit_head, Face::Bold),
            right(565.0, "Balance", Face::Bold),
        ])
    };
    out.push(Block::Row(vec![cell(
        40.0,
        d.word(&[
            "Transaction History",
            "Account Activity",
            "Transaction Detail",
        ]),
        Face::Bold,
    )]));
    out.push(heads());
    out.push(Block::Row(vec![
        cell(110.0, "Beginning Balance", Face::Regular),
        right(565.0, money(opening), Face::Regular),
    ]));
    let mut rows: Vec<(NaiveDate, Option<&StatementDeposit>, Option<&Debit>)> = (t.deposits)
        .iter()
        .map(|x| (x.date, Some(x), None))
        .chain(debits.iter().map(|x| (x.date, None, Some(x))))
        .collect();
    rows.sort_by_key(|r| (r.0, r.1.is_none()));
    let break_at = d.chance(35).then(|| d.below(rows.len()));
    let mut balance = opening;
    for (i, (date, credit, debit)) in rows.into_iter().enumerate() {
        if break_at == Some(i) {
            out.extend(page_header(t));
            out.push(heads());
        }
        let mut row: Vec<Cell> = vec![cell(40.0, deposit_date(style, date), Face::Regular)];
        let mut more = None;
        if let Some(x) = credit {
            let (what, wrapped) = description(d, x, true);
            more = wrapped;
            balance += x.cents;
            row.push(cell(110.0, what, Face::Regular));
            row.push(right(credit_x, amount_text(x.cents, dollar), Face::Regular));
        }
        if let Some(x) = debit {
            balance -= x.cents;
            row.push(cell(110.0, x.what, Face::Regular));
            row.push(right(debit_x, amount_text(x.cents, dollar), Face::Regular));
        }
        row.push(right(565.0, money(balance), Face::Regular));
        row.sort_by(|a, b| a.x.total_cmp(&b.x));
        out.push(Block::Row(row));
        if let Some(more) = more {
            out.push(Block::Row(vec![cell(110.0, more, Face::Regular)]));
        }
    }
    out.push(Block::Row(vec![
        cell(110.0, "Ending Balance", Face::Bold),
        right(565.0, money(balance), Face::Bold),
    ]));
    out.push(Block::Gap);
}
