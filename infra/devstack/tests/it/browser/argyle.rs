//! Live routing in headless Chromium (`INCOME_PROVIDERS=plaid_check,argyle`): the bank try at
//! the Plaid emulator fails by its signed webhook, the page offers payroll, Argyle Link (the
//! local stand-in script) connects at the Argyle emulator, the accounts connect and the pay stubs
//! sync, Argyle's signed webhook wakes the read, and the report lists both tries.

use std::time::Duration;

use serde_json::json;

use super::plaid_check::consent_with_identity;
use super::webdriver::*;
use crate::common::{self, artifacts_dir};
use crate::portal::argyle::two_provider_stack;
use crate::portal::plaid_check::stored;
use devstack::argyle_emulator::Stage;
use devstack::plaid_emulator::Report;

/// The button of the page's `start` form: the one that opens the method offered.
const START: &str = r#"form:has(input[name="action"][value="start"]) button[type=submit]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_bank_then_payroll_through_argyle_link_in_chromium_reports_both_tries() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("browser Argyle test skipped ({reason})");
        return;
    }
    let artifacts = artifacts_dir();
    let env = common::env().await;
    let (mut stack, argyle) = two_provider_stack(&env).await;
    let body = json!({"tenant_email": "chromium.routed@example.com", "monthly_rent": 1200});
    let (id, link) =
        crate::portal::live_and_plaid::created_at(&stack.base, &env.live_key, body).await;

    let b = Browser::start(&artifacts).await;
    let run = tokio::time::timeout(WHOLE_RUN, async {
        b.goto(&format!("{}{link}", stack.base)).await;
        consent_with_identity(&b).await;
        // Bank: Plaid Link (the stand-in) completes; the connection waits; Plaid Check fails.
        b.submit(START).await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        b.click("#open").await;
        b.wait_for_heading("Collecting your income data", Duration::from_secs(15))
            .await;
        let plaid_user = stack.plaid.user_ids().pop().expect("a Plaid user");
        assert_eq!(
            stack.plaid.settle(&plaid_user, Report::Failed).await,
            Some(200)
        );
        stack.drain().await;
        eprintln!("chromium routing: CHECK_REPORT_FAILED answered 200");
        // The waiting page refreshes itself to the next method: payroll.
        b.wait_for_heading("Connect your income", Duration::from_secs(30))
            .await;
        let main = b.text("main").await;
        assert!(main.contains("by bank did not work"), "{main}");
        b.screenshot(&artifacts, "browser-argyle-1-bank-failed", false)
            .await;

        // Payroll: the start POST makes a user token; the widget page loads the stand-in script.
        b.submit(START).await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        assert!(
            b.text("main").await.contains("payroll"),
            "the payroll widget"
        );
        let argyle_user = argyle.user_ids().pop().expect("an Argyle user");
        // Link connects at the emulator, then closes: the page posts the connection, which waits.
        b.click("#open").await;
        b.wait_for_heading("Collecting your income data", Duration::from_secs(15))
            .await;
        b.screenshot(&artifacts, "browser-argyle-2-waiting", false)
            .await;
        let v = stored(&env, &id).await;
        assert!(v.awaiting_now().is_some(), "the payroll connection waits");
        assert_eq!(argyle.count("/v2/accounts"), 0, "nothing read yet");
        // The accounts connected at Link; now the pay stubs sync; then Argyle's signed webhook.
        argyle.set(&argyle_user, Stage::Syncing);
        stack.drain().await;
        assert_eq!(
            argyle.count("/v2/paystubs"),
            0,
            "nothing read before the sync"
        );
        assert_eq!(argyle.settle(&argyle_user, Stage::Synced).await, Some(200));
        stack.drain().await;
        eprintln!("chromium routing: paystubs.fully_synced answered 200");
        // The page's own meta refresh brings the report; nothing is clicked.
        b.wait_for_heading("Thank you", Duration::from_secs(30))
            .await;
        b.screenshot(&artifacts, "browser-argyle-3-report", false)
            .await;

        let data = env.get_verification(&env.live_key, &id).await.body["data"].clone();
        assert_eq!(data["status"], "completed");
        let report = &data["income_report"];
        let tries: Vec<_> = (report["attempts"].as_array().unwrap().iter())
            .map(|a| (a["method"].clone(), a["outcome"].clone()))
            .collect();
        assert_eq!(
            tries,
            [
                (json!("bank"), json!("failed")),
                (json!("payroll"), json!("succeeded"))
            ]
        );
        assert_eq!(report["verification_method"], "payroll");
        assert!(report.get("local_sandbox").is_none(), "real providers");
        let shown = json!({
            "status": data["status"],
            "verification_method": report["verification_method"],
            "methods_used": report["methods_used"],
            "attempts": report["attempts"],
            "total_monthly_income": report["total_monthly_income"],
        });
        eprintln!("chromium routing report: {shown:#}");
    })
    .await;
    b.quit().await;
    run.expect("the walk finished in time");
}
