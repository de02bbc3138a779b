//! Plaid's bank income report as the service's [`ProviderIncome`]: one source per Plaid bank
//! income source, amounts per pay period by the rule below.
//!
//! Plaid gives each source a `total_amount` over an observed window, `start_date..=end_date` (first
//! and last deposit); without those dates the window is the extent of the source's
//! `historical_summary` months, and without that the report's `days_requested`.
//!
//! - **Regular** (`WEEKLY`, `BIWEEKLY`, `SEMI_MONTHLY`, `MONTHLY`, `DAILY`): the window from the
//!   first to the last deposit holds `round(days / period) + 1` pay periods, `period` being the
//!   average period length (`365.25 / 12` days divided by the frequency's periods per month).
//!   `amount_per_period = total_amount / periods`, so a missed paycheck lowers the figure instead
//!   of being averaged away. `months_of_history = periods / periods_per_month`, rounded, at least 1
//!   (each deposit pays for one period: 26 biweekly paychecks are 12 months). Without dates the
//!   period count is `transaction_count` (at least 1).
//! - **Irregular** (`UNKNOWN` or no `pay_frequency`, e.g. gig payouts): `pay_frequency` is None and
//!   `amount_per_period` is the monthly average `total_amount / months`, `months` being the
//!   inclusive window length in days divided by `365.25 / 12`, at least 1 (a source seen for one
//!   week counts as one month rather than being scaled up to a monthly rate).
//!   `months_of_history` is `months`, rounded.
//!
//! - **Payments** (for the stability figures): the dated deposits of the source's
//!   `historical_summary[].transactions`, positive amounts only (Plaid reports income deposits as
//!   positive); none when Plaid gives no transactions.
//!
//! Every category counts at its full amount (nothing is dropped or discounted by kind). Sources
//! without a positive total are left out. A report with warnings and no usable source is
//! refused (Plaid could not read the accounts; that is not "no income").

use crate::adapters::plaid::DAYS_REQUESTED;
use crate::adapters::plaid::errors::safe_token;
use crate::adapters::plaid::wire::{BankIncomeGetResponse, BankIncomeItem, BankIncomeSource};
use crate::domain::report::{
    PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod, normalise_category,
};
use crate::domain::stability::Payment;
use crate::ports::ProviderError;

/// Average month length in days, so that 12 months make a (Julian) year.
const DAYS_PER_MONTH: f64 = 365.25 / 12.0;
/// Income source names come from bank transaction descriptions; they are shown in the report.
const MAX_NAME_CHARS: usize = 100;

pub(super) fn income_from_report(
    response: BankIncomeGetResponse,
) -> Result<ProviderIncome, ProviderError> {
    // `options.count = 1`: the first report is the most recent one.
    let Some(report) = response.bank_income.into_iter().next() else {
        return Err(ProviderError::Rejected(
            "Plaid has no bank income report for this user".into(),
        ));
    };
    let days_requested = report
        .days_requested
        .filter(|d| *d > 0)
        .unwrap_or(DAYS_REQUESTED);
    let sources: Vec<ProviderIncomeSource> = report
        .items
        .iter()
        .flat_map(|item| {
            item.bank_income_sources
                .iter()
                .filter_map(move |source| map_source(source, item, days_requested))
        })
        .collect();
    let warnings: Vec<String> = report
        .warnings
        .iter()
        .map(|w| safe_token(w.warning_code.as_deref()))
        .collect();
    if !warnings.is_empty() {
        // An empty report with warnings means Plaid could not read the accounts, not that the
        // tenant has no income: reporting zero income would fail them unfairly.
        if sources.is_empty() {
            return Err(ProviderError::Rejected(format!(
                "Plaid could not read the connected accounts ({})",
                warnings.join(", ")
            )));
        }
        tracing::warn!(warnings = %warnings.join(","), "Plaid bank income report has warnings");
    }
    Ok(ProviderIncome {
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: None,
    })
}

/// One Plaid bank income source as a [`ProviderIncomeSource`], by the rule of the module docs
/// ("Amounts"); None for a source without a positive total.
fn map_source(
    source: &BankIncomeSource,
    item: &BankIncomeItem,
    days_requested: u32,
) -> Option<ProviderIncomeSource> {
    let total = source.total_amount.filter(|t| t.is_finite() && *t > 0.0)?;
    let frequency = pay_frequency(source.pay_frequency.as_deref());
    let window_days = observed_span_days(source);
    let (amount_per_period, months) = match frequency {
        Some(f) => {
            let per_month = f.periods_per_month();
            let period_days = DAYS_PER_MONTH / per_month;
            let periods = match window_days {
                Some(span) => (span as f64 / period_days).round() + 1.0,
                None => f64::from(source.transaction_count.unwrap_or(0).max(1)),
            };
            (total / periods, periods / per_month)
        }
        None => {
            let inclusive_days =
                window_days.map_or(f64::from(days_requested), |span| span as f64 + 1.0);
            let months = (inclusive_days / DAYS_PER_MONTH).max(1.0);
            (total / months, months)
        }
    };
    Some(ProviderIncomeSource {
        name: source_name(source, item),
        category: normalise_category(source.income_category.as_deref().unwrap_or("OTHER")),
        pay_frequency: frequency,
        amount_per_period,
        months_of_history: (months.round() as u32).max(1),
        payments: payments(source),
    })
}

