//! The reuse and cross-source checks, as pure functions: keyed fingerprints (HMAC-SHA256 with a
//! key the caller holds, so the store keeps no values and no one without the key can test a
//! guess), the tenant's marks (keyed hashes of their e-mail and name), the reuse check over the
//! marks the store found, and matching each stub's net pay to a bank deposit. The store keeps
//! each fingerprint's submissions for `REUSE_WINDOW_DAYS` (`ports::FingerprintStore`).

use chrono::NaiveDate;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::fields::{dollars, normalise};
use super::{BankStatement, Check, CheckResult, Deposit, PayStub, names};
use crate::income::payer::same_payer;

/// How long a fingerprint's submissions are compared: 90 days.
pub const REUSE_WINDOW_DAYS: i64 = 90;

/// The HMAC key of the fingerprints and the marks: one per stack, held in Secrets Manager. Its
/// `Debug` shows nothing of it.
#[derive(Clone)]
pub struct FingerprintKey(Vec<u8>);

/// The shortest key taken: 32 bytes, SHA-256's block of entropy.
pub const FINGERPRINT_KEY_MIN_BYTES: usize = 32;

impl FingerprintKey {
    /// The key, refused when shorter than `FINGERPRINT_KEY_MIN_BYTES`.
    pub fn new(bytes: Vec<u8>) -> Option<Self> {
        (bytes.len() >= FINGERPRINT_KEY_MIN_BYTES).then_some(FingerprintKey(bytes))
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for FingerprintKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FingerprintKey(<redacted>)")
    }
}

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

/// Whose a submission was, as keyed hashes: the tenant's e-mail (lower case) and name (its words
/// in order, without initials), so two submissions can be told apart as one tenant's or two's
/// without keeping either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantMarks {
    pub email: String,
    pub name: Option<String>,
}

/// The marks of a tenant under `key`.
pub fn tenant_marks(key: &[u8], email: &str, name: Option<&str>) -> TenantMarks {
    let email = email.trim().to_lowercase();
    let name = name.map(normalise).and_then(|n| {
        let mut words: Vec<&str> = n.split(' ').filter(|w| w.len() > 1).collect();
        words.sort_unstable();
        (!words.is_empty()).then(|| words.join(" "))
    });
    TenantMarks {
        email: keyed(key, &[b"email", email.as_bytes()]),
        name: name.map(|n| keyed(key, &[b"name", n.as_bytes()])),
    }
}

