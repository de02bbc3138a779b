//! Plaid's bank income report as the domain's [`ProviderIncome`]: each Plaid bank income source
//! becomes one source with its dated deposits. No income arithmetic here: the domain's income
//! rules make every figure.
//!
//! - **As of**: the report's `generated_time` (Plaid reads the accounts' history up to then), else
//!   the latest `last_updated_time` of its Items. A report with neither is refused: without the
//!   window's end, a source that stopped paying could not be told from a current one.
//! - **Payments**: the dated deposits of the source's `historical_summary[].transactions`,
//!   positive amounts only (Plaid reports income deposits as positive).
//! - **Pay frequency**: Plaid's, `UNKNOWN` meaning irregular. Plaid states no pay rate and no
//!   employment status for bank income.
//! - **Category**: Plaid's `income_category`, with two the adapter assigns itself, because Plaid
//!   counts them as income and they are not:
//!   - `TRANSFER_OWN_ACCOUNTS` when the description is a transfer naming the last digits (`mask`)
//!     of another account the tenant connected;
//!   - `LOAN` when the description is a loan's proceeds (`LOAN` beside `PROCEEDS`,
//!     `DISBURSEMENT`, `DISB` or `FUNDING`).
//!
//! A report with warnings and no usable source is refused (Plaid could not read the accounts;
//! that is not "no income").

use chrono::NaiveDate;

use crate::plaid::errors::safe_token;
use crate::plaid::wire::{BankIncomeGetResponse, BankIncomeItem, BankIncomeSource};
use domain::income::{
    PayFrequency, Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};
use ports::ProviderError;

/// Income source names come from bank transaction descriptions; they are shown in the report.
const MAX_NAME_CHARS: usize = 100;

/// Reads a stored `/credit/bank_income/get` response; the message names the field at fault.
pub fn income_from_response_json(body: &str) -> Result<ProviderIncome, String> {
    let response: BankIncomeGetResponse = domain::json::parse_naming_field(body)?;
    income_from_report(response).map_err(|e| e.to_string())
}

pub(super) fn income_from_report(
    response: BankIncomeGetResponse,
) -> Result<ProviderIncome, ProviderError> {
    // `options.count = 1`: the first report is the most recent one.
    let Some(report) = response.bank_income.into_iter().next() else {
        return Err(ProviderError::Rejected(
            "Plaid has no bank income report for this user".into(),
        ));
    };
    let as_of: NaiveDate = report
        .generated_time
        .or_else(|| {
            report
                .items
                .iter()
                .filter_map(|i| i.last_updated_time)
                .max()
        })
        .map(|t| t.date_naive())
        .ok_or_else(|| {
            ProviderError::Rejected("Plaid's bank income report has no generation time".into())
        })?;
    let masks: Vec<&str> = report
        .items
        .iter()
        .flat_map(|item| item.bank_income_accounts.iter())
        .filter_map(|a| a.mask.as_deref())
        .filter(|m| m.len() >= 2)
        .collect();
    let sources: Vec<ProviderIncomeSource> = report
        .items
        .iter()
        .flat_map(|item| {
            let masks = &masks;
            item.bank_income_sources
                .iter()
                .map(move |source| map_source(source, item, masks))
        })
        .filter(|s| !s.payments.is_empty())
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
        as_of,
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: None,
    })
}

/// One Plaid bank income source with its deposits.
fn map_source(
    source: &BankIncomeSource,
    item: &BankIncomeItem,
    own_masks: &[&str],
) -> ProviderIncomeSource {
    ProviderIncomeSource {
        name: source_name(source, item),
        category: category(source, own_masks),
        method: None,
        pay_frequency: source
            .pay_frequency
            .as_deref()
            .and_then(PayFrequency::parse),
        pay_rate: None,
        employment_status: None,
        payments: payments(source),
        ..Default::default()
    }
}

