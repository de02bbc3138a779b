use super::*;
use crate::income::{PayFrequency, ProviderIncomeSource};
use VerificationMethod::*;

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

const AS_OF: &str = "2026-11-13";

/// Payroll: 6 biweekly pays of 3,000.00 gross, `net` each, the last on Nov 6.
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

/// Each stream as its members' source indexes, the level first.
fn shape(income: &ProviderIncome) -> Vec<Vec<usize>> {
    group(income)
        .iter()
        .map(|s| s.members.iter().map(|m| m.source).collect())
        .collect()
}

#[test]
fn a_job_seen_by_payroll_and_the_bank_is_one_stream_led_by_payroll() {
    let seen = income(vec![
        bank("ACME CORP DIR DEP", 2307.69, 1, 6),
        payroll("Acme Corporation", 2307.69),
        bank("Corner Cafe wages", 1200.00, 1, 6),
    ]);
    assert_eq!(shape(&seen), vec![vec![1, 0], vec![2]]);
}

#[test]
fn deposits_pair_on_dates_and_amounts_whatever_the_payer_is_called() {
    for name in [
        "GUSTO PAY 240913",
        "PAYROLL DIR DEP PPD",
        "ACME CORP PAYROLL",
    ] {
        let seen = income(vec![
            payroll("Acme Corp", 2307.69),
            bank(name, 2307.69, 2, 6),
        ]);
        assert_eq!(shape(&seen), vec![vec![0, 1]], "{name}");
    }
    // A deposit of another amount, or posted too late, is not the pay.
    let other = income(vec![
        payroll("Acme Corp", 2307.69),
        bank("ACME", 1800.0, 1, 6),
    ]);
    assert_eq!(shape(&other), vec![vec![0], vec![1]]);
    let late = income(vec![
        payroll("Acme Corp", 2307.69),
        bank("ACME", 2307.69, 6, 6),
    ]);
    assert_eq!(shape(&late), vec![vec![0], vec![1]]);
}

#[test]
fn a_pay_split_across_accounts_or_credits_of_one_day_pairs_as_a_whole() {
    let accounts = income(vec![
        payroll("Acme Corp", 2000.0),
        bank("ACME CORP PAYROLL", 1600.0, 0, 6),
        bank("ACME CORP PAYROLL", 400.0, 0, 6),
    ]);
    assert_eq!(shape(&accounts), vec![vec![0, 1, 2]]);
    let mut credits = bank("ACME CORP PAYROLL", 1000.0, 0, 6);
    credits.payments.extend(credits.payments.clone());
    let one_account = income(vec![payroll("Acme Corp", 2000.0), credits.clone()]);
    assert_eq!(shape(&one_account), vec![vec![0, 1]]);
    // Without payroll, the credits of one day are one pay of the bank's own stream.
    let streams = group(&income(vec![credits]));
    assert_eq!(streams.len(), 1);
    assert_eq!(streams[0].level().payments.len(), 6);
    assert!(
        streams[0]
            .level()
            .payments
            .iter()
            .all(|p| p.amount == 2000.0)
    );
}

#[test]
fn the_parts_of_a_split_pay_sum_even_when_one_posts_a_day_late() {
    // Two accounts under one name, no payroll: 6 pays of 1,600.00 + 400.00, the second
    // account's part of the oldest pay posted a day late.
    let mut late_part = bank("ACME CORP PAYROLL", 400.0, 0, 6);
    late_part.payments[0].date += Duration::days(1);
    let streams = group(&income(vec![
        bank("ACME CORP PAYROLL", 1600.0, 0, 6),
        late_part,
    ]));
    assert_eq!(streams.len(), 1, "{streams:?}");
    let pays = &streams[0].level().payments;
    assert_eq!(pays.len(), 6, "{pays:?}");
    assert!(pays.iter().all(|p| p.amount == 2000.0), "{pays:?}");
}

#[test]
fn two_jobs_paid_the_same_on_the_same_day_stay_two() {
    let seen = income(vec![
        payroll("Acme Corp", 2000.0),
        bank("PAYROLL DIR DEP PPD", 2000.0, 0, 6),
        bank("GLOBEX PAYROLL", 2000.0, 0, 6),
    ]);
    let streams = shape(&seen);
    assert_eq!(streams.len(), 2, "{streams:?}");
    assert_eq!(streams[0][0], 0);
    assert_eq!(streams[0].len(), 2);
    // The generic name supports nothing, the other employer's name opposes: the generic pairs.
    assert_eq!(streams[0][1], 1);
    assert_eq!(streams[1], vec![2]);
}

#[test]
fn a_single_stub_pairs_with_its_deposit_and_the_deposits_continue_it() {
    let stub = ProviderIncomeSource {
        method: Some(Document),
        pay_rate: Some(3000.0),
        ..ProviderIncomeSource::on_cycle(
            "Acme Corp",
            "SALARY",
            PayFrequency::Biweekly,
            d("2026-11-06"),
            1,
            |_| 3000.0,
        )
        .with_net(2300.0)
    };
    let streams = group(&income(vec![stub, bank("ACME CORP PAYROLL", 2300.0, 0, 7)]));
    assert_eq!(streams.len(), 1, "{streams:?}");
    let bank_member = &streams[0].members[1];
    assert_eq!(bank_member.payments.len(), 7);
    assert_eq!(bank_member.extends.len(), 6);
    assert_eq!(streams[0].timeline().len(), 7);
}

#[test]
fn money_that_is_not_income_never_pairs() {
    let mut transfer = bank("ONLINE TRANSFER FROM SAV", 2307.69, 0, 6);
    transfer.category = "TRANSFER_OWN_ACCOUNTS".into();
    let seen = income(vec![payroll("Acme Corp", 2307.69), transfer]);
    assert_eq!(shape(&seen), vec![vec![0], vec![1]]);
}

#[test]
fn a_stub_of_a_payroll_pay_joins_the_payroll_stream() {
    let stub = ProviderIncomeSource {
        method: Some(Document),
        pay_rate: Some(3000.0),
        ..ProviderIncomeSource::on_cycle(
            "ACME CORPORATION",
            "SALARY",
            PayFrequency::Biweekly,
            d("2026-11-06"),
            2,
            |_| 3000.0,
        )
        .with_net(2307.69)
    };
    let seen = income(vec![stub, payroll("Acme Corp", 2307.69)]);
    assert_eq!(shape(&seen), vec![vec![1, 0]]);
}
