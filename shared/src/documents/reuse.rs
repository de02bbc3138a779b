//! What the reuse and cross-source checks need, as pure functions: keyed fingerprints (HMAC-SHA256
//! with a key the caller holds, so the store keeps no values and no one without the key can
//! test a guess), and matching each stub's net pay to a bank deposit. The store's side (the
//! last 90 days, across accounts) is not here.

use chrono::NaiveDate;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::fields::{dollars, normalise};
use super::{Check, CheckResult, Deposit, PayStub, names};

fn keyed(key: &[u8], parts: &[&[u8]]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    for part in parts {
        mac.update(&(part.len() as u64).to_be_bytes());
        mac.update(part);
    }
    hex::encode(mac.finalize().into_bytes())
}

/// The file's fingerprint: the same bytes give the same value under one key.
pub fn file_fingerprint(key: &[u8], bytes: &[u8]) -> String {
    keyed(key, &[b"file", bytes])
}

/// The stub's figures' fingerprint (employer, pay date, gross and net), so a stub typed again
/// or printed again is recognised; None when a figure is missing.
pub fn stub_fingerprint(key: &[u8], stub: &PayStub) -> Option<String> {
    let employer = normalise(stub.employer.as_deref()?);
    let date = stub.pay_date?.to_string();
    let gross = stub.gross_cents?.to_string();
    let net = stub.net_cents?.to_string();
    Some(keyed(
        key,
        &[
            b"stub",
            employer.as_bytes(),
            date.as_bytes(),
            gross.as_bytes(),
            net.as_bytes(),
        ],
    ))
}

/// A deposit this many days from the pay date can be the stub's.
pub const DEPOSIT_WINDOW_DAYS: i64 = 4;
/// A deposit within this share of the net pay can be the stub's.
pub const DEPOSIT_SHARE: f64 = 0.01;

/// `deposit_match`: the deposit that matches a stub's net pay (within
/// [`DEPOSIT_WINDOW_DAYS`] of its pay date and [`DEPOSIT_SHARE`] of its amount).
pub fn deposit_match(stub: &PayStub, deposits: &[Deposit]) -> Check {
    let (Some(paid), Some(net)) = (stub.pay_date, stub.net_cents) else {
        return Check::new(
            names::DEPOSIT_MATCH,
            CheckResult::Unknown,
            "the stub states no pay date or net pay",
        );
    };
    if deposits.is_empty() {
        return Check::new(
            names::DEPOSIT_MATCH,
            CheckResult::NotApplicable,
            "no bank deposits to compare",
        );
    }
    let close = |d: &&Deposit| {
        (d.date - paid).num_days().abs() <= DEPOSIT_WINDOW_DAYS
            && ((d.cents - net).abs() as f64) <= DEPOSIT_SHARE * net as f64
    };
    match deposits.iter().find(close) {
        Some(d) => Check::new(
            names::DEPOSIT_MATCH,
            CheckResult::Pass,
            format!(
                "net pay {} paid {paid} matches a deposit of {} on {} from {}",
                dollars(net),
                dollars(d.cents),
                d.date,
                d.payer
            ),
        ),
        None => Check::new(
            names::DEPOSIT_MATCH,
            CheckResult::Fail,
            format!(
                "no deposit within {DEPOSIT_WINDOW_DAYS} days of {paid} and 1% of net pay {}; {} deposits compared{}",
                dollars(net),
                deposits.len(),
                nearest(paid, deposits)
                    .map(|d| format!(", the nearest {} on {}", dollars(d.cents), d.date))
                    .unwrap_or_default()
            ),
        ),
    }
}

fn nearest(day: NaiveDate, deposits: &[Deposit]) -> Option<&Deposit> {
    deposits
        .iter()
        .min_by_key(|d| (d.date - day).num_days().abs())
}
