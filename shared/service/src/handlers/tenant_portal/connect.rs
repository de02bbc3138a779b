//! Connecting the journey's method: the real provider's widget, started by a POST (`start`),
//! and the connection itself (`connect`), whose outcome `domain::journey::after_connection`
//! decides: the report, the failure, the next method, or income held for another source. A
//! provider that reports later (Plaid Check) leaves the connection waiting for its data.

use std::collections::HashMap;

use super::actions::{open_or_answer, write_then_show};
use super::deps::{PageError, PortalDeps, PortalStore, Visit, local_sandbox, served};
use super::form::SCENARIO_NOTICE;
use super::page::{connect_step, expiry_note};
use super::reads::requester_name;
use super::render::{banner, current_page, refuse};
use super::shell::provider_down;
use super::steps::{more_box, with_switch};
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use crate::sandbox::scenarios_for;
use domain::affordability::RentTerms;
use domain::journey::{self, By, Connection, Journey, after_connection};
use domain::report::build_report_with;
use domain::{Mode, Transition, Verification};
use ports::{IncomeProvider, ProviderError, UploadSigner};

/// The connection of the journey's method: the sandbox's scenario (one of that method's), or
/// the real provider's user. A method no longer to connect (tried already: a stale tab or a
/// resubmitted form) is not connected again, and the provider is not asked.
pub(super) async fn connect<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    form: &HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let open = match open_or_answer(deps, &v, journey, visit).await {
        Ok(open) => open,
        Err(answer) => return answer,
    };
    let scenarios = journey::scenarios(&v, &served(deps));
    let Some(connect) = open.connect else {
        // No method left to connect: a scenario is refused as any other, a provider's page shown.
        return if scenarios {
            refuse(deps, &v, journey, visit, SCENARIO_NOTICE).await
        } else {
            current_page(deps, &v, journey, visit).await
        };
    };
    let income = if scenarios {
        // Only a scenario of the method to connect (the page offers no other).
        let offered = scenarios_for(std::slice::from_ref(&connect.method));
        let scenario = form
            .get("scenario")
            .filter(|s| offered.iter().any(|(k, _)| k == *s));
        let Some(scenario) = scenario else {
            return refuse(deps, &v, journey, visit, SCENARIO_NOTICE).await;
        };
        match v.mode {
            Mode::Test => {
                deps.sandbox
                    .fetch_income(&v, connect.method, scenario)
                    .await
            }
            Mode::Live => {
                (deps.live_provider)
                    .fetch_income(&v, connect.method, scenario)
                    .await
            }
        }
    } else if deps.live_provider.reports_later(connect.method) {
        // The provider builds its report on its own time and says so by webhook: the
        // connection waits (one conditional write on the tries as read); the webhook's piece of
        // work, or the sweep, reads the report. Nothing is read now.
        let transition = Transition::Await {
            method: connect.method,
            next: connect.next,
        };
        return write_then_show(deps, &v, &transition, visit, |_| {
            tracing::info!(
                method = connect.method.as_str(),
                "connection waits for its data"
            );
        })
        .await;
    } else {
        // The journey is open, so the provider user is there; the form's fields are ignored.
        let user = v.provider_user.as_deref().unwrap_or_default();
        (deps.live_provider)
            .fetch_income(&v, connect.method, user)
            .await
    };
    let method = connect.method.as_str();
    let connection = match income {
        Ok(income) => Connection::Income(income),
        Err(ProviderError::Rejected(reason)) => {
            tracing::info!(reason = %reason, method, "income provider could not verify income");
            Connection::Refused
        }
        Err(ProviderError::Unavailable(reason)) => {
            tracing::warn!(reason = %reason, "income provider unavailable");
            return Ok(provider_down(visit.request_id));
        }
    };
    let local = local_sandbox(deps, &v);
    let build = |income: &_| {
        let mut report = build_report_with(income, &RentTerms::from(&v));
        report.local_sandbox = local;
        report
    };
    let more = form.get("more").is_some_and(|m| m == "yes");
    let transition = after_connection(&v, &connect, connection, (visit.now, more), build);
    match &transition {
        Transition::Attempt { .. } => tracing::info!(method, "next method offered"),
        Transition::Hold { .. } => tracing::info!(method, "income held: another source to add"),
        _ => {}
    }
    // One conditional write: if a cancel or an expiry got there first, it wins and the page shows it.
    write_then_show(deps, &v, &transition, visit, |done| {
        tracing::info!(status = done.status.as_str(), "verification finished");
    })
    .await
}

/// The tenant starts the connection: only now is the live provider asked for a link token (a
/// fresh one each time: nothing stored, nothing that can go stale). Writes nothing. Only where
/// the journey connects a real provider's method; otherwise the page as it is.
pub(super) async fn start<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let connect = match journey {
        Journey::Open(open) => open.connect.filter(|c| c.by == By::Provider),
        _ => None,
    };
    let Some(connect) = connect else {
        return current_page(deps, &v, journey, visit).await;
    };
    let (step, requester) = tokio::join!(
        (deps.live_provider).begin(&v, connect.method, v.provider_user.as_deref()),
        requester_name(deps, &v)
    );
    let who = esc(&requester?);
    let expiry = expiry_note(&who, &domain::reach::expiry_phrase(&v));
    let (link, request_id) = (visit.link, visit.request_id);
    let notices = format!("{expiry}{}", more_box(&connect));
    let widget = connect_step(step, banner(deps, &v), &v, link, &notices, request_id);
    // Who leaves the provider's window without finishing comes back to another way.
    Ok(with_switch(&connect, link, widget))
}