/// The source's dated deposits from its monthly history, oldest first.
fn payments(source: &BankIncomeSource) -> Vec<Payment> {
    let mut payments: Vec<Payment> = source
        .historical_summary
        .iter()
        .flat_map(|month| month.transactions.iter())
        .filter_map(|t| match (t.date, t.amount) {
            (Some(date), Some(amount)) if amount.is_finite() && amount > 0.0 => {
                Some(Payment { date, amount })
            }
            _ => None,
        })
        .collect();
    payments.sort_by_key(|p| p.date);
    payments
}

/// Days from the first to the last deposit (0 for a single one), or None when unknown.
fn observed_span_days(source: &BankIncomeSource) -> Option<i64> {
    let (start, end) = match (source.start_date, source.end_date) {
        (Some(s), Some(e)) => (s, e),
        _ => {
            let start = source
                .historical_summary
                .iter()
                .filter_map(|h| h.start_date)
                .min()?;
            let end = source
                .historical_summary
                .iter()
                .filter_map(|h| h.end_date)
                .max()?;
            (start, end)
        }
    };
    let span = (end - start).num_days();
    (span >= 0).then_some(span)
}

/// Plaid's pay frequencies; `UNKNOWN`, missing or unrecognised means irregular (None).
fn pay_frequency(raw: Option<&str>) -> Option<PayFrequency> {
    match raw?.trim().to_ascii_uppercase().as_str() {
        "WEEKLY" => Some(PayFrequency::Weekly),
        "BIWEEKLY" => Some(PayFrequency::Biweekly),
        "SEMI_MONTHLY" => Some(PayFrequency::SemiMonthly),
        "MONTHLY" => Some(PayFrequency::Monthly),
        "DAILY" => Some(PayFrequency::Daily),
        _ => None,
    }
}

