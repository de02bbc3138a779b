//! `admin income-report`: the income report of a file of raw income data, built by the same
//! rules as the API, so a landlord's or tenant's question about a figure can be answered from
//! the data behind it. Needs no table and no AWS access.

use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args};
use domain::affordability::{MAX_INCOME_MULTIPLE, MIN_INCOME_MULTIPLE, RentTerms};
use domain::income::ProviderIncome;
use domain::report::build_report_with;

/// The rent is money the API keeps within this range too.
const MAX_RENT: f64 = 10_000_000.0;

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["payments", "plaid"])))]
pub struct IncomeReportArgs {
    /// The domain's own input: {"as_of": "YYYY-MM-DD", "sources": [{"name", "category",
    /// "method"?, "pay_frequency"?, "pay_rate"?, "employment_status"?, "payments": [{"date",
    /// "amount"}]}]} (docs/income-report.md).
    #[arg(long, value_name = "FILE")]
    pub payments: Option<PathBuf>,
    /// A stored Plaid `/credit/bank_income/get` response.
    #[arg(long, value_name = "FILE")]
    pub plaid: Option<PathBuf>,
    #[arg(long)]
    pub monthly_rent: Option<f64>,
    #[arg(long)]
    pub rent_subsidy: Option<f64>,
    /// The landlord's income rule, 1 to 5 (default 3).
    #[arg(long)]
    pub income_multiple: Option<f64>,
}

/// The report as pretty JSON, or a message naming what is wrong with the input.
pub fn income_report(args: &IncomeReportArgs) -> Result<String, String> {
    let terms = rent_terms(args)?;
    let income = match (&args.payments, &args.plaid) {
        (Some(path), _) => parse_payments(&read(path)?)?,
        (None, Some(path)) => adapters::plaid::income_from_response_json(&read(path)?)
            .map_err(|e| format!("{}: {e}", path.display()))?,
        (None, None) => return Err("give --payments FILE or --plaid FILE".into()),
    };
    let report = build_report_with(&income, &terms);
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads the domain's input; every message names the field at fault.
pub fn parse_payments(body: &str) -> Result<ProviderIncome, String> {
    let income: ProviderIncome = domain::json::parse_naming_field(body)?;
    for (i, source) in income.sources.iter().enumerate() {
        if source.pay_rate.is_some_and(|r| r <= 0.0) {
            return Err(format!("sources[{i}].pay_rate: must be above zero"));
        }
        for (j, payment) in source.payments.iter().enumerate() {
            if payment.amount <= 0.0 {
                return Err(format!(
                    "sources[{i}].payments[{j}].amount: must be above zero (money received)"
                ));
            }
        }
    }
    if income
        .provider_confidence
        .is_some_and(|c| !(0.0..=1.0).contains(&c))
    {
        return Err("provider_confidence: must be between 0 and 1".into());
    }
    Ok(income)
}

fn rent_terms(args: &IncomeReportArgs) -> Result<RentTerms, String> {
    let in_range = |v: f64, lo: f64, hi: f64| v.is_finite() && (lo..=hi).contains(&v);
    if let Some(rent) = args.monthly_rent
        && !in_range(rent, 0.0, MAX_RENT)
    {
        return Err(format!("--monthly-rent must be between 0 and {MAX_RENT}"));
    }
    if let Some(subsidy) = args.rent_subsidy {
        let Some(rent) = args.monthly_rent else {
            return Err("--rent-subsidy needs --monthly-rent".into());
        };
        if !in_range(subsidy, 0.0, rent) {
            return Err("--rent-subsidy must be between 0 and --monthly-rent".into());
        }
    }
    if let Some(multiple) = args.income_multiple
        && !in_range(multiple, MIN_INCOME_MULTIPLE, MAX_INCOME_MULTIPLE)
    {
        return Err(format!(
            "--income-multiple must be between {MIN_INCOME_MULTIPLE} and {MAX_INCOME_MULTIPLE}"
        ));
    }
    Ok(RentTerms {
        monthly_rent: args.monthly_rent,
        rent_subsidy_monthly: args.rent_subsidy,
        income_multiple: args.income_multiple,
    })
}
