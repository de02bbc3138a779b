//! Affordability: the landlord's income multiple applied to the tenant's portion of the rent.
//!
//! Washington (RCW 59.18.255) and HUD's 2024 screening guidance want a rent subsidy (a voucher or
//! programme paying part of the rent) subtracted before an income multiple is applied, so the
//! rule is `income >= multiple x (rent - subsidy)`. Everything here is exact integer arithmetic:
//! money in cents, the multiple in hundredths (2.5 is 250), so no floating-point edge decides
//! whether a tenant qualifies.

use serde::{Deserialize, Serialize};

/// The multiple a landlord applies when the create request names none.
pub const DEFAULT_INCOME_MULTIPLE: f64 = 3.0;
/// Allowed multiples (inclusive).
pub const MIN_INCOME_MULTIPLE: f64 = 1.0;
pub const MAX_INCOME_MULTIPLE: f64 = 5.0;

/// What the verification says about the rent: the figures the affordability rule needs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RentTerms {
    pub monthly_rent: Option<f64>,
    /// The part of the rent a voucher or programme pays (0 ..= monthly_rent).
    pub rent_subsidy_monthly: Option<f64>,
    /// The landlord's income multiple (1 ..= 5); None means [`DEFAULT_INCOME_MULTIPLE`].
    pub income_multiple: Option<f64>,
}

impl RentTerms {
    /// Only a rent: the contract's original inputs (no subsidy, the 3x default).
    pub fn rent_only(monthly_rent: Option<f64>) -> Self {
        RentTerms {
            monthly_rent,
            ..Default::default()
        }
    }
}

/// The `affordability` object of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Affordability {
    pub monthly_rent: f64,
    pub rent_subsidy_monthly: f64,
    /// monthly_rent - rent_subsidy_monthly: what the tenant pays.
    pub tenant_portion: f64,
    pub income_multiple: f64,
    /// income_multiple x tenant_portion, rounded up to the cent.
    pub income_required: f64,
    /// total_monthly_income >= income_multiple x tenant_portion (exact).
    pub meets_requirement: bool,
    /// The rule applied, as one plain-English sentence.
    pub rule: String,
}

/// A non-negative amount in whole cents (half away from zero); not finite is 0.
pub fn cents_of(amount: f64) -> i64 {
    if !amount.is_finite() {
        return 0;
    }
    (amount.max(0.0) * 100.0).round() as i64
}

/// The multiple in hundredths (2.5 -> 250).
pub fn hundredths_of(multiple: f64) -> i64 {
    if !multiple.is_finite() {
        return 0;
    }
    (multiple * 100.0).round() as i64
}

/// The tenant's portion of the rent, in cents: rent minus subsidy, never below zero.
pub fn tenant_portion_cents(terms: &RentTerms) -> Option<i64> {
    let rent = cents_of(terms.monthly_rent?);
    let subsidy = terms.rent_subsidy_monthly.map_or(0, cents_of);
    Some((rent - subsidy).max(0))
}

/// `1234567` cents as `12,345.67`.
pub fn format_money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    let whole = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}.{:02}", cents % 100)
}

/// `300` hundredths as `3`, `250` as `2.5`, `275` as `2.75`.
fn format_multiple(hundredths: i64) -> String {
    let whole = hundredths / 100;
    match hundredths % 100 {
        0 => whole.to_string(),
        r if r % 10 == 0 => format!("{whole}.{}", r / 10),
        r => format!("{whole}.{r:02}"),
    }
}