/// `reuse`: fails when the same file or the same stub figures were submitted for another tenant
/// within the window, across every account. Another tenant is one whose e-mail and name both
/// differ: a tenant who applies to two landlords, even under a second address, is not a signal.
/// The evidence never says which verification or account the other submission was.
pub fn reuse_check(own: &TenantMarks, earlier: &[TenantMarks]) -> Check {
    let same_tenant =
        |m: &TenantMarks| m.email == own.email || (m.name.is_some() && m.name == own.name);
    let others = earlier.iter().filter(|m| !same_tenant(m)).count();
    if others > 0 {
        Check::new(
            names::REUSE,
            CheckResult::Fail,
            format!(
                "the same file or pay stub figures were submitted for another tenant in the last {REUSE_WINDOW_DAYS} days ({others} time{})",
                if others == 1 { "" } else { "s" }
            ),
        )
    } else {
        Check::new(
            names::REUSE,
            CheckResult::Pass,
            format!(
                "not submitted for another tenant in the last {REUSE_WINDOW_DAYS} days ({} earlier submission{} by this tenant)",
                earlier.len(),
                if earlier.len() == 1 { "" } else { "s" }
            ),
        )
    }
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

/// `deposit_match` for each stub of a set whose pay date a bank statement of the same set
/// covers, with the window on both sides (a deposit just past a statement's end is on the next
/// one). Only the deposits from the stub's employer are compared: a tenant may be paid into
/// another account than the one shown, so a statement without that payer proves nothing and the
/// check says so (not applicable). A stub no statement covers gets no check. Pass only
/// statements that are not themselves edited; the indexes are the caller's.
pub fn deposit_checks(
    stubs: &[(usize, PayStub)],
    statements: &[&BankStatement],
) -> Vec<(usize, Check)> {
    let window = chrono::Duration::days(DEPOSIT_WINDOW_DAYS);
    let mut checks = vec![];
    for (index, stub) in stubs {
        let Some(paid) = stub.pay_date else { continue };
        let covering: Vec<&BankStatement> = (statements.iter().copied())
            .filter(|s| match (s.period_start, s.period_end) {
                (Some(start), Some(end)) => start <= paid - window && paid + window <= end,
                _ => false,
            })
            .collect();
        if covering.is_empty() {
            continue;
        }
        let employer = stub.employer.as_deref().unwrap_or_default();
        let from_employer: Vec<Deposit> = (covering.iter())
            .flat_map(|s| s.deposits.iter())
            .filter(|d| same_payer(&d.payer, employer))
            .cloned()
            .collect();
        let check = match from_employer.is_empty() {
            true => Check::new(
                names::DEPOSIT_MATCH,
                CheckResult::NotApplicable,
                format!(
                    "the bank statement covering {paid} shows no deposit from {}: the pay may go to another account",
                    if employer.is_empty() {
                        "the employer"
                    } else {
                        employer
                    }
                ),
            ),
            false => deposit_match(stub, &from_employer),
        };
        checks.push((*index, check));
    }
    checks
}

fn nearest(day: NaiveDate, deposits: &[Deposit]) -> Option<&Deposit> {
    deposits
        .iter()
        .min_by_key(|d| (d.date - day).num_days().abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"a fingerprint key";

    #[test]
    fn marks_tolerate_case_order_and_initials_and_hide_the_values() {
        let a = tenant_marks(KEY, " Jane.Doe@Example.com", Some("DOE, Jane Q."));
        let b = tenant_marks(KEY, "jane.doe@example.com", Some("Jane Doe"));
        assert_eq!(a, b);
        assert!(!a.email.contains("jane") && a.email.len() == 64);
        assert_ne!(
            tenant_marks(b"another key", "jane.doe@example.com", None).email,
            a.email
        );
        assert_eq!(tenant_marks(KEY, "x@example.com", Some("Q.")).name, None);
    }

    #[test]
    fn only_another_tenant_s_submission_fails_the_check() {
        let own = tenant_marks(KEY, "jane@example.com", Some("Jane Doe"));
        let second_address = tenant_marks(KEY, "jane.work@example.com", Some("Jane Doe"));
        let renamed = tenant_marks(KEY, "jane@example.com", Some("Jane Smith"));
        let other = tenant_marks(KEY, "sam@example.com", Some("Sam Roe"));
        let nameless = tenant_marks(KEY, "sam@example.com", None);
        assert_eq!(reuse_check(&own, &[]).result, CheckResult::Pass);
        let check = reuse_check(&own, &[second_address, renamed]);
        assert_eq!(check.result, CheckResult::Pass);
        assert!(
            check
                .evidence
                .contains("2 earlier submissions by this tenant")
        );
        for earlier in [other, nameless] {
            let check = reuse_check(&own, &[earlier]);
            assert_eq!(check.result, CheckResult::Fail);
            assert!(
                check
                    .evidence
                    .contains("another tenant in the last 90 days (1 time)")
            );
        }
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn statement(from: &str, to: &str, deposits: &[(&str, i64, &str)]) -> BankStatement {
        BankStatement {
            holder: Some("Jane Doe".into()),
            period_start: Some(day(from)),
            period_end: Some(day(to)),
            deposits: (deposits.iter())
                .map(|(date, cents, payer)| Deposit {
                    date: day(date),
                    cents: *cents,
                    payer: payer.to_string(),
                })
                .collect(),
        }
    }

    /// A stub is compared with the deposits from its employer on a statement that covers its
    /// pay date with the window on both sides; another account's statement proves nothing.
    #[test]
    fn a_stub_is_compared_with_its_employers_deposits_on_a_statement_that_covers_it() {
        let stub = PayStub {
            employer: Some("Acme Widgets Inc".into()),
            pay_date: Some(day("2026-10-23")),
            net_cents: Some(146_700),
            ..Default::default()
        };
        let stubs = [(3, stub)];
        let october = statement(
            "2026-10-01",
            "2026-10-31",
            &[("2026-10-23", 146_700, "ACME WIDGETS PAYROLL DIR DEP")],
        );
        let checks = deposit_checks(&stubs, &[&october]);
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].0, 3, "indexed as the caller's set");
        assert_eq!(
            checks[0].1.result,
            CheckResult::Pass,
            "{}",
            checks[0].1.evidence
        );
        // The stub's net pay raised: the employer's real deposit no longer matches.
        let inflated = [(
            3,
            PayStub {
                net_cents: Some(196_700),
                ..stubs[0].1.clone()
            },
        )];
        let failed = &deposit_checks(&inflated, &[&october])[0].1;
        assert_eq!(failed.result, CheckResult::Fail);
        assert!(
            failed
                .evidence
                .contains("the nearest 1,467.00 on 2026-10-23"),
            "{}",
            failed.evidence
        );
        // A statement with deposits from others only: pay may go to another account.
        let other = statement(
            "2026-10-01",
            "2026-10-31",
            &[("2026-10-23", 50_000, "VENMO CASHOUT")],
        );
        let na = &deposit_checks(&stubs, &[&other])[0].1;
        assert_eq!(na.result, CheckResult::NotApplicable);
        assert!(
            na.evidence.contains("no deposit from Acme Widgets Inc"),
            "{}",
            na.evidence
        );
        // A statement ending two days after the pay date does not cover it; nor does another
        // month's: no check at all.
        let short = statement(
            "2026-10-01",
            "2026-10-25",
            &[("2026-10-23", 146_700, "ACME")],
        );
        let november = statement("2026-11-01", "2026-11-30", &[]);
        assert!(deposit_checks(&stubs, &[&short, &november]).is_empty());
    }
}
