//! The tenant page's limits, against the in-memory store (issue 33, points 4 and 5):
//! - links end: a closed verification's page and PDF copy stay for the window after the close,
//!   whichever way it closed, then every path under the link answers the same closed page,
//!   holding no name, figure or landlord, and changing nothing;
//! - a form body over `MAX_FORM_BYTES` answers 413 unread.

use chrono::Duration;
use domain::income::{ProviderIncome, VerificationMethod};
use domain::report::build_report;
use domain::{Status, Verification};
use ports::store::prelude::*;
use service::handlers::tenant_portal::{MAX_FORM_BYTES, tenant_portal};
use service::http::ApiRequest;

use crate::portal_routing::{page_deps, pending};
use ports::Clock;

/// The verification closed `how` at `at`.
fn closed(mut v: Verification, how: &str, at: chrono::DateTime<chrono::Utc>) -> Verification {
    v.property_address = Some("30 Window Way".into());
    v.tenant_name = Some("Wendy Window".into());
    v.consented_at = Some(at);
    match how {
        "completed" => {
            v.status = Status::Completed;
            v.completed_at = Some(at);
            let income = ProviderIncome::empty(VerificationMethod::Bank, at.date_naive());
            v.income_report = Some(build_report(&income, v.monthly_rent));
        }
        "failed" => {
            v.status = Status::Failed;
            v.failed_at = Some(at);
        }
        // A cancel is stored `expired`, with both times.
        "cancelled" => {
            v.status = Status::Expired;
            v.cancelled_at = Some(at);
            v.expired_at = Some(at);
        }
        _ => {
            v.status = Status::Expired;
            v.expired_at = Some(at);
        }
    }
    v
}

#[tokio::test]
async fn every_closed_link_ends_after_the_window_with_a_page_holding_no_data() {
    for how in ["completed", "failed", "cancelled", "expired"] {
        let deps = page_deps(&[], false).await;
        let landlord = (deps.store.get_account("acct_routing").await.unwrap())
            .unwrap()
            .name;
        let (v, link) = pending(&deps, &[]);
        let at = deps.clock.now();
        deps.store.insert_verification(&closed(v.clone(), how, at));
        let id = v.verification_id;
        let get = |path: String| ApiRequest::new(http::Method::GET, &path);

        // A minute inside the 30 days: the page of its state.
        deps.clock
            .advance(Duration::days(30) - Duration::minutes(1));
        let page = tenant_portal(&deps, get(link.clone())).await;
        let html = page.body.clone();
        assert!(!html.contains("This link has ended"), "{how}: {html}");
        assert!(
            html.contains(&landlord),
            "{how}: the page names the landlord"
        );
        if how == "completed" {
            let pdf = tenant_portal(&deps, get(format!("{link}/report.pdf"))).await;
            assert_eq!(pdf.status, 200, "{how}: the PDF copy");
        }

        // At 30 days: the closed page on every path and method, and the store unchanged.
        deps.clock.advance(Duration::minutes(1));
        let before = deps.store.get_verification(id).await.unwrap();
        let note = ApiRequest::new(http::Method::POST, &link)
            .with_header("content-type", "application/x-www-form-urlencoded")
            .with_body("action=note&note=still+here".to_string());
        for req in [
            get(link.clone()),
            ApiRequest::new(http::Method::HEAD, &link),
            get(format!("{link}/report.pdf")),
            get(format!("{link}/samples/genuine.pdf")),
            note,
        ] {
            let what = format!(
                "{how}: {} {}",
                req.method,
                req.path.replace(&link, "<link>")
            );
            let page = tenant_portal(&deps, req).await;
            assert_eq!(page.status, 410, "{what}");
            let html = page.body.clone();
            assert!(html.contains("This link has ended"), "{what}: {html}");
            for secret in [
                "Wendy",
                "tess@",
                "30 Window Way",
                "1000",
                "1,000",
                landlord.as_str(),
            ] {
                assert!(!html.contains(secret), "{what} shows {secret}");
            }
            assert!(!html.contains(&id.to_string()), "{what} shows the id");
        }
        let after = deps.store.get_verification(id).await.unwrap();
        assert!(before == after, "{how}: nothing changed");
    }
}

#[tokio::test]
async fn a_form_body_over_16_kib_answers_413_and_changes_nothing() {
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[]);
    let post = |body: String| {
        ApiRequest::new(http::Method::POST, &link)
            .with_header("content-type", "application/x-www-form-urlencoded")
            .with_body(body)
    };
    let consent = "action=consent&agree=yes&note=";
    let padded = |len: usize| format!("{consent}{}", "a".repeat(len - consent.len()));
    let page = tenant_portal(&deps, post(padded(MAX_FORM_BYTES + 1))).await;
    assert_eq!(page.status, 413);
    assert!(page.body.contains("Too much sent"), "{}", page.body);
    let stored = deps
        .store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.status,
        Status::Pending,
        "nothing was read or written"
    );
    // At the cap the form is read (and refused for its note's length, as the page's rules say).
    let page = tenant_portal(&deps, post(padded(MAX_FORM_BYTES))).await;
    assert_eq!(page.status, 400, "{}", page.body);
}
