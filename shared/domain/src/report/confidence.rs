//! The confidence score: how far the landlord can lean on the total, with every factor that
//! lowered it named, so the score is evidence and not a black box.
//!
//! `score = method x provider x history x few_payments x irregular x declining x excluded`,
//! two decimals, in [0, 1]:
//! - `method`: the counted income's methods, weighted by income: payroll 0.95, bank 0.90,
//!   document 0.70;
//! - `provider`: the provider's own confidence, when it gives one;
//! - `history`: `0.7 + 0.3 x h`, `h` the income-weighted months observed (at most 12) / 12;
//! - `few_payments`: `1 - 0.15 x` the share of income from sources with fewer than three
//!   payments;
//! - `irregular`: `1 - 0.10 x` the share of income from sources without a pay frequency;
//! - `declining`: 0.90 when the counted income's trend is declining;
//! - `excluded`: 0.95 when any source was left out (the picture has parts that do not count).
//!
//! A report built from uploaded documents starts at `method` 0.70, below a bank connection's
//! 0.90, and takes one more factor (`documents_factor`):
//! - `documents`: 0.80 when the counted income rests on a document that could not be checked
//!   (`undetermined`, such as a photo whose figures the tenant typed).
//!
//! No counted income means 0.

use serde::{Deserialize, Serialize};

use crate::income::VerificationMethod;
use crate::report::{ExcludedSource, IncomeSource};
use crate::stability::{Stability, TrendLabel};

/// One factor of the score, as the multiplier it applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceFactor {
    /// `method`, `provider`, `history`, `few_payments`, `irregular`, `declining`, `excluded` or
    /// `documents`.
    pub factor: String,
    /// The multiplier, 0 to 1, three decimals.
    pub effect: f64,
    pub detail: String,
}

fn method_base(m: VerificationMethod) -> f64 {
    match m {
        VerificationMethod::Payroll => 0.95,
        VerificationMethod::Bank => 0.90,
        VerificationMethod::Document => 0.70,
    }
}

fn round_to(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// The documents' factor: 0.80 when counted income rests on a document that is not `clean`
/// (counted after the landlord accepted it).
pub fn documents_factor(rests_on_unchecked: bool) -> Option<ConfidenceFactor> {
    rests_on_unchecked.then(|| ConfidenceFactor {
        factor: "documents".into(),
        effect: 0.80,
        detail: "some counted income rests on documents the landlord accepted after review".into(),
    })
}

/// The score and the factors below 1 that made it.
pub fn score(
    counted: &[IncomeSource],
    excluded: &[ExcludedSource],
    stability: Option<&Stability>,
    provider_confidence: Option<f64>,
) -> (f64, Vec<ConfidenceFactor>) {
    let total: f64 = counted.iter().map(|s| s.monthly_income).sum();
    if total <= 0.0 {
        return (0.0, vec![]);
    }
    let share = |keep: &dyn Fn(&IncomeSource) -> bool| -> f64 {
        counted
            .iter()
            .filter(|s| keep(s))
            .map(|s| s.monthly_income)
            .sum::<f64>()
            / total
    };
    let mut factors = Vec::new();
    let mut push = |factor: &str, effect: f64, detail: String| {
        if effect < 1.0 {
            factors.push(ConfidenceFactor {
                factor: factor.into(),
                effect: round_to(effect, 3),
                detail,
            });
        }
        effect
    };
    let method: f64 = counted
        .iter()
        .map(|s| method_base(s.method) * s.monthly_income / total)
        .sum();
    let mut score = push(
        "method",
        method,
        "bank 0.90, payroll 0.95, documents 0.70, weighted by income".into(),
    );
    if let Some(p) = provider_confidence {
        let p = p.clamp(0.0, 1.0);
        score *= push(
            "provider",
            p,
            format!("the provider's own confidence, {p:.2}"),
        );
    }
    let months: f64 = counted
        .iter()
        .map(|s| {
            let observed = s.stability.as_ref().map_or(1, |st| st.months_observed);
            f64::from(observed.min(12)) * s.monthly_income / total
        })
        .sum();
    score *= push(
        "history",
        0.7 + 0.3 * months / 12.0,
        format!("{months:.1} of 12 months of history, weighted by income"),
    );
    let few = share(&|s| s.payment_count < 3);
    score *= push(
        "few_payments",
        1.0 - 0.15 * few,
        format!(
            "{:.0}% of the income rests on fewer than three payments",
            few * 100.0
        ),
    );
    let irregular = share(&|s| s.pay_frequency.is_none());
    score *= push(
        "irregular",
        1.0 - 0.10 * irregular,
        format!(
            "{:.0}% of the income has no fixed pay schedule",
            irregular * 100.0
        ),
    );
    if stability.is_some_and(|st| st.trend.label == TrendLabel::Declining) {
        score *= push(
            "declining",
            0.90,
            "the income of the last three months is below the months before".into(),
        );
    }
    if !excluded.is_empty() {
        score *= push(
            "excluded",
            0.95,
            format!("{} source(s) seen and not counted", excluded.len()),
        );
    }
    (round_to(score.clamp(0.0, 1.0), 2), factors)
}
