//! The report PDF (`GET /api/v1/verify/report`) against the in-memory store: who may fetch it,
//! what it answers before completion, and what it says. The text is read back with poppler's
//! `pdftotext` (`infra/install_poppler.sh`) and page 1 is rendered to PNG with `pdftoppm` under
//! `target/test-artifacts/` for a person to look at.

use crate::support::{body, now, settings};
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::Duration;
use domain::affordability::RentTerms;
use domain::income::VerificationMethod;
use domain::methods::{AttemptOutcome, MethodAttempt};
use domain::report::{IncomeReport, build_report_with};
use domain::report_pdf::sections::money;
use domain::secrets::{GeneratedKey, account_key_from_random};
use domain::{ApiKeyRecord, Mode, Status, Transition};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::handlers::api::ApiDeps;
use service::handlers::create_verification::create_verification;
use service::handlers::get_report::get_report;
use service::handlers::get_verification::get_verification;
use service::http::ApiRequest;
use service::sandbox::scenario_income;
use test_support::{ManualClock, MemoryStore, active_account};
use uuid::Uuid;

const ACCOUNT: &str = "acct_pdf";
const OTHER_ACCOUNT: &str = "acct_pdf_other";

async fn key_of(store: &MemoryStore, account: &str, mode: Mode, random: &str) -> GeneratedKey {
    let key = account_key_from_random(account, mode, random).unwrap();
    store
        .put_api_key(&ApiKeyRecord {
            key_id: key.key_id.clone(),
            key_hash: key.hash.clone(),
            account_id: account.into(),
            mode,
            display_prefix: key.display_prefix.clone(),
            created_at: now(),
            revoked_at: None,
        })
        .await
        .unwrap();
    key
}

struct Fixture {
    deps: ApiDeps<MemoryStore, ManualClock>,
    store: MemoryStore,
    test_key: String,
    live_key: String,
    other_key: String,
}

async fn fixture() -> Fixture {
    let store = MemoryStore::new();
    for account in [ACCOUNT, OTHER_ACCOUNT] {
        store
            .put_account(&active_account(account, "pro", now()))
            .await
            .unwrap();
    }
    let test_key = key_of(
        &store,
        ACCOUNT,
        Mode::Test,
        "PdfTestKeyHandlerTests00000001",
    )
    .await;
    let live_key = key_of(
        &store,
        ACCOUNT,
        Mode::Live,
        "PdfLiveKeyHandlerTests00000001",
    )
    .await;
    let other_key = key_of(
        &store,
        OTHER_ACCOUNT,
        Mode::Test,
        "PdfOtherKeyHandlerTests0000001",
    )
    .await;
    Fixture {
        deps: ApiDeps::new(store.clone(), ManualClock::at(now()), settings()),
        store,
        test_key: test_key.secret,
        live_key: live_key.secret,
        other_key: other_key.secret,
    }
}

fn report_request(key: &str, id: &str) -> ApiRequest {
    ApiRequest::new(
        http::Method::GET,
        &format!("/api/v1/verify/report?verification_id={id}"),
    )
    .with_header("authorization", &format!("Bearer {key}"))
}

/// Creates a test verification and takes it through consent and completion with the sandbox
/// scenario's income, as the tenant page does.
async fn completed(f: &Fixture, scenario: &str) -> Uuid {
    completed_with(f, scenario, json!({})).await
}

/// Completes a verification created with the default body plus `extra` fields.
async fn completed_with(f: &Fixture, scenario: &str, extra: Value) -> Uuid {
    completed_editing(f, scenario, extra, |_| {}).await
}

