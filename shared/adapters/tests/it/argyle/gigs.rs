//! A gig platform read by its gigs (`GET /v2/gigs`,
//! https://docs.argyle.com/api-reference/gigs/list-all-gigs; the fixture `gigs.json` cites it).
//! Argyle states `availability.gigs` only for a gig platform's account
//! (https://docs.argyle.com/api-reference/accounts/list-all-accounts, null for any other): that
//! field, not a list of platform names, decides. Each test sets it on GigAndGo's account.

use domain::income::VerificationMethod::Payroll;
use domain::income::{ProviderIncome, ProviderIncomeSource};
use ports::IncomeProvider;
use serde_json::{Value, json};

use super::*;

const GIGS: &str = include_str!("../../fixtures/argyle/gigs.json");
/// GigAndGo's account in `accounts.json`.
const GIG_ACCOUNT: usize = 2;

/// The accounts with GigAndGo's gigs at `status` (its pay stubs synced as before).
fn with_gigs(status: &str) -> String {
    let mut page: Value = serde_json::from_str(ACCOUNTS).unwrap();
    page["results"][GIG_ACCOUNT]["availability"]["gigs"] = json!({
        "status": status, "updated_at": "2026-11-20T07:02:11.120Z",
        "available_count": 12, "available_from": "2025-11-20T18:25:30Z",
        "available_to": "2026-11-20T00:00:00Z"
    });
    page.to_string()
}

async fn gig_platform(status: &str) -> FakeProvider {
    let argyle = argyle_with_accounts(&with_gigs(status)).await;
    argyle.route("/v2/gigs", ok(GIGS));
    argyle
}

async fn fetch(argyle: &FakeProvider) -> Result<ProviderIncome, ProviderError> {
    provider(argyle)
        .fetch_income(&verification(Some(USER)), Payroll, USER)
        .await
}

fn gig_and_go(income: &ProviderIncome) -> &ProviderIncomeSource {
    income
        .sources
        .iter()
        .find(|s| s.name == "GigAndGo")
        .unwrap()
}

#[tokio::test]
async fn a_gig_platform_is_read_by_its_completed_gigs_one_payment_a_day() {
    let argyle = gig_platform("synced").await;

    let income = fetch(&argyle).await.unwrap();

    // Gigs of the year the rules look at, before the as-of date of 2026-11-20.
    let requests = argyle.requests();
    let gigs: Vec<&str> = (requests.iter().map(|r| r.path.as_str()))
        .filter(|p| p.starts_with("/v2/gigs"))
        .collect();
    assert_eq!(
        gigs,
        [format!(
            "/v2/gigs?user={USER}&limit=200&from_start_datetime=2025-11-20T00%3A00%3A00Z"
        )]
    );
    assert_authenticated(requests.last().unwrap());
    let gig = gig_and_go(&income);
    assert_eq!(gig.category, "GIG_ECONOMY");
    assert_eq!(gig.pay_frequency, None, "irregular");
    let days: Vec<(String, f64)> = (gig.payments.iter())
        .map(|p| (p.date.to_string(), p.amount))
        .collect();
    // Ten completed gigs on nine days; the cancelled and the scheduled one earn nothing.
    assert_eq!(days.len(), 9, "{days:?}");
    assert_eq!(days[0], ("2026-08-13".into(), 47.0));
    assert_eq!(days[8], ("2026-11-18".into(), 92.45), "two gigs that day");
    // The platform's pay stubs pay out the same earnings: none is counted beside the gigs.
    assert!(!days.iter().any(|(_, a)| *a == 410.05), "{days:?}");
    let bonus: Vec<(String, f64)> = (gig.variable_payments.iter())
        .map(|p| (p.date.to_string(), p.amount))
        .collect();
    assert_eq!(bonus, [("2026-11-11".to_string(), 10.0)]);

    // The one set of income rules counts the gigs as the source's income.
    let report = domain::report::build_report(&income, None);
    let counted = (report.income_sources.iter())
        .find(|s| s.name == "GigAndGo")
        .expect("counted");
    assert!(counted.monthly_income > 0.0, "{counted:?}");
    assert!(
        report
            .income_sources
            .iter()
            .any(|s| s.name == "Whole Goods")
    );
}

#[tokio::test]
async fn gigs_still_syncing_are_waited_for_and_nothing_more_is_read() {
    for status in ["in_progress", ""] {
        let argyle = gig_platform(status).await;

        let text = unavailable(fetch(&argyle).await);

        assert!(text.contains("still being read"), "{status:?}: {text}");
        assert_eq!(argyle.requests().len(), 1, "{status:?}: the accounts only");
    }
}

#[tokio::test]
async fn failed_gigs_leave_their_platform_out_and_no_gigs_are_read_without_one() {
    let argyle = gig_platform("sync_failed").await;
    let income = fetch(&argyle).await.unwrap();
    let names: Vec<&str> = income.sources.iter().map(|s| s.name.as_str()).collect();
    assert!(!names.contains(&"GigAndGo"), "{names:?}");
    assert!(names.contains(&"Whole Goods"), "{names:?}");
    let asked = |a: &FakeProvider| (a.requests().iter()).any(|r| r.path.starts_with("/v2/gigs"));
    assert!(!asked(&argyle), "no gig platform is read");

    // Without `availability.gigs` an account is no gig platform: its pay stubs are its income.
    let argyle = argyle_with_accounts(ACCOUNTS).await;
    argyle.route("/v2/gigs", ok(GIGS));
    let income = fetch(&argyle).await.unwrap();
    assert!(!asked(&argyle));
    assert_eq!(gig_and_go(&income).payments.len(), 9, "its nine payouts");
}
