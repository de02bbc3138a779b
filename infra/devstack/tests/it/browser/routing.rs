//! Routing on the tenant page in headless Chromium at phone size: a bank connection that fails
//! does not end the verification; the page offers the next method, consent kept: payroll, which
//! succeeds, or documents, uploaded and finished.

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
    let (id, link) = super::created_link(
        &env,
        json!({"tenant_email": "route@example.com", "tenant_name": "Ria Route",
                   "monthly_rent": 1500, "methods": ["bank", "payroll"]}),
    )
    .await;

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
        b.submit("#connect button[type=submit]").await;
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

/// The other way through: a bank connection fails, and the page offers uploads alone; the
/// tenant uploads the sandbox's genuine stub, the analysis finds it clean, and the report's
/// tries say why documents were used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_bank_connection_is_followed_by_documents_on_a_phone() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("browser routing test skipped ({reason})");
        return;
    }
    let artifacts = artifacts_dir();
    let env = common::env().await;
    let (id, link) = super::created_link(
        &env,
        json!({"tenant_email": "route+docs@example.com", "tenant_name": "Dee Docs",
                   "monthly_rent": 1200, "methods": ["bank", "document"]}),
    )
    .await;
    // The sandbox's genuine stub for this tenant, as the page's sample link serves it.
    let stub = domain::documents::samples::sample_pdf(
        domain::documents::samples::Sample::Genuine,
        id,
        "Dee Docs",
        chrono::Utc::now().date_naive(),
    )
    .unwrap();
    let file = artifacts.join("browser-routing-stub.pdf");
    std::fs::write(&file, stub).unwrap();
    let workers = env.workers();

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
        b.click("label[for=s-fail]").await;
        b.click("#connect button[type=submit]").await;
        // Only uploads remain: the page offers them alone, consent kept.
        b.wait_for_heading("Upload your documents", Duration::from_secs(15))
            .await;
        let main = b.text("main").await;
        assert!(main.contains("Connecting by bank did not work"), "{main}");
        assert!(main.contains("Sandbox: sample documents to try"), "{main}");
        b.screenshot(&artifacts, "browser-routing-4-documents-offered-phone", true)
            .await;
        let input = b.find("input[type=file]").await;
        b.cmd(
            reqwest::Method::POST,
            &format!("/element/{input}/value"),
            Some(json!({"text": file.display().to_string()})),
        )
        .await;
        b.submit("form[enctype='multipart/form-data'] button").await;
        b.wait_for_heading("Upload your documents", Duration::from_secs(15))
            .await;
        crate::documents::pump_until_analysed(&env, &workers, id, 1).await;
        b.goto(&link).await;
        b.wait_for_heading("Upload your documents", Duration::from_secs(15))
            .await;
        assert!(b.text("main").await.contains("no sign of editing found"));
        b.script(
            "document.querySelector('input[value=finish_documents]').form.querySelector('button').click(); return true",
        )
        .await;
        b.wait_for_heading("Thank you", Duration::from_secs(20))
            .await;
        b.screenshot(&artifacts, "browser-routing-5-documents-thank-you-phone", true)
            .await;
    })
    .await;
    b.quit().await;
    drop(b);
    run.expect("the routing run finishes in time");
    let got = env.get_verification(&env.test_key, id).await;
    let report = &got.body["data"]["income_report"];
    assert_eq!(report["verification_method"], "document", "{}", got.raw);
    assert_eq!(report["documents"][0]["verdict"], "clean", "{}", got.raw);
    let tries: Vec<(&str, &str)> = (report["attempts"].as_array().unwrap().iter())
        .map(|a| {
            (
                a["method"].as_str().unwrap(),
                a["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(tries, vec![("bank", "failed"), ("document", "succeeded")]);
}
