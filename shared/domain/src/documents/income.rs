//! The extracted figures as the one income-rules input ([`ProviderIncome`], method `document`):
//! each employer's stubs are one source (dated gross payments with their net pay beside them, the
//! latest stub's gross as its stated pay, at its stated frequency), the employer named as
//! [`payer_words`] reads it, so "ACME CORP" and "Acme Corp." are one; each benefit letter is a
//! monthly award, ongoing from its effective date; each statement payer's deposits are a source of
//! their own, net like a bank's. No arithmetic here: the domain's rules count them. The as-of date
//! is the latest date the documents show, never after the report's day.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::{Analysis, Fields};
use crate::income::payer::payer_words;
use crate::income::{
    AmountsBasis, PayFrequency, Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};

fn dollars(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// The income a set of analysed documents states, as of the latest date they show; None when
/// they show no payment at all.
pub fn provider_income(documents: &[&Analysis], today: NaiveDate) -> Option<ProviderIncome> {
    let mut sources: BTreeMap<String, ProviderIncomeSource> = BTreeMap::new();
    let mut latest: Option<NaiveDate> = None;
    let mut seen = |d: NaiveDate| latest = Some(latest.map_or(d, |l| l.max(d)));
    for doc in documents {
        match &doc.fields {
            Fields::PayStub(stub) => {
                let (Some(date), Some(gross)) = (stub.pay_date, stub.gross_cents) else {
                    continue;
                };
                seen(date);
                let name = stub
                    .employer
                    .clone()
                    .unwrap_or_else(|| "Employer (pay stubs)".into());
                let source = sources
                    .entry(format!("stub:{}", employer_key(&name)))
                    .or_insert_with(|| source(&name, "SALARY"));
                source.payments.push(Payment {
                    date,
                    amount: dollars(gross),
                });
                source.payments.sort_by_key(|p| p.date);
                // The stub's net pay beside its gross: the net figure, and what the double-count
                // rule pairs with a bank's deposits of the same pay.
                if let Some(net) = stub.net_cents {
                    source.net_payments.push(Payment {
                        date,
                        amount: dollars(net),
                    });
                    source.net_payments.sort_by_key(|p| p.date);
                }
                if source.payments.last().map(|p| p.date) == Some(date) {
                    source.pay_rate = Some(dollars(gross));
                    source.pay_frequency = stub.pay_frequency.or(source.pay_frequency);
                }
            }
            Fields::BenefitLetter(letter) => {
                let (Some(date), Some(monthly)) = (letter.effective_date, letter.monthly_cents)
                else {
                    continue;
                };
                seen(date);
                let name = letter
                    .payer
                    .clone()
                    .unwrap_or_else(|| "Benefit (award letter)".into());
                let source = sources
                    .entry(format!("letter:{name}"))
                    .or_insert_with(|| source(&name, "BENEFIT_OTHER"));
                source.payments.push(Payment {
                    date,
                    amount: dollars(monthly),
                });
                source.payments.sort_by_key(|p| p.date);
                source.pay_rate = Some(dollars(monthly));
                source.pay_frequency = Some(PayFrequency::Monthly);
                source.ongoing = true;
            }
            Fields::BankStatement(statement) => {
                if let Some(end) = statement.period_end {
                    seen(end);
                }
                for deposit in &statement.deposits {
                    seen(deposit.date);
                    let source = sources
                        .entry(format!("deposits:{}", deposit.payer))
                        .or_insert_with(|| ProviderIncomeSource {
                            amounts_basis: Some(AmountsBasis::Net),
                            ..source(&deposit.payer, "OTHER")
                        });
                    source.payments.push(Payment {
                        date: deposit.date,
                        amount: dollars(deposit.cents),
                    });
                    source.payments.sort_by_key(|p| p.date);
                }
            }
            Fields::None => {}
        }
    }
    Some(ProviderIncome {
        as_of: latest?.min(today),
        method: VerificationMethod::Document,
        sources: sources.into_values().collect(),
        provider_confidence: None,
    })
}

/// One employer's stubs group under one key, however its name is written on them.
fn employer_key(name: &str) -> String {
    let words = payer_words(name);
    if words.is_empty() {
        name.trim().to_lowercase()
    } else {
        words.join(" ")
    }
}

fn source(name: &str, category: &str) -> ProviderIncomeSource {
    ProviderIncomeSource {
        name: name.to_string(),
        category: category.to_string(),
        method: Some(VerificationMethod::Document),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use proptest::prelude::*;

    use super::*;
    use crate::documents::{BankStatement, BenefitLetter, Deposit, DocumentKind, PayStub, Verdict};
    use crate::income::AmountsBasis;

    fn analysed(kind: DocumentKind, fields: Fields) -> Analysis {
        Analysis {
            kind,
            verdict: Verdict::Clean,
            reason: None,
            pages: 1,
            fields,
            checks: vec![],
        }
    }

    /// One employer written as stubs write it: its case, its punctuation, its suffix.
    fn spelled(employer: &str, how: u8) -> String {
        match how % 4 {
            0 => employer.to_uppercase(),
            1 => format!("{employer}."),
            2 => format!("{employer} Inc"),
            _ => employer.to_string(),
        }
    }

    const EMPLOYERS: [&str; 3] = ["Acme Corp", "Riverside Medical", "Summit Dental"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Generated stubs of up to three employers, each spelled several ways, beside a
        /// letter and a statement: one stub source per employer whatever the spelling, every
        /// stub counted once, the statement's deposits net, the letter ongoing, and an as-of
        /// date that is the documents' latest and never after the report's day.
        #[test]
        fn stubs_group_by_employer_and_the_as_of_date_never_passes_today(
            stubs in proptest::collection::vec((0usize..3, any::<u8>(), 0i64..120, 1i64..500_000), 1..12),
            letter_days in proptest::option::of(-60i64..60),
            today_back in 0i64..120,
        ) {
            let first: NaiveDate = "2026-06-01".parse().unwrap();
            let today = first + Duration::days(119 - today_back);
            let mut docs: Vec<Analysis> = stubs
                .iter()
                .map(|(e, how, day, gross)| {
                    analysed(DocumentKind::PayStub, Fields::PayStub(PayStub {
                        employer: Some(spelled(EMPLOYERS[*e], *how)),
                        pay_date: Some(first + Duration::days(*day)),
                        gross_cents: Some(*gross),
                        net_cents: Some(gross * 3 / 4),
                        ..PayStub::default()
                    }))
                })
                .collect();
            if let Some(days) = letter_days {
                docs.push(analysed(DocumentKind::BenefitLetter, Fields::BenefitLetter(BenefitLetter {
                    payer: Some("Social Security Administration".into()),
                    recipient: None,
                    monthly_cents: Some(96_700),
                    effective_date: Some(today + Duration::days(days)),
                })));
            }
            docs.push(analysed(DocumentKind::BankStatement, Fields::BankStatement(BankStatement {
                deposits: vec![Deposit {
                    date: first + Duration::days(30),
                    cents: 150_000,
                    payer: "ACME CORP PAYROLL".into(),
                }],
                ..BankStatement::default()
            })));
            let refs: Vec<&Analysis> = docs.iter().collect();
            let income = provider_income(&refs, today).expect("stubs show a date");
            let latest = (stubs.iter().map(|s| first + Duration::days(s.2)))
                .chain(letter_days.map(|d| today + Duration::days(d)))
                .chain([first + Duration::days(30)])
                .max()
                .unwrap();
            prop_assert_eq!(income.as_of, latest.min(today));
            let stub_sources: Vec<&ProviderIncomeSource> =
                income.sources.iter().filter(|s| s.category == "SALARY").collect();
            let mut employers: Vec<usize> = stubs.iter().map(|s| s.0).collect();
            employers.sort();
            employers.dedup();
            prop_assert_eq!(stub_sources.len(), employers.len());
            let counted: usize = stub_sources.iter().map(|s| s.payments.len()).sum();
            prop_assert_eq!(counted, stubs.len());
            for s in &income.sources {
                prop_assert_eq!(s.ongoing, s.category == "BENEFIT_OTHER");
                let deposits = s.category == "OTHER";
                prop_assert_eq!(s.basis(income.method) == AmountsBasis::Net, deposits);
            }
        }
    }
}
