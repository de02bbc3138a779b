//! The double-count rule: a source seen by two methods counts once.
//!
//! A tenant who adds a second method (two jobs, one through payroll and one by stubs; or a bank
//! beside payroll) may show the same job twice: payroll's pay stubs and the bank's deposits of
//! the same pay. Two sources of different methods are one source when
//!
//! 1. their payers match: the names' words, less the words a bank or payroll adds (`payroll`,
//!    `inc`, `dir dep`...; [`PAYER_NOISE`]), are the same or one holds the other's; and
//! 2. their net amounts match: bank deposits are net, and payroll and stubs state net pay beside
//!    gross. At least [`MIN_PAIRED`] net pays each pair with a deposit made from
//!    [`EARLY_DAYS`] days before to [`LAG_DAYS`] days after its pay date, and within
//!    [`NET_TOLERANCE_SHARE`] of the amount or [`NET_TOLERANCE_CENTS`], whichever is larger.
//!    At least [`MIN_PAIRED_SHARE`] of the net pays inside the deposits' span must pair.
//!
//! A gross source that states no net pay cannot be matched on amounts, so it is never merged.
//! Two sources of the same method are never merged: one provider tells its own sources apart.
//! Of a matched pair, the sighting of the method first in [`KEEP_ORDER`] counts.
//! No I/O and no report here: `count_once` hands back the income to count and what it set aside.

use chrono::{Duration, NaiveDate};

use super::rules::window_payments;
use super::{AmountsBasis, Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod};
use crate::domain::affordability::cents_of;

/// Net amounts match within this share of the larger one (rounding, a changed deduction)...
pub const NET_TOLERANCE_SHARE: f64 = 0.02;
/// ...or within this many cents, whichever is larger (a bank's fee on a small deposit).
pub const NET_TOLERANCE_CENTS: i64 = 500;
/// A deposit may post this many days before the pay date (banks that post early)...
pub const EARLY_DAYS: i64 = 2;
/// ...and this many days after it (weekends, holidays, a slow transfer).
pub const LAG_DAYS: i64 = 5;
/// At least this many net pays must pair with deposits.
pub const MIN_PAIRED: usize = 2;
/// At least this share of the net pays inside the deposits' span must pair.
pub const MIN_PAIRED_SHARE: f64 = 0.5;
/// Words that name no payer: what banks and payroll systems add to one.
pub const PAYER_NOISE: &[&str] = &[
    "the",
    "payroll",
    "pay",
    "paycheck",
    "wages",
    "salary",
    "inc",
    "llc",
    "ltd",
    "co",
    "corp",
    "corporation",
    "company",
    "dir",
    "dep",
    "direct",
    "deposit",
    "ach",
    "ppd",
    "des",
    "id",
];
/// Of one source seen twice, the sighting that counts: payroll states employer, status, gross
/// and net from the system of record; a stub is the tenant's copy of it; a deposit shows net only.
pub const KEEP_ORDER: [VerificationMethod; 3] = [
    VerificationMethod::Payroll,
    VerificationMethod::Document,
    VerificationMethod::Bank,
];

/// A sighting set aside as the same income as a counted one.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    /// The name of the sighting that counts, and its method.
    pub kept: String,
    pub kept_method: VerificationMethod,
    /// The sighting set aside, as the provider gave it.
    pub dropped: ProviderIncomeSource,
    pub dropped_method: VerificationMethod,
}

/// `income` with each source seen by two methods once, and the sightings set aside.
pub fn count_once(income: &ProviderIncome) -> (ProviderIncome, Vec<Duplicate>) {
    let method_of = |s: &ProviderIncomeSource| s.method.unwrap_or(income.method);
    let mut dropped = vec![false; income.sources.len()];
    let mut duplicates = Vec::new();
    for i in 0..income.sources.len() {
        for j in i + 1..income.sources.len() {
            if dropped[i] || dropped[j] {
                continue;
            }
            let (a, b) = (&income.sources[i], &income.sources[j]);
            if !same_source(a, method_of(a), b, method_of(b), income.as_of) {
                continue;
            }
            let rank = |m| KEEP_ORDER.iter().position(|k| *k == m);
            let (keep, drop) = if rank(method_of(a)) <= rank(method_of(b)) {
                (a, j)
            } else {
                (b, i)
            };
            dropped[drop] = true;
            let gone = &income.sources[drop];
            duplicates.push(Duplicate {
                kept: keep.name.clone(),
                kept_method: method_of(keep),
                dropped: gone.clone(),
                dropped_method: method_of(gone),
            });
        }
    }
    let sources = (income.sources.iter().zip(&dropped))
        .filter(|(_, gone)| !**gone)
        .map(|(s, _)| s.clone())
        .collect();
    (
        ProviderIncome {
            sources,
            ..income.clone()
        },
        duplicates,
    )
}