/// The transaction description; without one, the account and institution it was paid into.
fn source_name(source: &BankIncomeSource, item: &BankIncomeItem) -> String {
    let clean = |s: &str| {
        s.trim()
            .trim_matches(|c| matches!(c, '"' | '\u{201c}' | '\u{201d}'))
            .trim()
            .to_string()
    };
    let description = source
        .income_description
        .as_deref()
        .map(clean)
        .filter(|d| !d.is_empty());
    let name = description.unwrap_or_else(|| {
        let account = source.account_id.as_deref().and_then(|id| {
            item.bank_income_accounts
                .iter()
                .find(|a| a.account_id == id)
                .and_then(|a| a.name.as_deref().or(a.official_name.as_deref()))
                .map(clean)
                .filter(|n| !n.is_empty())
        });
        let institution = item
            .institution_name
            .as_deref()
            .map(clean)
            .filter(|n| !n.is_empty());
        match (institution, account) {
            (Some(i), Some(a)) => format!("Deposits to {a} at {i}"),
            (None, Some(a)) => format!("Deposits to {a}"),
            (Some(i), None) => format!("Deposits at {i}"),
            (None, None) => "Bank deposits".to_string(),
        }
    });
    name.chars().take(MAX_NAME_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::plaid::wire::{BankIncomeAccount, HistoricalSummary};
    use chrono::NaiveDate;

    fn date(s: &str) -> Option<NaiveDate> {
        Some(s.parse().unwrap())
    }

    fn item() -> BankIncomeItem {
        BankIncomeItem {
            bank_income_accounts: vec![BankIncomeAccount {
                account_id: "acc-1".into(),
                name: Some("Plaid Checking".into()),
                official_name: None,
            }],
            bank_income_sources: vec![],
            institution_name: Some("Citizens Bank".into()),
        }
    }

    fn source(freq: Option<&str>, total: f64, start: &str, end: &str) -> BankIncomeSource {
        BankIncomeSource {
            account_id: Some("acc-1".into()),
            income_description: Some("ACME PAYROLL".into()),
            income_category: Some("SALARY".into()),
            start_date: date(start),
            end_date: date(end),
            pay_frequency: freq.map(String::from),
            total_amount: Some(total),
            ..Default::default()
        }
    }

    #[test]
    fn regular_sources_divide_by_the_paychecks_in_the_window() {
        // 26 biweekly paychecks, 350 days from first to last.
        let s = map_source(
            &source(Some("BIWEEKLY"), 26.0 * 2000.0, "2025-01-03", "2025-12-19"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!(s.pay_frequency, Some(PayFrequency::Biweekly));
        assert!((s.amount_per_period - 2000.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 12);
        // One monthly deposit: one period, one month.
        let s = map_source(
            &source(Some("MONTHLY"), 1500.0, "2025-06-01", "2025-06-01"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!((s.amount_per_period, s.months_of_history), (1500.0, 1));
        // Semi-monthly, 24 deposits from Jan 15 to Dec 31.
        let s = map_source(
            &source(
                Some("SEMI_MONTHLY"),
                24.0 * 900.0,
                "2025-01-15",
                "2025-12-31",
            ),
            &item(),
            365,
        )
        .unwrap();
        assert!((s.amount_per_period - 900.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 12);
    }

    #[test]
    fn irregular_sources_average_per_month() {
        // 91 days inclusive is ~2.99 months.
        let s = map_source(
            &source(Some("UNKNOWN"), 3000.0, "2025-01-01", "2025-04-01"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!(s.pay_frequency, None);
        assert!((s.amount_per_period - 3000.0 * DAYS_PER_MONTH / 91.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 3);
        // A single deposit counts as one month, not scaled up to a monthly rate.
        let s = map_source(
            &source(None, 400.0, "2025-03-10", "2025-03-10"),
            &item(),
            365,
        )
        .unwrap();
        assert_eq!((s.amount_per_period, s.months_of_history), (400.0, 1));
        // No dates at all: the report's window.
        let mut undated = source(None, 1200.0, "2025-01-01", "2025-01-01");
        undated.start_date = None;
        undated.end_date = None;
        let s = map_source(&undated, &item(), 365).unwrap();
        assert!((s.amount_per_period - 1200.0 * DAYS_PER_MONTH / 365.0).abs() < 1e-9);
        assert_eq!(s.months_of_history, 12);
    }

    #[test]
    fn dates_fall_back_to_the_monthly_history() {
        let mut s = source(None, 600.0, "2025-01-01", "2025-01-01");
        s.start_date = None;
        s.historical_summary = vec![
            HistoricalSummary {
                start_date: date("2025-01-01"),
                end_date: date("2025-01-31"),
                transactions: vec![],
            },
            HistoricalSummary {
                start_date: date("2025-02-01"),
                end_date: date("2025-02-28"),
                transactions: vec![],
            },
        ];
        assert_eq!(observed_span_days(&s), Some(58));
    }

    #[test]
    fn sources_without_a_positive_total_are_skipped() {
        for total in [0.0, -50.0, f64::NAN] {
            let s = source(Some("MONTHLY"), total, "2025-01-01", "2025-03-01");
            assert!(map_source(&s, &item(), 365).is_none());
        }
    }

    #[test]
    fn names_fall_back_to_account_and_institution() {
        let mut s = source(None, 100.0, "2025-01-01", "2025-01-01");
        s.income_description = Some(" \u{201c}PLAID_INC_DIRECT_DEP_PPD\u{201d} ".into());
        assert_eq!(source_name(&s, &item()), "PLAID_INC_DIRECT_DEP_PPD");
        s.income_description = None;
        assert_eq!(
            source_name(&s, &item()),
            "Deposits to Plaid Checking at Citizens Bank"
        );
        s.account_id = Some("other".into());
        assert_eq!(source_name(&s, &item()), "Deposits at Citizens Bank");
        s.income_description = Some("X".repeat(500));
        assert_eq!(source_name(&s, &item()).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn frequencies_and_categories() {
        assert_eq!(
            pay_frequency(Some("SEMI_MONTHLY")),
            Some(PayFrequency::SemiMonthly)
        );
        assert_eq!(pay_frequency(Some("DAILY")), Some(PayFrequency::Daily));
        assert_eq!(pay_frequency(Some("UNKNOWN")), None);
        assert_eq!(pay_frequency(Some("FORTNIGHTLY")), None);
        assert_eq!(pay_frequency(None), None);
        let mut s = source(None, 100.0, "2025-01-01", "2025-01-01");
        s.income_category = Some("CRYPTO_STAKING".into());
        assert_eq!(map_source(&s, &item(), 365).unwrap().category, "OTHER");
        s.income_category = None;
        assert_eq!(map_source(&s, &item(), 365).unwrap().category, "OTHER");
    }
}
