//! A live-mode tenant in headless Chromium through Plaid Check at the Plaid emulator: consent
//! with identity, Plaid Link (the local stand-in script), the waiting page, the signed webhook,
//! and the page refreshing itself to the report.

use std::time::Duration;

use serde_json::json;

use super::webdriver::*;
use crate::common::{self, artifacts_dir};
use crate::portal::plaid_check::plaid_stack;
use devstack::plaid_emulator::Report;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_tenant_walks_consent_link_waiting_webhook_report_in_chromium() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("browser Plaid Check test skipped ({reason})");
        return;
    }
    let artifacts = artifacts_dir();
    let env = common::env().await;
    let mut stack = plaid_stack(&env).await;
    let (status, body) = crate::portal::live_and_plaid::create_at(
        &stack.base,
        &env.live_key,
        "chromium.tenant@example.com",
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let id = body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .to_string();

    let b = Browser::start(&artifacts).await;
    let run = tokio::time::timeout(WHOLE_RUN, async {
        b.goto(&link).await;
        consent_with_identity(&b).await;
        eprintln!("chromium walk: consent with identity recorded");
        // The start POST makes the link token; the widget page loads the stand-in Link script.
        b.submit("form button[type=submit]").await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        b.find("#open").await;
        b.screenshot(&artifacts, "browser-plaid-1-link", false)
            .await;
        // Link opens and completes at the emulator, then the page posts the connection.
        b.click("#open").await;
        b.wait_for_heading("Collecting your income data", Duration::from_secs(15))
            .await;
        let main = b.text("main").await;
        assert!(
            main.contains("You do not need to do anything or connect again"),
            "{main}"
        );
        b.screenshot(&artifacts, "browser-plaid-2-waiting", false)
            .await;
        eprintln!("chromium walk: waiting page shown");
        let stored = ports::VerificationStore::get_verification(&env.store, id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert!(stored.awaiting_now().is_some(), "the connection waits");
        // Plaid Check finishes: its signed webhook wakes the report.
        let user = stack
            .plaid
            .user_ids()
            .pop()
            .expect("the tenant's Plaid user");
        assert_eq!(stack.plaid.settle(&user, Report::Ready).await, Some(200));
        eprintln!(
            "chromium walk: CHECK_REPORT_READY signed with {} answered 200",
            stack.plaid.current_kid()
        );
        stack.drain().await;
        // The page's own meta refresh (every 10 s) brings the report; nothing is clicked.
        b.wait_for_heading("Thank you", Duration::from_secs(30))
            .await;
        b.screenshot(&artifacts, "browser-plaid-3-report", false)
            .await;
        let data = env.get_verification(&env.live_key, &id).await.body["data"].clone();
        assert_eq!(data["status"], "completed");
        eprintln!(
            "chromium walk: report completed, total_monthly_income {}",
            data["income_report"]["total_monthly_income"]
        );
    })
    .await;
    b.quit().await;
    run.expect("the walk finished in time");
}

/// The consent page as a live tenant of Plaid Check fills it: identity, agreement, submit; then
/// the page to connect income.
pub(super) async fn consent_with_identity(b: &Browser) {
    b.wait_for_heading("Verify your income", Duration::from_secs(15))
        .await;
    for (field, value) in [
        ("#id-first", "Jane"),
        ("#id-last", "Tenant"),
        ("#id-phone", "+14155550123"),
        ("#id-street", "1 Main St"),
        ("#id-city", "Oakland"),
        ("#id-region", "CA"),
        ("#id-zip", "94612"),
    ] {
        let input = b.find(field).await;
        b.cmd(
            reqwest::Method::POST,
            &format!("/element/{input}/value"),
            Some(json!({"text": value})),
        )
        .await;
    }
    // A date input takes its value from script in every locale.
    b.script("document.getElementById('id-dob').value = '1990-04-12'; return true")
        .await;
    b.click("#agree").await;
    b.click("button[type=submit]").await;
    b.wait_for_heading("Connect your income", Duration::from_secs(15))
        .await;
}
