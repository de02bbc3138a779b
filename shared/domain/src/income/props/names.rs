//! The names, bounds and small helpers the generated tenants are made of.

use super::*;

/// Employers of the generated jobs: distinct, sharing no word a payer match could latch onto.
pub(super) const EMPLOYERS: [&str; 8] = [
    "Acme Corporation",
    "Riverside Medical Center",
    "Blue Harbor Logistics",
    "Northwind Traders",
    "Summit Dental Group",
    "Greenleaf Grocers",
    "Cedar Valley Schools",
    "Brightline Staffing",
];

/// How banks name a deposit made by a payroll processor: nothing in it names the employer.
pub(super) const PROCESSORS: [&str; 4] = [
    "GUSTO PAY 240913",
    "ADP WAGE PAY",
    "PAYCHEX EIB PAYROLL",
    "PAYLOCITY DIR DEP",
];

/// How banks name a payroll deposit that names no one at all.
pub(super) const GENERIC_PAYER: &str = "PAYROLL DIR DEP PPD";

/// Payers of monthly benefits and pensions.
pub(super) const BENEFIT_PAYERS: [&str; 4] = [
    "SSA TREAS 310 XXSOC SEC",
    "CALPERS RETIREMENT",
    "STATE DISABILITY INS",
    "VA BENEFITS",
];

/// Payers of one-off deposits.
pub(super) const ONE_OFF_PAYERS: [&str; 5] = [
    "ZELLE FROM J RIVERA",
    "ATM CASH DEPOSIT",
    "EBAY MARKETPLACE",
    "MOBILE CHECK DEPOSIT",
    "VENMO CASHOUT",
];

/// Pay dates are laid out this many periods back, then cut at the start of the job's history
/// (12 months of weekly pay is 53 dates at most).
pub(super) const MAX_PAYS: usize = 60;

/// Order keys drawn per tenant; more than the most sources a tenant has (3 jobs of 4 sources,
/// 2 benefits, 2 one-offs).
pub(super) const ORDER_KEYS: usize = 16;

/// 1000 cases, unless `PROPTEST_CASES` says otherwise (a quick local run, or a longer soak).
pub(super) fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

pub(super) fn latest_as_of() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 13).expect("a valid date")
}

pub(super) fn dollars(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// Net pay of `gross` cents at a net share of `share_bp` basis points, rounded to the cent.
pub(super) fn net_of(gross: i64, share_bp: i64) -> i64 {
    (gross * share_bp + 5_000) / 10_000
}

/// A well-mixed number from a seed and a position (splitmix64), so that one `u64` of the input
/// stands for a whole sequence of lags or shares and shrinks to 0 as one value.
pub(super) fn mix(seed: u64, i: usize) -> u64 {
    let mut z = seed.wrapping_add((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
