//! The sandbox's payroll scenarios: what a payroll connection (Argyle) would hand over, with
//! gross pay, net pay beside it, and the employment's status. The figures are what the income
//! rules give:
//!
//! | scenario             | pay stubs                                                             | counted a month |
//! |----------------------|-----------------------------------------------------------------------|-----------------|
//! | `payroll_active`     | 24 semi-monthly stubs, gross 2,600.00, net 2,012.40; job active        | 5,200.00 (net 4,024.80) |
//! | `payroll_terminated` | 12 biweekly stubs that stopped four months ago; the job has ended      | 0 (not counted: ended) |
//! | `payroll_gig`        | a delivery platform's payouts in bursts for six months, gross = net   | 1,200.00 |

use chrono::{Duration, NaiveDate};

use domain::income::{
    AmountsBasis, EmploymentStatus, PayFrequency, ProviderIncome, ProviderIncomeSource,
    VerificationMethod,
};

pub const PAYROLL_SCENARIOS: [(&str, &str); 3] = [
    ("payroll_active", "Payroll: an active salaried job"),
    ("payroll_terminated", "Payroll: a job that has ended"),
    ("payroll_gig", "Payroll: a delivery gig platform"),
];

/// A payroll source: gross stubs on a cycle, net beside them.
fn job(
    employer: &str,
    frequency: PayFrequency,
    last: NaiveDate,
    n: usize,
    (gross, net): (f64, f64),
    status: EmploymentStatus,
) -> ProviderIncomeSource {
    let base = ProviderIncomeSource::on_cycle(employer, "SALARY", frequency, last, n, |_| gross);
    ProviderIncomeSource {
        method: Some(VerificationMethod::Payroll),
        pay_rate: Some(gross),
        employment_status: Some(status),
        amounts_basis: Some(AmountsBasis::Gross),
        ..base.with_net(net)
    }
}

/// The income of a payroll scenario, or None when `scenario` is none of them.
pub(super) fn payroll_income(scenario: &str, as_of: NaiveDate) -> Option<ProviderIncome> {
    let last = as_of - Duration::days(3);
    let source = match scenario {
        "payroll_active" => job(
            "Whole Goods Market",
            PayFrequency::SemiMonthly,
            last,
            24,
            (2600.0, 2012.40),
            EmploymentStatus::Active,
        ),
        "payroll_terminated" => job(
            "Double Double Diner",
            PayFrequency::Biweekly,
            last - Duration::days(120),
            12,
            (2300.0, 1790.0),
            EmploymentStatus::Ended,
        ),
        "payroll_gig" => {
            // Payouts in bursts, no pay cycle stated: 26 weeks adding up to the sandbox
            // delivery figure of 1,200.00 a month.
            let mut gig = super::paid_irregularly(
                "GigAndGo deliveries",
                "GIG_ECONOMY",
                last,
                &super::weekly_delivery_payouts(),
            );
            gig.method = Some(VerificationMethod::Payroll);
            gig.employment_status = Some(EmploymentStatus::Active);
            gig.amounts_basis = Some(AmountsBasis::Gross);
            gig.net_payments = gig.payments.clone();
            gig
        }
        _ => return None,
    };
    Some(ProviderIncome {
        as_of,
        method: VerificationMethod::Payroll,
        sources: vec![source],
        provider_confidence: Some(0.95),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::income::AmountsBasis;
    use domain::income::rules::ExclusionReason;
    use domain::report::build_report;

    fn report(scenario: &str) -> domain::report::IncomeReport {
        let as_of = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        build_report(&payroll_income(scenario, as_of).unwrap(), Some(1500.0))
    }

    #[test]
    fn the_table_of_the_module_docs_holds() {
        let active = report("payroll_active");
        assert_eq!(active.total_monthly_income, 5200.0);
        assert_eq!(active.income_sources[0].net_monthly_income, Some(4024.8));
        assert_eq!(active.verification_method, VerificationMethod::Payroll);
        assert_eq!(active.amounts_basis, Some(AmountsBasis::Gross));

        let ended = report("payroll_terminated");
        assert_eq!(ended.total_monthly_income, 0.0);
        assert_eq!(ended.excluded_sources[0].reason, ExclusionReason::Ended);

        let gig = report("payroll_gig");
        assert_eq!(gig.total_monthly_income, 1200.0);
        assert_eq!(gig.income_sources[0].income_category, "GIG_ECONOMY");
        assert!(payroll_income("good", NaiveDate::from_ymd_opt(2026, 11, 20).unwrap()).is_none());
    }
}
