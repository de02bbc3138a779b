//! The tenant page behind the secure link: `GET/POST /t/{verification_id}/{token}`.
//!
//! Server-rendered HTML that works without JavaScript (only a provider's own widget needs it).
//! A GET or HEAD only shows the page and asks the income provider nothing: mail scanners fetch
//! every link, so nothing may change or cost then (a live provider's link token is made by the
//! tenant's `start` POST, which writes nothing). The tenant's first action, the consent POST, moves a pending verification to
//! in_progress and records the consent (time, text version, the provider user prepared for them)
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

mod actions;
mod consent;
pub mod documents;
mod form;
pub mod live_provider;
pub mod page;
mod payroll_widget;
mod reads;
pub mod report_copy;
mod routing;

use chrono::{DateTime, Utc};
use tracing::Instrument;

use crate::adapters::sandbox::{SandboxProvider, offered, scenario_method};
use crate::handlers::html::esc;
pub use crate::handlers::tenant_portal::live_provider::LiveProvider;
use crate::handlers::tenant_portal::page::{
    connect_step, consent_body, expiry_note, not_found, page, provider_down, start_body,
};
use crate::handlers::tenant_portal::reads::requester_name;
use crate::http::{ApiRequest, ApiResponse, parse_query};
use actions::{
    add_note, finish, finish_documents, not_now, page_url, state_pay, with_documents,
    write_then_show,
};
use documents::DocumentUploads;
use domain::affordability::RentTerms;
use domain::report::build_report_with;
use domain::secrets::sha256_hex;
use domain::tenant_link::{TenantFile, parse_tenant_link, split_tenant_path};
use domain::{Mode, Status, Verification};
use form::SCENARIO_NOTICE;
use ports::{
    AccountStore, Clock, DocumentStore, IncomeProvider, StoreError, UploadSigner, VerificationStore,
};

/// Version of the consent text below; recorded with the consent.
pub const CONSENT_VERSION: &str = "2026-11-v2";
const CONSENT_TEXT: &str = "I agree that the income verification service may read the income \
deposits of the account I connect (employer or payer names, amounts and pay frequency), or the \
documents I upload (pay stubs, bank statements, benefit letters) and the figures I type from \
them, and share an income summary, with each document's checks, with the requester named \
above, for this rental application only. The requester may download the documents I upload. \
Account numbers, balances and individual purchases are not shared.";

/// The table as the tenant page uses it: the verification, the landlord's name, the documents.
pub trait PortalStore: AccountStore + VerificationStore + DocumentStore {}

impl<T: AccountStore + VerificationStore + DocumentStore> PortalStore for T {}

/// What the tenant page needs.
pub struct PortalDeps<S, C, P, U> {
    pub store: S,
    pub clock: C,
    /// Income provider of live verifications (test verifications always use the sandbox).
    pub live_provider: P,
    pub sandbox: SandboxProvider,
    /// "Upload documents" beside the bank (None: no documents bucket, the bank only).
    pub uploads: Option<DocumentUploads<U>>,
}

#[derive(Debug)]
enum PageError {
    Store(StoreError),
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        PageError::Store(e)
    }
}

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

/// The request's context once the link is checked.
struct Visit<'a> {
    link: &'a str,
    now: DateTime<Utc>,
    request_id: &'a str,
    /// The page's absolute URL (S3 sends the browser back to it after an upload).
    page_url: String,
    /// The object key S3 names when it sends the browser back after an upload.
    uploaded: Option<&'a str>,
}