/// As `completed_with`, with the report changed by `edit` before the completion.
async fn completed_editing(
    f: &Fixture,
    scenario: &str,
    extra: Value,
    edit: impl FnOnce(&mut IncomeReport),
) -> Uuid {
    let mut request = json!({
        "tenant_email": "zoe.tenant@example.com",
        "tenant_name": "Zoë O'Tenant (Jr.)",
        "property_address": "12 Harbour Road, Flat 3, Seattle WA 98101",
        "monthly_rent": 1500,
    });
    for (field, value) in extra.as_object().unwrap() {
        request[field] = value.clone();
    }
    let created = create_verification(
        &f.deps,
        ApiRequest::new(http::Method::POST, "/api/v1/verify")
            .with_header("authorization", &format!("Bearer {}", f.test_key))
            .with_header("content-type", "application/json")
            .with_body(request.to_string()),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id: Uuid = body(&created)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let v = f.store.get_verification(id).await.unwrap().unwrap();
    let consent = Transition::Consent {
        version: "2026-11-v1".into(),
        provider_user: None,
        methods: vec![],
    };
    let TransitionOutcome::Applied(v) = f.store.transition(&v, &consent, now()).await.unwrap()
    else {
        panic!("consent applies")
    };
    let income = scenario_income(scenario, v.created_at.date_naive()).unwrap();
    let mut report = build_report_with(&income, &RentTerms::from(&v));
    edit(&mut report);
    let done = Transition::Complete {
        report: Box::new(report),
    };
    assert!(matches!(
        f.store.transition(&v, &done, now()).await.unwrap(),
        TransitionOutcome::Applied(_)
    ));
    id
}

pub(crate) fn artifacts_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("test-artifacts");
    std::fs::create_dir_all(&dir).expect("create target/test-artifacts");
    dir
}

/// The PDF's text as poppler reads it (layout kept, so a label and its value share a line).
pub(crate) fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs (infra/install_poppler.sh installs poppler-utils)");
    assert!(
        out.status.success(),
        "pdftotext: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Page 1 as a PNG next to the PDF; returns its path.
fn render_first_page(pdf: &Path) -> PathBuf {
    let prefix = pdf.with_extension("");
    let status = Command::new("pdftoppm")
        .args(["-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile"])
        .arg(pdf)
        .arg(&prefix)
        .status()
        .expect("pdftoppm runs (infra/install_poppler.sh installs poppler-utils)");
    assert!(status.success());
    let png = prefix.with_extension("png");
    let bytes = std::fs::read(&png).expect("the PNG exists");
    assert!(bytes.starts_with(b"\x89PNG"), "a PNG image");
    png
}

/// Collapses runs of spaces, so layout columns don't matter to the assertions.
pub(crate) fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn a_completed_report_downloads_as_a_pdf_with_its_figures() {
    let f = fixture().await;
    let id = completed(&f, "gig").await;
    let before = f.store.get_verification(id).await.unwrap().unwrap();

    let response = get_report(&f.deps, report_request(&f.test_key, &id.to_string())).await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.header("content-type"), Some("application/pdf"));
    assert_eq!(
        response.header("content-disposition"),
        Some(format!("attachment; filename=\"income-report-{id}.pdf\"").as_str())
    );
    assert_eq!(response.header("cache-control"), Some("no-store"));
    for header in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "x-request-id",
    ] {
        assert!(response.header(header).is_some(), "{header}");
    }
    let pdf = response.binary.clone().expect("a binary body");
    assert!(pdf.starts_with(b"%PDF-"));

    let path = artifacts_dir().join("income-report-gig.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = squeeze(&pdf_text(&path));
    // The JSON report is the reference: every figure it has is printed the same.
    let json = body(&get_verification(&f.deps, report_request(&f.test_key, &id.to_string())).await);
    let report = &json["data"]["income_report"];
    let total = report["total_monthly_income"].as_f64().unwrap();
    let rule = if report["passes_3x_rule"] == true {
        format!(
            "3x rent rule Passes: income {} is at least 3 x the rent 1,500.00 = 4,500.00",
            money(total)
        )
    } else {
        format!(
            "3x rent rule Does not pass: income {} is below 3 x the rent 1,500.00 = 4,500.00",
            money(total)
        )
    };
    for expected in [
        "Income verification report".to_string(),
        format!("Verification {id}"),
        "generated 2026-03-10 12:00:00 UTC".into(),
        "TEST MODE".into(),
        "Tenant Zoë O'Tenant (Jr.)".into(),
        "Tenant e-mail zoe.tenant@example.com".into(),
        "Property 12 Harbour Road, Flat 3, Seattle WA 98101".into(),
        "Monthly rent 1,500.00".into(),
        format!("Total monthly income {}", money(total)),
        format!(
            "Rent-to-income ratio {:.4}",
            report["rent_to_income_ratio"].as_f64().unwrap()
        ),
        rule,
        "Income counted (3 sources)".into(),
        format!("Income as of {}", report["as_of"].as_str().unwrap()),
        "category SALARY".into(),
        "pay frequency twice a month".into(),
        "pay frequency irregular".into(),
        "Verification method bank".into(),
        format!(
            "Confidence score {:.2}",
            report["confidence_score"].as_f64().unwrap()
        ),
        "Tenant consented 2026-03-10 12:00:00 UTC".into(),
        "Consent text version 2026-11-v1".into(),
    ] {
        assert!(text.contains(&expected), "missing {expected:?} in:\n{text}");
    }
    for source in report["income_sources"].as_array().unwrap() {
        let name = source["name"].as_str().unwrap();
        let monthly = source["monthly_income"].as_f64().unwrap();
        let line = format!("{name} {} a month", money(monthly));
        assert!(text.contains(&line), "missing {line:?} in:\n{text}");
        let basis = format!("counted as {}", source["basis"].as_str().unwrap());
        assert!(text.contains(&basis), "missing {basis:?} in:\n{text}");
    }
    let png = render_first_page(&path);
    eprintln!("report page 1: {}", png.display());

    // A GET changes nothing on the verification.
    let after = f.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(format!("{before:?}"), format!("{after:?}"));
    assert_eq!(before.status, Status::Completed);
}

