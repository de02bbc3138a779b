//! The page of the tenant's next step (`domain::journey`): each step of the journey has its page,
//! with the expiry, the banner of a page whose income is not real, and any notice.

use super::deps::{PageError, PortalDeps, PortalStore, Visit, journey_of};
use super::files::with_documents;
use super::page::{IDENTITY_FIELDS, connect_step, consent_body, expiry_note, start_body};
use super::reads::requester_name;
use super::report_copy;
use super::shell::{not_found, page, waiting_page};
use super::steps::{more_box, retry_notice, with_switch};
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use crate::sandbox::scenarios_for;
use domain::journey::{By, Journey, Open};
use domain::{Mode, Verification};
use ports::{ConnectStep, IncomeProvider, UploadSigner};

/// The consent text; its version is `consent::CONSENT_VERSION`, recorded with the consent.
const CONSENT_TEXT: &str = "I agree that the income verification service may read the income \
deposits of the account I connect (employer or payer names, amounts and pay frequency), or the \
documents I upload (pay stubs, bank statements, benefit letters) and the figures I type from \
them, and share an income summary, with each document's checks, with the requester named \
above, for this rental application only. The requester may download the documents I upload. \
Account numbers, balances and individual purchases are not shared.";

/// The page as the verification now is.
pub(super) async fn current_page<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    journey: &Journey,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let requester = requester_name(deps, v).await?;
    Ok(render(deps, v, journey, &requester, visit, None).await)
}

/// The current page again with a notice, as a 400 (the tenant's form input was not usable).
pub(super) async fn refuse<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    journey: &Journey,
    visit: &Visit<'_>,
    notice: &str,
) -> Result<ApiResponse, PageError> {
    let requester = requester_name(deps, v).await?;
    let page = render(deps, v, journey, &requester, visit, Some(notice)).await;
    Ok(ApiResponse {
        status: 400,
        ..page
    })
}

/// After a write that did not apply (a cancel, an expiry or another tab got there first): the page
/// as it now is, never a success redirect.
pub(super) async fn after_conflict<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    fresh: Option<Verification>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    tracing::info!("verification changed meanwhile; not applied");
    match fresh {
        Some(fresh) => {
            let journey = journey_of(deps, &fresh, visit.now);
            current_page(deps, &fresh, &journey, visit).await
        }
        None => Ok(not_found(visit.request_id)),
    }
}

/// The line at the top of a page whose income is not real.
pub(super) fn banner<S, C, P: IncomeProvider, U>(
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

async fn render<S, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    journey: &Journey,
    requester: &str,
    visit: &Visit<'_>,
    notice: Option<&str>,
) -> ApiResponse {
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
    match journey {
        Journey::Done { .. } => {
            let local = if v.income_report.as_ref().and_then(|r| r.local_sandbox) == Some(true) {
                "<p class=\"sandbox\">Local demo stack: this summary was made from sandbox data.</p>"
            } else {
                ""
            };
            let body = report_copy::completed_body(v, &who, &property, visit.link, &notice);
            page(200, "Thank you", &format!("{local}{body}"), request_id)
        }
        Journey::Failed => page(
            200,
            "We could not verify your income",
            &format!(
                "<p>The connected account did not show income we could verify. <strong>{who}</strong> has been told; \
                 they may ask you for another form of proof.</p>"
            ),
            request_id,
        ),
        Journey::Cancelled => page(
            410,
            "This request was cancelled",
            &format!(
                "<p><strong>{who}</strong> cancelled this income verification. Nothing else is needed from you.</p>"
            ),
            request_id,
        ),
        Journey::Expired => page(
            410,
            "This link has expired",
            &format!(
                "<p>Links are valid for 7 days. Ask <strong>{who}</strong> to send a new request if you still need to verify your income.</p>"
            ),
            request_id,
        ),
        Journey::Consent { asks_identity } => page(
            200,
            "Verify your income",
            &consent_body(
                banner,
                &who,
                &property,
                &format!("{expiry}\n{notice}"),
                if *asks_identity { IDENTITY_FIELDS } else { "" },
                visit.link,
                CONSENT_TEXT,
            ),
            request_id,
        ),
        // `who` is escaped already; the expiry note is the page's own HTML.
        Journey::Waiting(_) => waiting_page(&who, &expiry, request_id),
        Journey::Open(open) => {
            let step = open_step(v, open, banner, visit, &format!("{notice}{expiry}"));
            with_documents(deps, v, open, visit, step).await
        }
    }
}

/// The page of an open verification before its uploads: the method to connect (the sandbox's
/// scenarios, or the button that starts a real provider), or the uploads alone.
fn open_step(
    v: &Verification,
    open: &Open,
    banner: &str,
    visit: &Visit<'_>,
    notes: &str,
) -> ApiResponse {
    let (link, request_id) = (visit.link, visit.request_id);
    let retry = retry_notice(open, link);
    let Some(connect) = &open.connect else {
        // Only uploads remain (or, with income held, nothing): the page offers them alone.
        let title = match open.held {
            Some(_) => "Your income is in",
            None => "Upload your documents",
        };
        return page(200, title, &format!("{banner}{retry}{notes}"), request_id);
    };
    let resp = match connect.by {
        // A real provider is asked nothing until the tenant starts the connection (a POST): a
        // link scanner's GET costs nothing.
        By::Provider => {
            let body = start_body(&format!("{retry}{notes}"), link);
            page(200, "Connect your income", &body, request_id)
        }
        By::Scenarios => {
            let scenarios = scenarios_for(std::slice::from_ref(&connect.method));
            let step = Ok(ConnectStep::ChooseScenario { scenarios });
            let notices = format!("{retry}{notes}{}", more_box(connect));
            connect_step(step, banner, v, link, &notices, request_id)
        }
    };
    with_switch(connect, link, resp)
}