async fn handle<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    req: &ApiRequest,
) -> Result<ApiResponse, PageError> {
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
    let visit = Visit {
        link,
        now: deps.clock.now(),
        request_id: &req.request_id,
        page_url: page_url(deps, req, link),
        uploaded: req.query.get("key").map(String::as_str),
    };
    if file != TenantFile::Page {
        return Ok(match req.method {
            // Only reads: the same PDF as the landlord's, or 404 while there is no report.
            http::Method::GET | http::Method::HEAD => match file {
                TenantFile::Sample(name) => documents::sample_download(deps, &v, name, visit.now),
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
        http::Method::GET | http::Method::HEAD => current_page(deps, &v, &visit).await,
        http::Method::POST => {
            let form = parse_query(&String::from_utf8_lossy(&req.body));
            // A form outside the page's own is refused whatever the state (`form`).
            if let Some(notice) = form::out_of_form(&form) {
                return refuse(deps, &v, &visit, &notice).await;
            }
            match form.get("action").map(String::as_str) {
                // The tick is there: `out_of_form` refused a consent without it.
                Some("consent") => consent::consent(deps, v, &form, &visit).await,
                Some("start") => start(deps, v, &visit).await,
                Some("connect") => connect(deps, v, &form, &visit).await,
                Some("note") => add_note(deps, v, &form, &visit).await,
                Some("finish_documents") => finish_documents(deps, v, &visit).await,
                Some("finish") => finish(deps, v, &visit).await,
                Some("state_pay") => state_pay(deps, v, &form, &visit).await,
                Some("switch_method") => routing::switch_method(deps, v, &form, &visit).await,
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

/// `Some(true)` for a live verification whose income comes from the local stack's sandbox: its
/// report says so (`local_sandbox`); None otherwise.
fn local_sandbox<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Option<bool> {
    (v.mode == Mode::Live && deps.live_provider.simulated()).then_some(true)
}

/// Whether the tenant picks a sandbox scenario: test mode, or the local stack's live sandbox.
fn uses_scenarios<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> bool {
    v.mode == Mode::Test || deps.live_provider.simulated()
}

/// The notice of a step that needs the consent first (`needs_consent`).
const CONSENT_FIRST: &str = "Please agree to share your income summary first.";

/// Whether the consent step (which also prepares the provider's user) is still to be done.
fn needs_consent<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> bool {
    v.consented_at.is_none() || (!uses_scenarios(deps, v) && v.provider_user.is_none())
}

/// The page as the verification now is.
async fn current_page<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let requester = requester_name(deps, v).await?;
    render(deps, v, &requester, visit, None).await
}

/// The current page again with a notice, as a 400 (the tenant's form input was not usable).
async fn refuse<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    visit: &Visit<'_>,
    notice: &str,
) -> Result<ApiResponse, PageError> {
    let requester = requester_name(deps, v).await?;
    let page = render(deps, v, &requester, visit, Some(notice)).await?;
    Ok(ApiResponse {
        status: 400,
        ..page
    })
}

/// After a write that did not apply (a cancel, an expiry or another tab got there first): the page
/// as it now is, never a success redirect.
async fn after_conflict<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    fresh: Option<Verification>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    tracing::info!("verification changed meanwhile; not applied");
    match fresh {
        Some(fresh) => current_page(deps, &fresh, visit).await,
        None => Ok(not_found(visit.request_id)),
    }
}

async fn connect<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    form: &std::collections::HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if let Some(page) = not_now(deps, &v, visit).await {
        return page;
    }
    let (income, method) = if uses_scenarios(deps, &v) {
        let Some(scenario) = form
            .get("scenario")
            // Only a scenario of the verification's methods (the page offers no other).
            .filter(|s| offered(&v).iter().any(|(k, _)| k == *s))
        else {
            return refuse(deps, &v, visit, SCENARIO_NOTICE).await;
        };
        let income = match v.mode {
            Mode::Test => deps.sandbox.fetch_income(&v, scenario).await,
            Mode::Live => deps.live_provider.fetch_income(&v, scenario).await,
        };
        (income, scenario_method(scenario))
    } else {
        // A method already tried (held, failed, abandoned) is not connected again: a stale tab
        // or a resubmitted form would add its income a second time. The provider is not asked.
        let method = deps.live_provider.method();
        let open = domain::methods::remaining(&routing::routable(deps, &v), &v.method_attempts);
        if !open.contains(&method) {
            return current_page(deps, &v, visit).await;
        }
        // needs_consent is false, so the provider user is there; the form's fields are ignored.
        let user = v.provider_user.as_deref().unwrap_or_default();
        let income = deps.live_provider.fetch_income(&v, user).await;
        (income, method)
    };
    let local = local_sandbox(deps, &v);
    let build = |income: &_| {
        let mut report = build_report_with(income, &RentTerms::from(&v));
        report.local_sandbox = local;
        report
    };
    let routable = routing::routable(deps, &v);
    let more = form.get("more").is_some_and(|m| m == "yes");
    let at = (visit.now, more);
    let Some(transition) = routing::decide(&v, method, &routable, income, at, build) else {
        return Ok(provider_down(visit.request_id));
    };
    // One conditional write: if a cancel or an expiry got there first, it wins and the page shows it.
    write_then_show(deps, &v, &transition, visit, |done| {
        tracing::info!(status = done.status.as_str(), "verification finished");
    })
    .await
}

/// The line at the top of a page whose income is not real.
fn banner<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> &'static str {
    match v.mode {
        Mode::Test => r#"<p class="sandbox">Sandbox request: no real bank data is used.</p>"#,
        Mode::Live if deps.live_provider.simulated() => {
            r#"<p class="sandbox">Local demo stack: sandbox data stands in for a real bank connection, and the report is marked as local.</p>"#
        }
        Mode::Live => "",
    }
}

async fn render<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    requester: &str,
    visit: &Visit<'_>,
    notice: Option<&str>,
) -> Result<ApiResponse, PageError> {
    let request_id = visit.request_id;
    let who = esc(requester);
    let property = v
        .property_address
        .as_deref()
        .map(|a| format!(" for <strong>{}</strong>", esc(a)))
        .unwrap_or_default();
    let notice = notice
        .map(|n| format!(r#"<p class="notice" role="alert">{}</p>"#, esc(n)))
        .unwrap_or_default();
    let expiry = expiry_note(&who, &domain::reach::expiry_phrase(v));
    let banner = banner(deps, v);
    let resp = match v.effective_status(visit.now) {
        Status::Completed => {
            let local = if v.income_report.as_ref().and_then(|r| r.local_sandbox) == Some(true) {
                "<p class=\"sandbox\">Local demo stack: this summary was made from sandbox data.</p>"
            } else {
                ""
            };
            let body = report_copy::completed_body(v, &who, &property, visit.link, &notice);
            page(200, "Thank you", &format!("{local}{body}"), request_id)
        }
        Status::Failed => page(
            200,
            "We could not verify your income",
            &format!(
                "<p>The connected account did not show income we could verify. <strong>{who}</strong> has been told; \
                 they may ask you for another form of proof.</p>"
            ),
            request_id,
        ),
        Status::Expired if v.cancelled_at.is_some() => page(
            410,
            "This request was cancelled",
            &format!(
                "<p><strong>{who}</strong> cancelled this income verification. Nothing else is needed from you.</p>"
            ),
            request_id,
        ),
        Status::Expired => page(
            410,
            "This link has expired",
            &format!(
                "<p>Links are valid for 7 days. Ask <strong>{who}</strong> to send a new request if you still need to verify your income.</p>"
            ),
            request_id,
        ),
        Status::Pending | Status::InProgress if needs_consent(deps, v) => page(
            200,
            "Verify your income",
            &consent_body(
                banner,
                &who,
                &property,
                &format!("{expiry}\n{notice}"),
                consent::identity_fields(deps, v),
                visit.link,
                CONSENT_TEXT,
            ),
            request_id,
        ),
        // Only uploads remain (or, with income held, nothing): the page offers them alone.
        Status::Pending | Status::InProgress if routing::current(deps, v).is_none() => {
            let retry = routing::retry_notice(v, visit.link);
            let body = format!("{banner}{retry}{notice}{expiry}");
            let title = match v.held_income {
                Some(_) => "Your income is in",
                None => "Upload your documents",
            };
            let uploads = page(200, title, &body, request_id);
            with_documents(deps, v, visit, uploads).await
        }
        // The connection step says it too. A real provider is asked nothing until the tenant
        // starts the connection (a POST): a link scanner's GET costs nothing.
        Status::Pending | Status::InProgress if uses_scenarios(deps, v) => {
            let step = deps.sandbox.begin(v, None).await;
            let retry = routing::retry_notice(v, visit.link);
            let notices = format!("{retry}{notice}{expiry}{}", routing::more_box(deps, v));
            let connect = connect_step(step, banner, v, visit.link, &notices, request_id);
            let connect = routing::with_switch(deps, v, visit.link, connect);
            with_documents(deps, v, visit, connect).await
        }
        Status::Pending | Status::InProgress => {
            let retry = routing::retry_notice(v, visit.link);
            let body = start_body(&format!("{retry}{notice}{expiry}"), visit.link);
            let start = page(200, "Connect your income", &body, request_id);
            let start = routing::with_switch(deps, v, visit.link, start);
            with_documents(deps, v, visit, start).await
        }
    };
    Ok(resp)
}

/// The tenant starts the connection: only now is the live provider asked for a link token (a
/// fresh one each time: nothing stored, nothing that can go stale). Writes nothing.
async fn start<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if !v.effective_status(visit.now).is_open()
        || needs_consent(deps, &v)
        || uses_scenarios(deps, &v)
    {
        return current_page(deps, &v, visit).await;
    }
    let (step, requester) = tokio::join!(
        deps.live_provider.begin(&v, v.provider_user.as_deref()),
        requester_name(deps, &v)
    );
    let who = esc(&requester?);
    let expiry = expiry_note(&who, &domain::reach::expiry_phrase(&v));
    let (link, request_id) = (visit.link, visit.request_id);
    let notices = format!("{expiry}{}", routing::more_box(deps, &v));
    let widget = connect_step(step, banner(deps, &v), &v, link, &notices, request_id);
    // Who leaves the provider's window without finishing comes back to another way.
    Ok(routing::with_switch(deps, &v, link, widget))
}