/// A voucher holder: the PDF applies the multiple to the tenant's portion, prints the rule
/// sentence of the JSON report, the amounts basis and the stability figures.
#[tokio::test]
async fn a_voucher_holders_pdf_shows_affordability_and_stability() {
    let f = fixture().await;
    let extra = json!({"monthly_rent": 1400, "rent_subsidy_monthly": 1000, "income_multiple": 2.5});
    let id = completed_with(&f, "voucher", extra).await;
    let response = get_report(&f.deps, report_request(&f.test_key, &id.to_string())).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let path = artifacts_dir().join("income-report-voucher.pdf");
    std::fs::write(&path, response.binary.clone().expect("a binary body")).unwrap();
    let text = squeeze(&pdf_text(&path));
    let json = body(&get_verification(&f.deps, report_request(&f.test_key, &id.to_string())).await);
    let report = &json["data"]["income_report"];
    let affordability = &report["affordability"];
    let overall = &report["stability"];
    let passes = if report["passes_3x_rule"] == true {
        "Passes: income"
    } else {
        "Does not pass: income"
    };
    for expected in [
        format!("3x rent rule {passes}"),
        "3 x the tenant's portion 400.00 = 1,200.00".to_string(),
        "Rent subsidy 1,000.00 a month".into(),
        "Tenant's portion 400.00".into(),
        "Income required 1,000.00 (2.5 x the tenant's portion)".into(),
        format!(
            "Meets the requirement {}",
            if affordability["meets_requirement"] == true {
                "yes"
            } else {
                "no"
            }
        ),
        squeeze(affordability["rule"].as_str().unwrap()),
        "Amounts net".into(),
        "Income stability".into(),
        format!("months observed {}", overall["months_observed"]),
        format!(
            "last payment {}",
            overall["last_payment_date"].as_str().unwrap()
        ),
        format!(
            "regularity {}",
            overall["regularity"]["label"]
                .as_str()
                .unwrap()
                .replace('_', " ")
        ),
        format!(
            "trend {}",
            overall["trend"]["label"]
                .as_str()
                .unwrap()
                .replace('_', " ")
        ),
    ] {
        assert!(text.contains(&expected), "missing {expected:?} in:\n{text}");
    }
    let png = render_first_page(&path);
    eprintln!("voucher report page 1: {}", png.display());
}

