//! Uploading a document from the tenant page in headless Chromium at phone size: the signed
//! form posts the file straight to the bucket on moto, S3 sends the browser back, the analysis
//! runs, the tenant types the photo's figures and finishes, and the copy shows the verdict.

use std::time::Duration;

use serde_json::json;

use super::webdriver::*;
use crate::common::{self, TINY_PNG, artifacts_dir};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_uploads_a_photo_on_a_phone_and_finishes_with_it() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("browser upload test skipped ({reason})");
        return;
    }
    let artifacts = artifacts_dir();
    let env = common::env().await;
    let (id, link) = super::created_link(&env, json!({"tenant_email": "phone+good@example.com", "tenant_name": "Pat Phone", "monthly_rent": 900})).await;
    let photo = artifacts.join("browser-upload-stub.png");
    std::fs::write(&photo, TINY_PNG).unwrap();
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
        let main = b.text("main").await;
        assert!(main.contains("Or upload documents"), "{main}");
        let width = b
            .script("return [window.innerWidth, document.documentElement.scrollWidth]")
            .await;
        assert!(
            width[1].as_f64().unwrap() <= f64::from(PHONE.0),
            "no sideways scrolling with the upload form: {width}"
        );
        b.screenshot(&artifacts, "browser-upload-1-form-phone", true)
            .await;
        // The file, as a tenant picks it; then the form goes straight to the bucket.
        let input = b.find("input[type=file]").await;
        b.cmd(
            reqwest::Method::POST,
            &format!("/element/{input}/value"),
            Some(json!({"text": photo.display().to_string()})),
        )
        .await;
        b.submit("form[enctype='multipart/form-data'] button").await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        let url = b.current_url().await;
        assert!(url.starts_with(&link), "S3 sent the browser back: {url}");
        assert!(b.text("main").await.contains("Your file arrived"));
        // The bucket's notification, through the local mapping to analyze-document.
        crate::documents::pump_until_analysed(&env, &workers, id, 1).await;
        b.goto(&link).await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        assert!(b.text("main").await.contains("please type what it shows"));
        let today = chrono::Utc::now().date_naive();
        b.script(&format!(
            "document.querySelector('input[name=pay_date]').value = '{today}'; \
             document.querySelector('input[name=gross]').value = '2,000.00'; \
             document.querySelector('input[name=net]').value = '1,550.00'; return true"
        ))
        .await;
        b.screenshot(&artifacts, "browser-upload-2-figures-phone", true)
            .await;
        b.submit("fieldset button[type=submit]").await;
        b.wait_for_heading("Connect your income", Duration::from_secs(15))
            .await;
        b.script(
            "document.querySelector('input[value=finish_documents]').form.querySelector('button').click(); return true",
        )
        .await;
        b.wait_for_heading("Thank you", Duration::from_secs(20))
            .await;
        let main = b.text("main").await;
        assert!(main.contains("Your documents"), "{main}");
        assert!(main.contains("Document 1 (photo or scan): could not be checked"), "{main}");
        b.screenshot(&artifacts, "browser-upload-3-thank-you-phone", true)
            .await;
    })
    .await;
    b.quit().await;
    drop(b);
    run.expect("the upload run finishes in time");
    let got = env.get_verification(&env.test_key, id).await;
    let report = &got.body["data"]["income_report"];
    assert_eq!(report["verification_method"], "document", "{}", got.raw);
    assert_eq!(report["documents"][0]["stated_by_tenant"], true);
}
