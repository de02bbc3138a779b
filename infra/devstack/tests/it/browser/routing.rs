//! Routing on the tenant page in headless Chromium at phone size: a bank connection that fails
//! does not end the verification; the page offers payroll, consent kept, and payroll succeeds.

use std::time::Duration;

use serde_json::json;

use super::webdriver::*;
use crate::common::{self, artifacts_dir};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_bank_connection_is_followed_by_payroll_on_a_phone() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("browser routing test skipped ({reason})");
        return;
    }
    let artifacts = artifacts_dir();
    let env = common::env().await;
    let created = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "route@example.com", "tenant_name": "Ria Route",
                   "monthly_rent": 1500, "methods": ["bank", "payroll"]}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let id: uuid::Uuid = created.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let link = created.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .to_string();

    let b = Browser::start(&artifacts).await;
    let run = tokio::time::timeout(WHOLE_RUN, async {
        b.phone(Some(PHONE)).await;
        b.goto(&link).await;
        b.wait_for_heading("Verify your income", Duration::from_secs(15))
            .await;
        b.click("#agree").await;
        b.click("button[type=submit]").await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        // The bank connection fails.
        b.click("label[for=s-fail]").await;
        assert!(b.selected("#s-fail").await);
        b.screenshot(&artifacts, "browser-routing-1-bank-phone", true)
            .await;
        b.click("#connect button[type=submit]").await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        let main = b.text("main").await;
        assert!(main.contains("Connecting by bank did not work"), "{main}");
        b.find("#s-payroll_active").await;
        let width = b
            .script("return [window.innerWidth, document.documentElement.scrollWidth]")
            .await;
        assert!(
            width[1].as_f64().unwrap() <= f64::from(PHONE.0),
            "no sideways scrolling on the next method: {width}"
        );
        b.screenshot(&artifacts, "browser-routing-2-payroll-offered-phone", true)
            .await;
        // Payroll, consent kept: no second consent page.
        b.click("label[for=s-payroll_active]").await;
        b.click("#connect button[type=submit]").await;
        b.wait_for_heading("Thank you", Duration::from_secs(20))
            .await;
        b.screenshot(&artifacts, "browser-routing-3-thank-you-phone", true)
            .await;
    })
    .await;
    b.quit().await;
    drop(b);
    run.expect("the routing run finishes in time");
    let got = env.get_verification(&env.test_key, id).await;
    let report = &got.body["data"]["income_report"];
    assert_eq!(report["verification_method"], "payroll", "{}", got.raw);
    let tries: Vec<(&str, &str)> = report["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["method"].as_str().unwrap(),
                a["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(tries, vec![("bank", "failed"), ("payroll", "succeeded")]);
}