#[tokio::test]
async fn a_report_that_is_not_there_is_the_enveloped_error() {
    let f = fixture().await;
    let id = completed(&f, "good").await.to_string();
    let pending = create_verification(
        &f.deps,
        ApiRequest::new(http::Method::POST, "/api/v1/verify")
            .with_header("authorization", &format!("Bearer {}", f.test_key))
            .with_header("content-type", "application/json")
            .with_body(json!({"tenant_email": "p@example.com"}).to_string()),
    )
    .await;
    let pending_id = body(&pending)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let cases = [
        (
            report_request(&f.test_key, &pending_id),
            409,
            "report_not_ready",
        ),
        (report_request(&f.other_key, &id), 404, "not_found"),
        (report_request(&f.live_key, &id), 404, "not_found"),
        (
            report_request(&f.test_key, &Uuid::new_v4().to_string()),
            404,
            "not_found",
        ),
        (
            report_request(&f.test_key, "12345"),
            400,
            "validation_error",
        ),
        (
            ApiRequest::new(http::Method::GET, "/api/v1/verify/report"),
            401,
            "missing_api_key",
        ),
    ];
    for (request, status, code) in cases {
        let response = get_report(&f.deps, request).await;
        assert_eq!(response.status, status, "{code}: {}", response.body);
        assert!(response.binary.is_none());
        assert_eq!(response.header("content-type"), Some("application/json"));
        let json = body(&response);
        assert_eq!(json["success"], false);
        assert_eq!(json["code"], code, "{json}");
    }
    // 409 names the state, with the rate headers of an authenticated call.
    let response = get_report(&f.deps, report_request(&f.test_key, &pending_id)).await;
    assert!(response.body.contains("pending"), "{}", response.body);
    assert!(response.header("x-ratelimit-remaining").is_some());
    // An expired verification has no report either.
    f.deps.clock.advance(Duration::days(8));
    let response = get_report(&f.deps, report_request(&f.test_key, &pending_id)).await;
    assert_eq!(
        (response.status, body(&response)["code"].clone()),
        (409, json!("report_not_ready"))
    );
    assert!(response.body.contains("expired"));
}

/// A report made after routing names its methods and every try, so the landlord sees why the
/// final method was used.
#[tokio::test]
async fn a_routed_reports_pdf_names_its_methods_and_every_try() {
    let f = fixture().await;
    let tried = |method, outcome, minutes| MethodAttempt {
        method,
        outcome,
        at: now() + Duration::minutes(minutes),
    };
    let id = completed_editing(&f, "payroll_active", json!({}), |report| {
        report.attempts = vec![
            tried(VerificationMethod::Bank, AttemptOutcome::Failed, 1),
            tried(VerificationMethod::Document, AttemptOutcome::Abandoned, 2),
            tried(VerificationMethod::Payroll, AttemptOutcome::Succeeded, 3),
        ];
    })
    .await;
    let response = get_report(&f.deps, report_request(&f.test_key, &id.to_string())).await;
    assert_eq!(response.status, 200, "{}", response.body);
    let path = artifacts_dir().join("income-report-routed.pdf");
    std::fs::write(&path, response.binary.clone().expect("a binary body")).unwrap();
    let text = squeeze(&pdf_text(&path));
    for expected in [
        "Verification method payroll",
        "Methods used payroll",
        "Methods tried oldest first",
        "bank failed at 2026-03-10 12:01:00 UTC",
        "document abandoned at 2026-03-10 12:02:00 UTC",
        "payroll succeeded at 2026-03-10 12:03:00 UTC",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    // A report made without routing names no tries.
    let id = completed(&f, "good").await;
    let response = get_report(&f.deps, report_request(&f.test_key, &id.to_string())).await;
    let path = artifacts_dir().join("income-report-unrouted.pdf");
    std::fs::write(&path, response.binary.expect("a binary body")).unwrap();
    let text = squeeze(&pdf_text(&path));
    assert!(text.contains("Methods used bank"), "{text}");
    assert!(!text.contains("Methods tried"), "{text}");
    eprintln!(
        "routed report: {}",
        render_first_page(&artifacts_dir().join("income-report-routed.pdf")).display()
    );
}