/// The affordability of `total_income_cents` under `terms`; None without a rent.
pub fn affordability(terms: &RentTerms, total_income_cents: i64) -> Option<Affordability> {
    let rent = cents_of(terms.monthly_rent?);
    let portion = tenant_portion_cents(terms)?;
    let subsidy = rent - portion;
    let multiple = hundredths_of(terms.income_multiple.unwrap_or(DEFAULT_INCOME_MULTIPLE));
    // income >= multiple/100 x portion  <=>  100 x income >= multiple x portion (exact integers).
    let scaled_required = portion * multiple;
    let meets = 100 * total_income_cents >= scaled_required;
    // Rounded up: the figure shown is never below what the rule asks for.
    let required = (scaled_required + 99) / 100;
    let whose = if subsidy > 0 {
        "the tenant's portion"
    } else {
        "the rent"
    };
    let rule = format!(
        "Income {} is {} {} x {whose} {}{}.",
        format_money(total_income_cents),
        if meets { "at least" } else { "below" },
        format_multiple(multiple),
        format_money(portion),
        if subsidy > 0 {
            format!(
                " (rent {} less a subsidy of {})",
                format_money(rent),
                format_money(subsidy)
            )
        } else {
            String::new()
        }
    );
    Some(Affordability {
        monthly_rent: rent as f64 / 100.0,
        rent_subsidy_monthly: subsidy as f64 / 100.0,
        tenant_portion: portion as f64 / 100.0,
        income_multiple: multiple as f64 / 100.0,
        income_required: required as f64 / 100.0,
        meets_requirement: meets,
        rule,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terms(rent: f64, subsidy: Option<f64>, multiple: Option<f64>) -> RentTerms {
        RentTerms {
            monthly_rent: Some(rent),
            rent_subsidy_monthly: subsidy,
            income_multiple: multiple,
        }
    }

    #[test]
    fn voucher_subsidy_is_subtracted_before_the_multiple() {
        let a = affordability(&terms(1400.0, Some(700.0), None), 420_000).unwrap();
        assert_eq!(a.tenant_portion, 700.0);
        assert_eq!(a.income_multiple, 3.0);
        assert_eq!(a.income_required, 2100.0);
        assert!(a.meets_requirement);
        assert_eq!(
            a.rule,
            "Income 4,200.00 is at least 3 x the tenant's portion 700.00 \
             (rent 1,400.00 less a subsidy of 700.00)."
        );
        let a = affordability(&terms(1400.0, None, Some(2.5)), 340_000).unwrap();
        assert_eq!(a.income_required, 3500.0);
        assert!(!a.meets_requirement);
        assert_eq!(a.rule, "Income 3,400.00 is below 2.5 x the rent 1,400.00.");
        assert_eq!(affordability(&RentTerms::rent_only(None), 100), None);
    }

    #[test]
    fn money_and_multiples_read_plainly() {
        assert_eq!(format_money(0), "0.00");
        assert_eq!(format_money(5), "0.05");
        assert_eq!(format_money(123_456_789), "1,234,567.89");
        assert_eq!(format_money(100_000), "1,000.00");
        assert_eq!(format_multiple(300), "3");
        assert_eq!(format_multiple(250), "2.5");
        assert_eq!(format_multiple(275), "2.75");
        assert_eq!(format_multiple(105), "1.05");
    }

    #[test]
    fn a_full_subsidy_leaves_nothing_to_cover() {
        let a = affordability(&terms(900.0, Some(900.0), Some(5.0)), 0).unwrap();
        assert_eq!((a.tenant_portion, a.income_required), (0.0, 0.0));
        assert!(a.meets_requirement);
    }

    proptest! {
        #[test]
        fn the_rule_is_exact_at_the_edge(
            rent_c in 1i64..1_000_000,
            subsidy_share in 0i64..=100,
            multiple_h in 100i64..=500,
        ) {
            let subsidy_c = rent_c * subsidy_share / 100;
            let portion = rent_c - subsidy_c;
            let t = terms(rent_c as f64 / 100.0, Some(subsidy_c as f64 / 100.0), Some(multiple_h as f64 / 100.0));
            prop_assert_eq!(tenant_portion_cents(&t), Some(portion));
            // The smallest income that meets the rule, in whole cents.
            let edge = (portion * multiple_h + 99) / 100;
            let at = affordability(&t, edge).unwrap();
            prop_assert!(at.meets_requirement);
            prop_assert_eq!(cents_of(at.income_required), edge);
            if edge > 0 {
                prop_assert!(!affordability(&t, edge - 1).unwrap().meets_requirement);
            }
            prop_assert_eq!(cents_of(at.tenant_portion) + cents_of(at.rent_subsidy_monthly), rent_c);
        }
    }
}
