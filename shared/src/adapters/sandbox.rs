//! The sandbox income provider: deterministic scenarios, like the sandbox users of bank-data
//! providers. Test-mode keys always use it. Live keys use it only in the local stack, which builds
//! that in code (`LiveProvider::local_sandbox`); no deployed environment can select it, and its
//! reports say `local_sandbox: true`.
//!
//! The scenario comes from the tenant's choice on the page, or else from a tag in the local part of
//! the tenant's e-mail address (`jane+lowincome@example.com`):
//!
//! | scenario    | income                                                                    |
//! |-------------|---------------------------------------------------------------------------|
//! | `good`      | salary, biweekly 2,400.00 (5,200.00 a month), 12 months of history        |
//! | `lowincome` | part-time wages, weekly 350.00 (1,516.67 a month)                         |
//! | `gig`       | salary semi-monthly 1,500.00, gig work ~850.00/month with no pay cycle, rental 600.00 monthly |
//! | `fail`      | the provider cannot read any income: the verification fails               |
//! | `outage`    | the provider is down: the tenant is asked to try again (nothing changes)  |

use crate::domain::Verification;
use crate::domain::report::{
    PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};
use crate::ports::{ConnectStep, IncomeProvider, ProviderError};

pub const SCENARIOS: [(&str, &str); 5] = [
    ("good", "Salaried, comfortably above 3x rent"),
    ("lowincome", "Part-time wages, below 3x rent"),
    ("gig", "Salary plus gig work and rental income"),
    ("fail", "Bank connection with no readable income"),
    ("outage", "Provider temporarily unavailable"),
];

/// The scenario tagged in an e-mail address (`name+tag@domain`), if it is a known one.
pub fn scenario_from_email(email: &str) -> Option<&'static str> {
    let local = email.split('@').next()?;
    let tag = local.split_once('+')?.1.to_ascii_lowercase();
    SCENARIOS.iter().map(|(s, _)| *s).find(|s| *s == tag)
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SandboxProvider;

fn source(
    name: &str,
    category: &str,
    freq: Option<PayFrequency>,
    amount: f64,
    months: u32,
) -> ProviderIncomeSource {
    ProviderIncomeSource {
        name: name.into(),
        category: category.into(),
        pay_frequency: freq,
        amount_per_period: amount,
        months_of_history: months,
    }
}

/// The figures of one scenario.
pub fn scenario_income(scenario: &str) -> Result<ProviderIncome, ProviderError> {
    let sources = match scenario {
        "good" => vec![source(
            "Acme Corporation payroll",
            "SALARY",
            Some(PayFrequency::Biweekly),
            2400.0,
            12,
        )],
        "lowincome" => vec![source(
            "Corner Cafe wages",
            "SALARY",
            Some(PayFrequency::Weekly),
            350.0,
            8,
        )],
        "gig" => vec![
            source(
                "City Library payroll",
                "SALARY",
                Some(PayFrequency::SemiMonthly),
                1500.0,
                12,
            ),
            source("Rideshare driver payouts", "GIG_ECONOMY", None, 850.0, 6),
            source(
                "Garage rental",
                "RENTAL",
                Some(PayFrequency::Monthly),
                600.0,
                12,
            ),
        ],
        "fail" => {
            return Err(ProviderError::Rejected(
                "no income could be read from the connected accounts".into(),
            ));
        }
        "outage" => return Err(ProviderError::Unavailable("sandbox outage scenario".into())),
        _ => return Err(ProviderError::Rejected("unknown sandbox scenario".into())),
    };
    Ok(ProviderIncome {
        method: VerificationMethod::Bank,
        sources,
        provider_confidence: Some(0.95),
    })
}

impl IncomeProvider for SandboxProvider {
    async fn begin(
        &self,
        _verification: &Verification,
        _provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        Ok(ConnectStep::ChooseScenario {
            scenarios: SCENARIOS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
    }

    async fn fetch_income(
        &self,
        _verification: &Verification,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        scenario_income(connection)
    }

    fn simulated(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::report::build_report;

    #[test]
    fn tags_pick_scenarios() {
        assert_eq!(scenario_from_email("jane+good@example.com"), Some("good"));
        assert_eq!(
            scenario_from_email("Jane+LowIncome@example.com"),
            Some("lowincome")
        );
        assert_eq!(scenario_from_email("jane+other@example.com"), None);
        assert_eq!(scenario_from_email("jane@example.com"), None);
    }

    #[test]
    fn scenarios_give_the_documented_reports() {
        let good = build_report(&scenario_income("good").unwrap(), Some(1500.0));
        assert_eq!(good.total_monthly_income, 5200.0);
        assert_eq!(good.passes_3x_rule, Some(true));
        let low = build_report(&scenario_income("lowincome").unwrap(), Some(1500.0));
        assert_eq!(low.total_monthly_income, 1516.67);
        assert_eq!(low.passes_3x_rule, Some(false));
        let gig = build_report(&scenario_income("gig").unwrap(), Some(1500.0));
        assert_eq!(gig.total_monthly_income, 4450.0);
        assert_eq!(gig.income_sources[1].pay_frequency, None);
        assert_eq!(gig.income_sources[1].income_category, "GIG_ECONOMY");
        assert!(matches!(
            scenario_income("fail"),
            Err(ProviderError::Rejected(_))
        ));
        assert!(matches!(
            scenario_income("outage"),
            Err(ProviderError::Unavailable(_))
        ));
    }
}