/// Plaid's category, or one this adapter recognises in the description (module docs).
fn category(source: &BankIncomeSource, own_masks: &[&str]) -> String {
    let description = source
        .income_description
        .as_deref()
        .unwrap_or("")
        .to_ascii_uppercase();
    let words: Vec<&str> = description
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let names_own_account = own_masks.iter().any(|mask| {
        // The account number as banks print it: its last digits, masked or not (`XXXXXX4521`).
        words.iter().any(|w| {
            w.strip_suffix(mask)
                .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == 'X'))
        })
    });
    if (has("TRANSFER") || has("XFER")) && names_own_account {
        return "TRANSFER_OWN_ACCOUNTS".into();
    }
    if has("LOAN")
        && ["PROCEEDS", "DISBURSEMENT", "DISB", "FUNDING"]
            .iter()
            .any(|w| has(w))
    {
        return "LOAN".into();
    }
    source
        .income_category
        .clone()
        .unwrap_or_else(|| "OTHER".into())
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
    use crate::plaid::wire::{BankIncomeAccount, HistoricalSummary, HistoricalTransaction};

    fn date(s: &str) -> Option<NaiveDate> {
        Some(s.parse().unwrap())
    }

    fn account(id: &str, mask: &str) -> BankIncomeAccount {
        BankIncomeAccount {
            account_id: id.into(),
            name: Some("Plaid Checking".into()),
            official_name: None,
            mask: Some(mask.into()),
        }
    }

    fn item() -> BankIncomeItem {
        BankIncomeItem {
            bank_income_accounts: vec![account("acc-1", "0000")],
            bank_income_sources: vec![],
            institution_name: Some("Citizens Bank".into()),
            last_updated_time: None,
        }
    }

    fn source(description: &str, deposits: &[(&str, f64)]) -> BankIncomeSource {
        BankIncomeSource {
            account_id: Some("acc-1".into()),
            income_description: Some(description.into()),
            income_category: Some("SALARY".into()),
            pay_frequency: Some("BIWEEKLY".into()),
            historical_summary: vec![HistoricalSummary {
                transactions: deposits
                    .iter()
                    .map(|(d, a)| HistoricalTransaction {
                        date: date(d),
                        amount: Some(*a),
                    })
                    .collect(),
            }],
        }
    }

    #[test]
    fn deposits_become_payments_oldest_first_positive_only() {
        let s = map_source(
            &source(
                "ACME PAYROLL",
                &[
                    ("2026-11-13", 2000.0),
                    ("2026-10-30", 2000.0),
                    ("2026-10-16", -5.0),
                ],
            ),
            &item(),
            &[],
        );
        assert_eq!(s.pay_frequency, Some(PayFrequency::Biweekly));
        let dates: Vec<String> = s.payments.iter().map(|p| p.date.to_string()).collect();
        assert_eq!(dates, ["2026-10-30", "2026-11-13"]);
        assert_eq!((s.pay_rate, s.employment_status), (None, None));
    }

    #[test]
    fn transfers_from_own_accounts_and_loan_proceeds_are_named_as_such() {
        let masks = ["0000", "4521"];
        let category = |d: &str| super::category(&source(d, &[]), &masks);
        assert_eq!(
            category("ONLINE TRANSFER FROM SAV XXXXXX4521"),
            "TRANSFER_OWN_ACCOUNTS"
        );
        assert_eq!(category("XFER FROM CHK ...0000"), "TRANSFER_OWN_ACCOUNTS");
        // A transfer from an account the tenant did not connect is Plaid's to categorise.
        assert_eq!(category("ONLINE TRANSFER FROM SAV XXXXXX9999"), "SALARY");
        assert_eq!(category("SOFI LOAN PROCEEDS"), "LOAN");
        assert_eq!(category("UPSTART LOAN DISB PPD"), "LOAN");
        assert_eq!(category("LOANDEPOT PAYROLL"), "SALARY");
        let mut none = source("ACME", &[]);
        none.income_category = None;
        assert_eq!(super::category(&none, &masks), "OTHER");
    }

    #[test]
    fn names_fall_back_to_account_and_institution() {
        let mut s = source("x", &[]);
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
    fn the_as_of_date_is_the_reports_generation_else_its_items_last_update() {
        let body = |generated: &str, updated: &str| {
            format!(
                r#"{{"bank_income": [{{{generated} "items": [{{{updated} "bank_income_sources": [
                    {{"income_description": "ACME", "income_category": "SALARY", "pay_frequency": "MONTHLY",
                      "historical_summary": [{{"transactions": [{{"date": "2026-10-01", "amount": 10.0}}]}}]}}]}}]}}]}}"#
            )
        };
        let income = income_from_response_json(&body(
            r#""generated_time": "2026-11-20T16:42:07Z","#,
            r#""last_updated_time": "2026-11-21T00:00:00Z","#,
        ))
        .unwrap();
        assert_eq!(income.as_of, date("2026-11-20").unwrap());
        let income =
            income_from_response_json(&body("", r#""last_updated_time": "2026-11-21T00:00:00Z","#))
                .unwrap();
        assert_eq!(income.as_of, date("2026-11-21").unwrap());
        let refused = income_from_response_json(&body("", "")).unwrap_err();
        assert!(refused.contains("generation time"), "{refused}");
        let bad =
            income_from_response_json(&body(r#""generated_time": "yesterday","#, "")).unwrap_err();
        assert!(bad.starts_with("bank_income[0].generated_time"), "{bad}");
    }
}