/// Whether `a` (seen by `a_method`) and `b` are the same income: different methods, the same
/// payer, and net amounts that pair up (see the module's rule).
pub fn same_source(
    a: &ProviderIncomeSource,
    a_method: VerificationMethod,
    b: &ProviderIncomeSource,
    b_method: VerificationMethod,
    as_of: NaiveDate,
) -> bool {
    if a_method == b_method || !same_payer(&a.name, &b.name) {
        return false;
    }
    let (Some(a_net), Some(b_net)) = (net_pays(a, a_method, as_of), net_pays(b, b_method, as_of))
    else {
        return false;
    };
    // The bank's side is the deposits, which land after the pay date, whatever the counts (a
    // bank's window may hold fewer deposits than payroll's stubs). Between stubs and payroll,
    // which share pay dates, the fewer pays pair against the more numerous side.
    let (pays, deposits) = match (a_method, b_method) {
        (_, VerificationMethod::Bank) => (a_net, b_net),
        (VerificationMethod::Bank, _) => (b_net, a_net),
        _ if a_net.len() <= b_net.len() => (a_net, b_net),
        _ => (b_net, a_net),
    };
    nets_pair(&pays, &deposits)
}

/// The net pays of a source: its payments when they are net, else the net pay it states beside
/// gross (None when it states none).
fn net_pays(
    source: &ProviderIncomeSource,
    method: VerificationMethod,
    as_of: NaiveDate,
) -> Option<Vec<Payment>> {
    let net = match source.basis(method) {
        AmountsBasis::Net => window_payments(source, as_of),
        AmountsBasis::Gross => {
            let stated = ProviderIncomeSource {
                payments: source.net_payments.clone(),
                ..ProviderIncomeSource::default()
            };
            window_payments(&stated, as_of)
        }
    };
    (!net.is_empty()).then_some(net)
}

/// The payer's words, less the noise a bank or payroll adds.
fn payer_words(name: &str) -> Vec<String> {
    name.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !PAYER_NOISE.contains(w))
        .map(str::to_string)
        .collect()
}

/// Whether two names name one payer: the same words, or one's words all in the other's.
pub fn same_payer(a: &str, b: &str) -> bool {
    let (a, b) = (payer_words(a), payer_words(b));
    let within = |x: &[String], y: &[String]| x.iter().all(|w| y.contains(w));
    !a.is_empty() && !b.is_empty() && (within(&a, &b) || within(&b, &a))
}

/// Whether two net amounts are the same pay, within the tolerance.
pub fn amounts_match(a: f64, b: f64) -> bool {
    let (a, b) = (cents_of(a), cents_of(b));
    let allowed = ((a.max(b) as f64 * NET_TOLERANCE_SHARE).round() as i64).max(NET_TOLERANCE_CENTS);
    (a - b).abs() <= allowed
}

/// Whether enough of `pays` pair with `deposits`, each deposit used once.
fn nets_pair(pays: &[Payment], deposits: &[Payment]) -> bool {
    let (Some(first), Some(last)) = (deposits.first(), deposits.last()) else {
        return false;
    };
    let (start, end) = (
        first.date - Duration::days(LAG_DAYS),
        last.date + Duration::days(EARLY_DAYS),
    );
    let inside: Vec<&Payment> = pays
        .iter()
        .filter(|p| p.date >= start && p.date <= end)
        .collect();
    let mut used = vec![false; deposits.len()];
    let mut paired = 0;
    for pay in &inside {
        let found = deposits.iter().enumerate().position(|(k, d)| {
            !used[k]
                && d.date >= pay.date - Duration::days(EARLY_DAYS)
                && d.date <= pay.date + Duration::days(LAG_DAYS)
                && amounts_match(pay.amount, d.amount)
        });
        if let Some(k) = found {
            used[k] = true;
            paired += 1;
        }
    }
    paired >= MIN_PAIRED && paired as f64 >= MIN_PAIRED_SHARE * inside.len() as f64
}

#[cfg(test)]
mod tests;
