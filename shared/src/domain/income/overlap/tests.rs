use super::*;
use crate::domain::income::PayFrequency;
use VerificationMethod::*;

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

const AS_OF: &str = "2026-11-13";

/// A payroll employment: 6 biweekly stubs of 3,000.00 gross, `net` each, the last on Nov 6.
fn payroll(name: &str, net: f64) -> ProviderIncomeSource {
    let gross = ProviderIncomeSource::on_cycle(
        name,
        "SALARY",
        PayFrequency::Biweekly,
        d("2026-11-06"),
        6,
        |_| 3000.0,
    );
    ProviderIncomeSource {
        method: Some(Payroll),
        ..gross.with_net(net)
    }
}

/// Bank deposits of `amount`, biweekly, `lag` days after payroll's pay dates, `n` of them.
fn bank(name: &str, amount: f64, lag: i64, n: usize) -> ProviderIncomeSource {
    ProviderIncomeSource {
        method: Some(Bank),
        ..ProviderIncomeSource::on_cycle(
            name,
            "SALARY",
            PayFrequency::Biweekly,
            d("2026-11-06") + Duration::days(lag),
            n,
            |_| amount,
        )
    }
}

fn income(sources: Vec<ProviderIncomeSource>) -> ProviderIncome {
    ProviderIncome {
        sources,
        ..ProviderIncome::empty(Bank, d(AS_OF))
    }
}

fn names(income: &ProviderIncome) -> Vec<&str> {
    income.sources.iter().map(|s| s.name.as_str()).collect()
}

#[test]
fn a_job_seen_by_payroll_and_the_bank_counts_once_as_payroll() {
    let seen = income(vec![
        bank("ACME CORP DIR DEP", 2307.69, 1, 6),
        payroll("Acme Corporation", 2307.69),
        bank("Corner Cafe wages", 2307.69, 1, 6),
    ]);
    let (once, duplicates) = count_once(&seen);
    assert_eq!(names(&once), vec!["Acme Corporation", "Corner Cafe wages"]);
    assert_eq!(duplicates.len(), 1);
    let dup = &duplicates[0];
    assert_eq!(
        (dup.kept.as_str(), dup.kept_method),
        ("Acme Corporation", Payroll)
    );
    assert_eq!(
        (dup.dropped.name.as_str(), dup.dropped_method),
        ("ACME CORP DIR DEP", Bank)
    );
    // The bank's own sources stay as they were.
    assert_eq!(once.sources[1], seen.sources[2]);
}

#[test]
fn net_amounts_match_within_the_tolerance_only() {
    // 2% of the larger amount, or 5.00, whichever is larger.
    assert!(amounts_match(2307.69, 2300.00));
    assert!(amounts_match(2307.69, 2261.54)); // 46.15 = 2% of 2,307.69
    assert!(!amounts_match(2307.69, 2250.00));
    assert!(amounts_match(100.00, 95.00));
    assert!(!amounts_match(100.00, 94.99));
    // A deduction changed a little: still the same job.
    let (once, _) = count_once(&income(vec![
        payroll("Acme", 2307.69),
        bank("Acme payroll", 2290.00, 2, 6),
    ]));
    assert_eq!(once.sources.len(), 1);
    // The same employer paying other amounts is another job (or another pay): both count.
    let (once, duplicates) = count_once(&income(vec![
        payroll("Acme", 2307.69),
        bank("Acme payroll", 1500.00, 1, 6),
    ]));
    assert_eq!(once.sources.len(), 2);
    assert!(duplicates.is_empty());
}

#[test]
fn deposits_pair_only_near_their_pay_dates_and_often_enough() {
    // Posted up to 5 days after the pay date, or 2 before.
    for lag in [-2, 0, 5] {
        let (once, _) = count_once(&income(vec![
            payroll("Acme", 2307.69),
            bank("Acme", 2307.69, lag, 6),
        ]));
        assert_eq!(once.sources.len(), 1, "lag {lag}");
    }
    for lag in [-3, 6] {
        let (once, _) = count_once(&income(vec![
            payroll("Acme", 2307.69),
            bank("Acme", 2307.69, lag, 6),
        ]));
        assert_eq!(once.sources.len(), 2, "lag {lag}");
    }
    // One matching deposit is not enough: at least two pays must pair.
    let (once, _) = count_once(&income(vec![
        payroll("Acme", 2307.69),
        bank("Acme", 2307.69, 1, 1),
    ]));
    assert_eq!(once.sources.len(), 2);
    // Two of the bank's deposits inside payroll's span is enough when they are the pays there.
    let (once, _) = count_once(&income(vec![
        payroll("Acme", 2307.69),
        bank("Acme", 2307.69, 1, 2),
    ]));
    assert_eq!(once.sources.len(), 1);
}

#[test]
fn payers_match_on_their_words_less_what_banks_and_payroll_add() {
    assert!(same_payer("ACME CORP DIR DEP PPD", "Acme Corporation"));
    assert!(same_payer("Acme Corporation payroll", "ACME"));
    assert!(same_payer("City Library", "CITY LIBRARY PAYROLL INC"));
    assert!(!same_payer("Acme Corporation", "Apex Corporation"));
    assert!(
        !same_payer("Payroll", "Acme payroll"),
        "noise alone names no payer"
    );
    let (once, _) = count_once(&income(vec![
        payroll("Acme", 2307.69),
        bank("Apex", 2307.69, 1, 6),
    ]));
    assert_eq!(once.sources.len(), 2);
}

#[test]
fn no_stated_net_or_one_method_never_merges() {
    // A gross source without net pay beside it cannot be matched on net amounts.
    let mut gross_only = payroll("Acme", 2307.69);
    gross_only.net_payments.clear();
    let (once, _) = count_once(&income(vec![gross_only, bank("Acme", 2307.69, 1, 6)]));
    assert_eq!(once.sources.len(), 2);
    // Two bank sources of one payer and amount are the provider's to tell apart.
    let (once, _) = count_once(&income(vec![
        bank("Acme", 2307.69, 1, 6),
        bank("Acme", 2307.69, 1, 6),
    ]));
    assert_eq!(once.sources.len(), 2);
}

#[test]
fn stubs_and_payroll_match_on_their_net_and_payroll_counts() {
    // Both gross with net beside: their net pay pairs; payroll is kept over the stubs.
    let stubs = ProviderIncomeSource {
        method: Some(Document),
        ..payroll("ACME CORPORATION", 2307.69)
    };
    let (once, duplicates) = count_once(&income(vec![stubs, payroll("Acme", 2307.69)]));
    assert_eq!(names(&once), vec!["Acme"]);
    assert_eq!(duplicates[0].dropped_method, Document);
    // The stubs' basis says gross; the bank's says net.
    assert_eq!(duplicates[0].dropped.basis(Bank), AmountsBasis::Gross);
    assert_eq!(bank("Acme", 1.0, 0, 2).basis(Bank), AmountsBasis::Net);
}

/// A bank window holding fewer deposits than payroll's stubs still pairs them the right way
/// round: deposits land after the pay date (here 4 days), so the job counts once.
#[test]
fn fewer_bank_deposits_than_stubs_still_pair_deposits_after_the_pay_date() {
    let seen = income(vec![
        bank("ACME CORP DIR DEP", 2307.69, 4, 3),
        payroll("Acme Corporation", 2307.69),
    ]);
    let (once, duplicates) = count_once(&seen);
    assert_eq!(names(&once), ["Acme Corporation"]);
    assert_eq!(duplicates.len(), 1);
}
