//! Argyle's states read as its pages define them. Each test edits a documented fixture in one
//! place, named with the page that documents the edited field:
//!
//! - connection states (`connecting`, `connected`, `error`):
//!   https://docs.argyle.com/api-reference/accounts/list-all-accounts (`connection.status`);
//! - data availability (`synced`, `in_progress`, `sync_failed`, absent before a first read):
//!   the same page (`availability.paystubs.status`);
//! - employment (`active`, `inactive`, `terminated`; `inactive` often a leave) and
//!   `termination_datetime`: https://docs.argyle.com/api-reference/identities/list-all-identities;
//! - the gross pay's typed lines (`gross_pay_list[].type`: `base`, `overtime`, `commission`,
//!   `bonus`, ...): https://docs.argyle.com/api-reference/paystubs/list-all-paystubs.

use domain::income::VerificationMethod::Payroll;
use domain::income::{EmploymentStatus, ProviderIncome};
use ports::IncomeProvider;
use serde_json::Value;

use super::*;

/// The fixture `raw` with `edit` applied to its `results`.
fn edited(raw: &str, edit: impl FnOnce(&mut Vec<Value>)) -> String {
    let mut page: Value = serde_json::from_str(raw).unwrap();
    edit(page["results"].as_array_mut().unwrap());
    page.to_string()
}

fn with_accounts(edit: impl FnOnce(&mut Vec<Value>)) -> String {
    edited(ACCOUNTS, edit)
}

async fn fetch(argyle: &FakeProvider) -> Result<ProviderIncome, ports::ProviderError> {
    provider(argyle)
        .fetch_income(&verification(Some(USER)), Payroll, USER)
        .await
}

#[tokio::test]
async fn an_account_still_connecting_is_waited_for_even_beside_a_connected_one() {
    let accounts = with_accounts(|a| {
        a[2]["connection"]["status"] = "connecting".into();
        a[2]["availability"] = Value::Null;
    });
    let argyle = argyle_with_accounts(&accounts).await;

    let text = unavailable(fetch(&argyle).await);

    assert!(text.contains("not finished"), "{text}");
    assert_eq!(argyle.requests().len(), 1, "nothing more is read");
}

#[tokio::test]
async fn an_account_in_error_beside_connected_ones_is_left_out() {
    let accounts = with_accounts(|a| {
        a[2]["connection"]["status"] = "error".into();
        a[2]["connection"]["error_code"] = "account_disabled".into();
    });
    let argyle = argyle_with_accounts(&accounts).await;

    let income = fetch(&argyle).await.unwrap();

    let names: Vec<&str> = income.sources.iter().map(|s| s.name.as_str()).collect();
    assert!(!names.contains(&"GigAndGo"), "{names:?}");
    assert!(names.contains(&"Whole Goods"), "{names:?}");
}

#[tokio::test]
async fn pay_stubs_with_no_sync_state_yet_are_waited_for() {
    let accounts = with_accounts(|a| {
        a[0]["availability"]
            .as_object_mut()
            .unwrap()
            .remove("paystubs");
    });
    let argyle = argyle_with_accounts(&accounts).await;

    let text = unavailable(fetch(&argyle).await);

    assert!(text.contains("still being read"), "{text}");
    assert_eq!(argyle.requests().len(), 1);
}

#[tokio::test]
async fn a_failed_sync_leaves_its_account_out_and_only_failures_are_a_refusal() {
    let one_failed = with_accounts(|a| {
        a[2]["availability"]["paystubs"]["status"] = "sync_failed".into();
    });
    let argyle = argyle_with_accounts(&one_failed).await;
    let income = fetch(&argyle).await.unwrap();
    let names: Vec<&str> = income.sources.iter().map(|s| s.name.as_str()).collect();
    assert!(!names.contains(&"GigAndGo"), "{names:?}");
    assert!(names.contains(&"Whole Goods"), "{names:?}");

    let all_failed = with_accounts(|a| {
        for account in a.iter_mut() {
            account["availability"]["paystubs"]["status"] = "sync_failed".into();
        }
    });
    let argyle = argyle_with_accounts(&all_failed).await;
    let text = rejected(fetch(&argyle).await);
    assert!(text.contains("sync_failed"), "{text}");
    assert_eq!(argyle.requests().len(), 1);
}

#[tokio::test]
async fn inactive_alone_states_nothing_and_a_termination_date_ends_the_job() {
    let identities = edited(IDENTITIES, |ids| {
        // Whole Goods on leave; GigAndGo active but with a termination date.
        ids[0]["employment_status"] = "inactive".into();
        ids[2]["termination_datetime"] = "2026-10-31T00:00:00Z".into();
    });
    let argyle = argyle_with_accounts(ACCOUNTS).await;
    argyle.route("/v2/identities", ok(&identities));

    let income = fetch(&argyle).await.unwrap();

    let status = |name: &str| {
        let source = income.sources.iter().find(|s| s.name == name).unwrap();
        source.employment_status
    };
    assert_eq!(status("Whole Goods"), None, "recency decides");
    assert_eq!(status("GigAndGo"), Some(EmploymentStatus::Ended));
    assert_eq!(status("Double Double"), Some(EmploymentStatus::Ended));
    // The rules still count the job on leave while its stubs are recent.
    let report = domain::report::build_report(&income, None);
    assert!(
        report
            .income_sources
            .iter()
            .any(|s| s.name == "Whole Goods"),
        "{:?}",
        report.income_sources
    );
}

#[tokio::test]
async fn bonus_commission_and_overtime_lines_are_the_variable_part_of_gross_pay() {
    let argyle = argyle_with_accounts(ACCOUNTS).await;
    let first = PAYSTUBS_1.replace("NEXT_PAGE_URL", &format!("{}{PAGE_2}", argyle.base_url));
    let stubs = edited(&first, |stubs| {
        // The newest Whole Goods stub: 1607.63 gross, of which 120.00 overtime and 200.00 bonus.
        stubs[0]["gross_pay_list"] = serde_json::json!([
            {"name": "Regular", "type": "base", "amount": "1287.63"},
            {"name": "Overtime", "type": "overtime", "amount": "120.00"},
            {"name": "Spot bonus", "type": "bonus", "amount": "200.00"},
        ]);
    });
    argyle.route("/v2/paystubs", ok(&stubs));

    let income = fetch(&argyle).await.unwrap();

    let job = income
        .sources
        .iter()
        .find(|s| s.name == "Whole Goods")
        .unwrap();
    assert_eq!(job.variable_payments.len(), 1);
    let variable = job.variable_payments[0];
    assert_eq!(variable.date.to_string(), "2026-11-15");
    assert_eq!(variable.amount, 320.0);
    assert!(
        job.payments.iter().all(|p| p.amount == 1607.63),
        "gross stays whole"
    );
}
