//! The tenant page behind the secure link: `GET/POST /t/{verification_id}/{token}`.
//!
//! Server-rendered HTML that works without JavaScript (only a provider's own widget needs it).
//! A GET or HEAD only shows the page and asks the income provider nothing: mail scanners fetch
//! every link, so nothing may change or cost then (a live provider's link token is made by the
//! tenant's `start` POST, which writes nothing). The tenant's first action, the
//! consent POST, moves a pending verification to in_progress and records the consent (time, text version, the provider user prepared for them)
//! in one conditional write; connecting completes it in another (status, report, `completed_at`,
//! counters), so a race with a cancel or an expiry has one winner. A POST answers 303 only when
//! its write was applied; otherwise it shows the page as it now is.
//!
//! Live verifications get income only from `live_provider`: Plaid, or none (the page then asks
//! to try later; creates are refused anyway). The sandbox serves test verifications, and live ones
//! only in the local stack, which builds `LiveProvider::local_sandbox()` in code; those reports
//! carry `local_sandbox: true`.
//!
//! A household member is a verification like any other: DELETE /households cancels its item in
//! the same write as the household's, so the page needs no read of the household.
//!
//! The path carries the link token, so it is never logged; log lines name the verification id.
//!
//! What the tenant may do next is one decision, `domain::journey::next_step`, made once per
//! request from the verification as read: the page renders it (`render`) and each action checks
//! against it (`actions`, `connect`, `consent`).

mod actions;
mod connect;
mod consent;
mod deps;
pub mod documents;
mod files;
mod form;
pub mod page;
mod payroll_widget;
mod reads;
mod render;
pub mod report_copy;
mod shell;
mod steps;

use crate::http::{ApiRequest, ApiResponse, parse_query};
pub use consent::CONSENT_VERSION;
use deps::{PageError, Visit, journey_of, page_url};
pub use deps::{PortalDeps, PortalStore};
use domain::secrets::sha256_hex;
use domain::tenant_link::{TenantFile, parse_tenant_link, split_tenant_path};
use ports::{Clock, IncomeProvider, UploadSigner};
use render::{current_page, refuse};
use shell::{link_ended, not_found, page};
use tracing::Instrument;

/// The largest form body the page takes: 16 KiB, many times its largest form (the consent with
/// the identity fields and a 1000-character note, URL-encoded). Larger answers 413 unread.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// Entry point of the `tenant-portal` function.
pub async fn tenant_portal<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    req: ApiRequest,
) -> ApiResponse {
    let span = tracing::info_span!("tenant_page", request_id = %req.request_id, method = %req.method, verification_id = tracing::field::Empty);
    async {
        let response = match handle(deps, &req).await {
            Ok(resp) => resp,
            Err(PageError::Store(e)) => {
                tracing::error!(error = %e, "store call failed");
                page(
                    500,
                    "Something went wrong",
                    "<p>We could not load this page. Please try again in a few minutes.</p>",
                    &req.request_id,
                )
            }
        };
        tracing::info!(status = response.status, "tenant page served");
        response.with_header("x-request-id", req.request_id.clone())
    }
    .instrument(span)
    .await
}

async fn handle<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    req: &ApiRequest,
) -> Result<ApiResponse, PageError> {
    // Refused before any read: a body no form of the page sends costs nothing.
    if req.body.len() > MAX_FORM_BYTES {
        return Ok(page(
            413,
            "Too much sent",
            "<p>That was more than any form on this page sends. Please go back and use the page's own form.</p>",
            &req.request_id,
        ));
    }
    // `{link}/report.pdf` is the tenant's copy of the report, behind the same token; the
    // sandbox's samples sit under it too.
    let (link, file) = split_tenant_path(&req.path);
    let Some((id, token)) = parse_tenant_link(link) else {
        return Ok(not_found(&req.request_id));
    };
    let token_hash = sha256_hex(token.as_bytes());
    let Some(v) = deps.store.get_verification(id).await? else {
        return Ok(not_found(&req.request_id));
    };
    // The id alone opens nothing: the token's hash must be bound to this verification.
    if !v.binds_link(&token_hash) {
        return Ok(not_found(&req.request_id));
    }
    tracing::Span::current().record("verification_id", tracing::field::display(id));
    // Past the window after the close, every path under the link answers the same closed page,
    // whatever the method: nothing of the verification, and nothing changes.
    if deps.link_window.ended(&v, deps.clock.now()) {
        return Ok(link_ended(&req.request_id));
    }
    let visit = Visit {
        link,
        now: deps.clock.now(),
        request_id: &req.request_id,
        page_url: page_url(deps, req, link),
        uploaded: req.query.get("key").map(String::as_str),
    };
    // The one decision of what the tenant may do next; every step below checks against it.
    let journey = journey_of(deps, &v, visit.now);
    if file != TenantFile::Page {
        return Ok(match req.method {
            // Only reads: the same PDF as the landlord's, or 404 while there is no report.
            http::Method::GET | http::Method::HEAD => match file {
                TenantFile::Sample(name) => files::sample_download(&v, &journey, name, visit.now),
                _ => report_copy::pdf_download(&v, visit.now),
            }
            .unwrap_or_else(|| not_found(&req.request_id)),
            _ => page(
                405,
                "Not allowed",
                "<p>This file can only be downloaded.</p>",
                &req.request_id,
            )
            .with_header("allow", "GET"),
        });
    }
    match req.method {
        // Only shows the page: a scanner's fetch changes nothing.
        http::Method::GET | http::Method::HEAD => current_page(deps, &v, &journey, &visit).await,
        http::Method::POST => {
            let form = parse_query(&String::from_utf8_lossy(&req.body));
            // A form outside the page's own is refused whatever the state (`form`).
            if let Some(notice) = form::out_of_form(&form) {
                return refuse(deps, &v, &journey, &visit, &notice).await;
            }
            match form.get("action").map(String::as_str) {
                // The tick is there: `out_of_form` refused a consent without it.
                Some("consent") => consent::consent(deps, v, &journey, &form, &visit).await,
                Some("start") => connect::start(deps, v, &journey, &visit).await,
                Some("connect") => connect::connect(deps, v, &journey, &form, &visit).await,
                Some("note") => actions::add_note(deps, v, &journey, &form, &visit).await,
                Some("finish_documents") => {
                    actions::finish_documents(deps, v, &journey, &visit).await
                }
                Some("finish") => actions::finish(deps, v, &journey, &visit).await,
                Some("state_pay") => actions::state_pay(deps, v, &journey, &form, &visit).await,
                Some("switch_method") => {
                    actions::switch_method(deps, v, &journey, &form, &visit).await
                }
                _ => Ok(page(
                    400,
                    "Unknown action",
                    "<p>Please go back and use the buttons on the page.</p>",
                    &req.request_id,
                )),
            }
        }
        _ => Ok(page(
            405,
            "Not allowed",
            "<p>This page only answers GET and POST.</p>",
            &req.request_id,
        )
        .with_header("allow", "GET, POST")),
    }
}
