//! `fetch_income`: accounts, employments, identities and every page of pay stubs mapped to one
//! source per employment, gross and net, for the income rules.

use domain::income::VerificationMethod::Payroll;
use domain::income::rules::ExclusionReason;
use domain::income::{
    AmountsBasis, EmploymentStatus, PayFrequency, ProviderIncomeSource, VerificationMethod,
};
use domain::report::build_report;
use ports::IncomeProvider;

use super::*;

fn by_name<'a>(sources: &'a [ProviderIncomeSource], name: &str) -> &'a ProviderIncomeSource {
    sources.iter().find(|s| s.name == name).expect(name)
}

#[tokio::test]
async fn the_payroll_records_become_one_source_per_employment() {
    let argyle = argyle_with_accounts(ACCOUNTS).await;

    let income = provider(&argyle)
        .fetch_income(&verification(Some(USER)), Payroll, USER)
        .await
        .unwrap();

    let requests = argyle.requests();
    let targets: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        targets[0],
        format!("/v2/accounts?user={USER}&limit=200"),
        "the accounts come first"
    );
    for list in ["employments", "identities", "paystubs"] {
        assert!(
            targets.contains(&format!("/v2/{list}?user={USER}&limit=200").as_str()),
            "{targets:?}"
        );
    }
    assert!(targets.contains(&PAGE_2), "the second page is followed");
    assert_eq!(requests.len(), 5);
    for r in &requests {
        assert_eq!(r.method, "GET");
        assert_authenticated(r);
    }

    assert_eq!(income.method, VerificationMethod::Payroll);
    // The latest scan of the connected accounts ends the window, not the last stub (2026-11-15).
    assert_eq!(income.as_of.to_string(), "2026-11-20");
    let names: Vec<&str> = income.sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 3);

    let job = by_name(&income.sources, "Whole Goods");
    assert_eq!(job.category, "SALARY");
    assert_eq!(job.method, Some(VerificationMethod::Payroll));
    assert_eq!(job.pay_frequency, Some(PayFrequency::SemiMonthly));
    assert_eq!(job.employment_status, Some(EmploymentStatus::Active));
    // 58,024.50 a year over 24 semi-monthly periods.
    assert_eq!(job.pay_rate, Some(2417.69));
    assert_eq!(job.amounts_basis, Some(AmountsBasis::Gross));
    assert_eq!(job.payments.len(), 12);
    assert_eq!(job.payments.last().unwrap().date.to_string(), "2026-11-15");
    assert!(job.payments.iter().all(|p| p.amount == 1607.63));
    assert_eq!(job.net_payments.len(), 12);
    assert!(job.net_payments.iter().all(|p| p.amount == 1290.10));

    let ended = by_name(&income.sources, "Double Double");
    assert_eq!(ended.employment_status, Some(EmploymentStatus::Ended));
    assert_eq!(ended.pay_frequency, Some(PayFrequency::Monthly));
    // Hourly base pay states no pay per period.
    assert_eq!(ended.pay_rate, None);
    assert_eq!(ended.payments.len(), 6);

    let gig = by_name(&income.sources, "GigAndGo");
    assert_eq!(gig.category, "GIG_ECONOMY");
    assert_eq!(gig.pay_frequency, None);
    assert_eq!(gig.payments.len(), 9);

    let report = build_report(&income, Some(1800.0));
    assert_eq!(report.verification_method, VerificationMethod::Payroll);
    assert_eq!(report.amounts_basis, Some(AmountsBasis::Gross));
    let salary = report
        .income_sources
        .iter()
        .find(|s| s.name == "Whole Goods")
        .unwrap();
    // 1,607.63 gross twice a month; 1,290.10 net twice a month, by the same rule.
    assert_eq!(salary.monthly_income, 3215.26);
    assert_eq!(salary.net_monthly_income, Some(2580.2));
    assert_eq!(salary.amounts_basis, Some(AmountsBasis::Gross));
    let excluded: Vec<(&str, ExclusionReason)> = report
        .excluded_sources
        .iter()
        .map(|s| (s.name.as_str(), s.reason))
        .collect();
    assert_eq!(excluded, vec![("Double Double", ExclusionReason::Ended)]);
    assert!(report.income_sources.iter().any(|s| s.name == "GigAndGo"));
}

#[tokio::test]
async fn no_connected_account_is_rejected_and_nothing_else_is_read() {
    let argyle = argyle_with_accounts(ACCOUNTS_EMPTY).await;

    let text = rejected(
        provider(&argyle)
            .fetch_income(&verification(Some(USER)), Payroll, USER)
            .await,
    );

    assert!(text.contains("no payroll account"), "{text}");
    assert_eq!(argyle.requests().len(), 1);
}

#[tokio::test]
async fn a_failed_connection_is_rejected_with_its_code() {
    let argyle = argyle_with_accounts(ACCOUNTS_ERROR).await;

    let text = rejected(
        provider(&argyle)
            .fetch_income(&verification(Some(USER)), Payroll, USER)
            .await,
    );

    assert!(text.contains("account_disabled"), "{text}");
    assert_eq!(argyle.requests().len(), 1);
}

#[tokio::test]
async fn pay_stubs_still_syncing_ask_the_tenant_to_come_back() {
    let argyle = argyle_with_accounts(ACCOUNTS_SYNCING).await;

    let text = unavailable(
        provider(&argyle)
            .fetch_income(&verification(Some(USER)), Payroll, USER)
            .await,
    );

    assert!(text.contains("still being read"), "{text}");
    assert_eq!(argyle.requests().len(), 1);
}

#[tokio::test]
async fn a_next_page_on_another_host_is_never_followed() {
    let argyle = argyle_with_accounts(ACCOUNTS).await;
    argyle.route(
        "/v2/paystubs",
        ok(&PAYSTUBS_1.replace("NEXT_PAGE_URL", "https://evil.example/v2/paystubs?cursor=x")),
    );

    let text = unavailable(
        provider(&argyle)
            .fetch_income(&verification(Some(USER)), Payroll, USER)
            .await,
    );

    assert!(text.contains("/v2/paystubs"), "{text}");
    assert!(
        !argyle
            .requests()
            .iter()
            .any(|r| r.path.contains("cursor=x"))
    );
}

#[tokio::test]
async fn a_handle_that_is_not_an_argyle_user_is_rejected_without_a_call() {
    let argyle = argyle_with_accounts(ACCOUNTS).await;

    rejected(
        provider(&argyle)
            .fetch_income(&verification(None), Payroll, "../users?x=1")
            .await,
    );

    assert!(argyle.requests().is_empty());
}
