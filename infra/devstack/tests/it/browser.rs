//! The tenant page in a real browser: headless Chromium (Debian's `chromium`), driven by
//! `chromedriver` over the W3C WebDriver protocol (plain JSON over HTTP on loopback, with reqwest),
//! opens a link of the local stack, consents, picks a sandbox scenario, and the API then returns
//! the completed report. Screenshots (desktop and phone) are kept under `target/test-artifacts/`.
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver` (`infra/install_chromium.sh`, which
//! `make test` runs). Without them the test fails, unless `SKIP_BROWSER_TESTS=1` is set.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine as _;
use futures::FutureExt as _;
use serde_json::{Value, json};

use common::{TestEnv, artifacts_dir, pdf_text};

mod argyle;
mod plaid_check;
mod routing;
mod upload;
mod webdriver;
use webdriver::*;

// ---------------------------------------------------------------------------------------------
// The test

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_completes_in_headless_chromium_and_the_api_returns_the_report() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("browser test skipped ({reason})");
        return;
    }
    let started = Instant::now();
    let artifacts = artifacts_dir();
    let _ = std::fs::remove_file(artifacts.join("browser-failure.png"));
    let _ = std::fs::remove_file(artifacts.join("browser-failure.html"));

    let env = common::env().await;
    let created = env
        .create_verification(
            &env.test_key,
            json!({
                "tenant_email": "browser+gig@example.com",
                "tenant_name": "Sam Browser",
                "property_address": "12 Elm Street, Apt 4",
                "monthly_rent": 1400
            }),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let id = created.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = created.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(link.starts_with(&env.base), "a link into the local stack");

    let browser = Browser::start(&artifacts).await;
    eprintln!(
        "browser test: Chromium up after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let run = tokio::time::timeout(
        WHOLE_RUN,
        std::panic::AssertUnwindSafe(tenant_flow(&env, &browser, &link, &id, &artifacts))
            .catch_unwind(),
    )
    .await;
    let outcome = match run {
        Ok(Ok(())) => Ok(()),
        Ok(Err(panic)) => Err(Some(panic)),
        Err(_) => Err(None),
    };
    if outcome.is_err() {
        // What the browser showed when it went wrong, for the CI artifacts.
        if let Ok(b64) = browser
            .try_cmd(reqwest::Method::GET, "/screenshot", None)
            .await
            && let Ok(png) =
                base64::engine::general_purpose::STANDARD.decode(b64.as_str().unwrap_or_default())
        {
            let _ = std::fs::write(artifacts.join("browser-failure.png"), png);
        }
        if let Ok(src) = browser.try_cmd(reqwest::Method::GET, "/source", None).await {
            let _ = std::fs::write(
                artifacts.join("browser-failure.html"),
                src.as_str().unwrap_or_default(),
            );
        }
        eprintln!(
            "browser test: failed; see {}/browser-failure.png and browser-chromedriver.log",
            artifacts.display()
        );
    }
    browser.quit().await;
    drop(browser);
    match outcome {
        Ok(()) => eprintln!(
            "browser test: passed in {:.1} s",
            started.elapsed().as_secs_f64()
        ),
        Err(Some(panic)) => std::panic::resume_unwind(panic),
        Err(None) => panic!("the browser run took longer than {WHOLE_RUN:?}"),
    }
}

async fn tenant_flow(env: &TestEnv, b: &Browser, link: &str, id: &str, artifacts: &Path) {
    use reqwest::Method;

    // The consent page, on a desktop window.
    b.goto(link).await;
    b.wait_for_heading("Verify your income", Duration::from_secs(15))
        .await;
    assert_eq!(b.title().await, "Verify your income · Income verification");
    let main = b.text("main").await;
    for expected in [
        "Sandbox request: no real bank data is used.",
        "Demo Lettings asks you to verify your income for 12 Elm Street, Apt 4.",
        "What will be shared",
        "Not shared: account numbers, balances, individual purchases.",
        "This link expires on",
        "I agree that the income verification service may read the income deposits",
    ] {
        assert!(
            main.contains(expected),
            "{expected:?} not on the page:\n{main}"
        );
    }
    assert_eq!(b.text("button[type=submit]").await, "Agree and continue");
    assert!(
        !b.selected("#agree").await,
        "the consent box starts unticked"
    );
    b.screenshot(artifacts, "browser-1-consent-desktop", false)
        .await;

    // Without the tick the browser itself refuses to submit (the box is required).
    b.click("button[type=submit]").await;
    assert_eq!(
        b.script("return document.getElementById('agree').validity.valueMissing")
            .await,
        true
    );
    b.wait_for_heading("Verify your income", Duration::from_secs(5))
        .await;
    let stored = ports::VerificationStore::get_verification(&env.store, id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(stored.consented_at.is_none(), "nothing was submitted");

    // The label is wired to the box: clicking its text ticks and unticks it.
    b.click("label[for=agree]").await;
    assert!(
        b.selected("#agree").await,
        "clicking the label ticks the box"
    );
    b.click("label[for=agree]").await;
    assert!(!b.selected("#agree").await, "and unticks it");
    b.click("#agree").await;
    assert!(b.selected("#agree").await, "clicking the box ticks it");

    // The same page on a phone: the viewport meta applies and nothing overflows sideways.
    b.phone(Some(PHONE)).await;
    let layout = b
        .script(
            "return [window.innerWidth, document.documentElement.scrollWidth, \
             document.querySelector('button').getBoundingClientRect().height, \
             parseFloat(getComputedStyle(document.body).fontSize)]",
        )
        .await;
    eprintln!("browser test: phone [innerWidth, scrollWidth, button px, font px] = {layout}");
    assert_eq!(
        layout[0], PHONE.0,
        "the page lays out at the phone's width (viewport meta), not at 980 px: {layout}"
    );
    assert!(
        layout[1].as_f64().unwrap() <= f64::from(PHONE.0),
        "no sideways scrolling on a phone: {layout}"
    );
    assert!(
        layout[2].as_f64().unwrap() >= 24.0,
        "the button meets the WCAG 2.2 minimum target size (24 px): {layout}"
    );
    assert!(layout[3].as_f64().unwrap() >= 16.0, "body text: {layout}");
    b.screenshot(artifacts, "browser-2-consent-phone", true)
        .await;

    b.click("button[type=submit]").await;
    b.wait_for_heading("Connect your income", Duration::from_secs(15))
        .await;
    assert_eq!(
        b.current_url().await,
        link,
        "back on the link after the 303"
    );

    // The scenario page (still phone-sized): the e-mail tag preselects gig; the tenant changes
    // their mind (by a label) and back (by the radio), and the last choice is what is sent.
    assert_eq!(b.text("button[type=submit]").await, "Connect and share");
    assert_eq!(b.text("legend").await, "Sandbox bank");
    assert!(b.selected("#s-gig").await, "the e-mail tag preselects gig");
    b.screenshot(artifacts, "browser-3-connect-phone", true)
        .await;
    b.click("label[for=s-good]").await;
    assert!(b.selected("#s-good").await && !b.selected("#s-gig").await);
    b.click("#s-gig").await;
    assert!(b.selected("#s-gig").await && !b.selected("#s-good").await);

    b.phone(None).await;
    b.click("button[type=submit]").await;
    b.wait_for_heading("Thank you", Duration::from_secs(20))
        .await;
    let main = b.text("main").await;
    assert!(
        main.contains(
            "Your income summary was shared with Demo Lettings for 12 Elm Street, Apt 4."
        ),
        "{main}"
    );
    b.screenshot(artifacts, "browser-4-thank-you-desktop", false)
        .await;
    b.phone(Some(PHONE)).await;
    b.screenshot(artifacts, "browser-5-thank-you-phone", false)
        .await;
    b.phone(None).await;

    // The API returns the completed report of the gig scenario.
    let r = env
        .call(
            Method::GET.as_str(),
            &format!("/api/v1/verify?verification_id={id}"),
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let data = &r.body["data"];
    assert_eq!(data["status"], "completed", "{}", r.raw);
    let report = &data["income_report"];
    assert_eq!(report["total_monthly_income"], 4482.0, "{report}");
    assert_eq!(report["passes_3x_rule"], true, "4482 >= 3 x 1400");
    assert_eq!(report["verification_method"], "bank");
    let sources = report["income_sources"].as_array().expect("sources");
    assert_eq!(sources.len(), 3, "{report}");
    let gig: Vec<&Value> = sources
        .iter()
        .filter(|s| s["income_category"] == "GIG_ECONOMY")
        .collect();
    assert_eq!(gig.len(), 1, "{report}");
    assert!(
        gig[0].get("pay_frequency").is_none(),
        "gig income has no pay frequency: {}",
        gig[0]
    );
    assert!(
        sources
            .iter()
            .filter(|s| s["income_category"] != "GIG_ECONOMY")
            .all(|s| s["pay_frequency"].is_string()),
        "{report}"
    );
    let score = report["confidence_score"].as_f64().expect("a score");
    assert!((0.0..=1.0).contains(&score));

    tenant_copy(env, b, link, id, artifacts).await;
}

/// The tenant's own copy on the completed page: the figures that were shared, the same PDF to
/// download (authenticated by the link alone), and one note the landlord then reads.
async fn tenant_copy(env: &TestEnv, b: &Browser, link: &str, id: &str, artifacts: &Path) {
    use reqwest::Method;

    let main = b.text("main").await;
    let main = main.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "What was shared",
        "City Library payroll",
        "3,000.00 a month",
        "Rideshare driver payouts",
        "882.00 a month",
        "Garage rental",
        "600.00 a month",
        "Total monthly income 4,482.00",
        "Monthly rent 1,400.00",
        "Rent-to-income ratio 0.3124",
        "Income at least 3 times the rent Yes",
        "Download the report (PDF)",
        "Add a note for Demo Lettings",
    ] {
        assert!(
            main.contains(expected),
            "{expected:?} not on the page:\n{main}"
        );
    }
    b.screenshot(artifacts, "browser-6-tenant-copy-desktop", true)
        .await;

    // The download link is the tenant link plus /report.pdf; fetched with that link alone.
    let href = b
        .script("return document.querySelector('a.download').href")
        .await;
    let href = href.as_str().expect("the download link").to_string();
    assert_eq!(href, format!("{link}/report.pdf"));
    let pdf = env.http.get(&href).send().await.expect("the PDF answers");
    assert_eq!(pdf.status(), 200);
    assert_eq!(pdf.headers()["content-type"], "application/pdf");
    assert_eq!(
        pdf.headers()["content-disposition"],
        format!("attachment; filename=\"income-report-{id}.pdf\"").as_str()
    );
    let tenant_pdf = pdf.bytes().await.unwrap();
    let text = pdf_text(&tenant_pdf, &artifacts.join("browser-tenant-report.pdf"));
    for expected in [
        "Tenant Sam Browser",
        "Property 12 Elm Street, Apt 4",
        "Total monthly income 4,482.00",
        "Rent-to-income ratio 0.3124",
        "3x rent rule Passes",
        "Consent text version 2026-11-v2",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} not in the PDF:\n{text}"
        );
    }
    // Another token opens nothing.
    let wrong = format!("{}/report.pdf", link.rsplit_once('/').unwrap().0);
    let wrong = env
        .http
        .get(format!("{wrong}Wrong/report.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 404);

    // The note: typed into the form, sent once, shown back to the tenant.
    let note = "I start a new job on 1 May (offer letter available). Thanks!";
    let area = b.find("textarea#note").await;
    b.cmd(
        Method::POST,
        &format!("/element/{area}/value"),
        Some(json!({ "text": note })),
    )
    .await;
    b.click("button[type=submit]").await;
    b.wait_for_heading("Thank you", Duration::from_secs(15))
        .await;
    assert_eq!(
        b.current_url().await,
        link,
        "back on the link after the 303"
    );
    assert_eq!(b.text("#tenant-note").await, note);
    assert!(
        b.try_find("textarea#note").await.is_err(),
        "the note is stored once: no second form"
    );
    b.screenshot(artifacts, "browser-7-note-saved-desktop", true)
        .await;

    // The landlord sees it in the report JSON and in their PDF.
    let r = env
        .call(
            Method::GET.as_str(),
            &format!("/api/v1/verify?verification_id={id}"),
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(
        r.body["data"]["income_report"]["tenant_note"], note,
        "{}",
        r.raw
    );
    let landlord_pdf = common::landlord_pdf(env, &env.test_key, id).await;
    let text = pdf_text(
        &landlord_pdf,
        &artifacts.join("browser-landlord-report.pdf"),
    );
    assert!(text.contains("Note from the tenant"), "{text}");
    assert!(text.contains(note), "{text}");
}

/// A household of two flatmates: each opens their own link in headless Chromium, consents and
/// connects; the household then reads `decided`, their incomes added up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_flatmates_complete_their_links_and_the_household_is_decided() {
    if let Some(reason) = browser_or_skip() {
        eprintln!("household browser test skipped ({reason})");
        return;
    }
    let artifacts = artifacts_dir();
    let env = common::env().await;
    let body = json!({
        "property_address": "2 Shared House Lane",
        "monthly_rent": 1800,
        "members": [
            {"tenant_email": "flat.alex+good@example.com", "tenant_name": "Alex", "role": "applicant"},
            {"tenant_email": "flat.sam+good@example.com", "tenant_name": "Sam", "role": "applicant"}
        ]
    });
    let created = env
        .call(
            "POST",
            "/api/v1/households",
            Some(&env.test_key),
            Some(&body.to_string()),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let household_id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let links: Vec<String> = created.body["data"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["verification_url"].as_str().unwrap().to_string())
        .collect();
    let browser = Browser::start(&artifacts).await;
    let household = household_path(&household_id);
    let run = tokio::time::timeout(
        WHOLE_RUN,
        std::panic::AssertUnwindSafe(async {
            for (i, link) in links.iter().enumerate() {
                let r = env.call("GET", &household, Some(&env.test_key), None).await;
                assert_eq!(r.body["data"]["status"], "open", "{}", r.raw);
                assert_eq!(
                    r.body["data"]["open_members"].as_array().unwrap().len(),
                    2 - i
                );
                browser.goto(link).await;
                browser
                    .wait_for_heading("Verify your income", Duration::from_secs(15))
                    .await;
                assert!(browser.text("main").await.contains("2 Shared House Lane"));
                browser.click("#agree").await;
                browser.click("button[type=submit]").await;
                browser
                    .wait_for_heading("Connect your income", Duration::from_secs(15))
                    .await;
                assert!(
                    browser.selected("#s-good").await,
                    "the e-mail tag preselects good"
                );
                browser.click("button[type=submit]").await;
                browser
                    .wait_for_heading("Thank you", Duration::from_secs(20))
                    .await;
                browser
                    .screenshot(&artifacts, &format!("browser-household-member-{i}"), false)
                    .await;
            }
        })
        .catch_unwind(),
    )
    .await;
    browser.quit().await;
    drop(browser);
    match run {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the household browser run took longer than {WHOLE_RUN:?}"),
    }
    let r = env.call("GET", &household, Some(&env.test_key), None).await;
    let data = &r.body["data"];
    assert_eq!(data["status"], "decided", "{}", r.raw);
    // The sandbox's `good` scenario: 5,200.00 a month each; together >= 3 x 1,800.00.
    assert_eq!(data["decision"]["applicants_monthly_income"], 10400.0);
    assert_eq!(data["decision"]["meets_requirement"], true);
}

fn household_path(id: &str) -> String {
    format!("/api/v1/households?household_id={id}")
}

/// A test verification made for a browser run: its id and its tenant link.
async fn created_link(env: &common::TestEnv, body: serde_json::Value) -> (uuid::Uuid, String) {
    let created = env.create_verification(&env.test_key, body).await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let data = &created.body["data"];
    let id = data["verification_id"].as_str().unwrap().parse().unwrap();
    let link = data["verification_url"].as_str().unwrap().to_string();
    assert!(link.starts_with(&env.base), "a link into the local stack");
    (id, link)
}
