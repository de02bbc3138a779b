//! The tenant's steps besides consenting and connecting: "use another way", finishing with the
//! documents or with the income held, the figures typed from a photo or scan, and the note on a
//! completed verification. Each checks against the journey (`domain::journey`) as read.

use std::collections::HashMap;

use super::deps::{PageError, PortalDeps, PortalStore, Visit, local_sandbox};
use super::documents;
use super::render::{after_conflict, current_page, refuse};
use super::report_copy;
use super::shell::see_other;
use crate::http::ApiResponse;
use domain::affordability::RentTerms;
use domain::income::VerificationMethod;
use domain::journey::{Journey, NotReady, Open, record_attempts};
use domain::methods::{AttemptOutcome, MethodAttempt};
use domain::report::build_report_with;
use domain::{Transition, Verification};
use ports::{Clock, IncomeProvider, TransitionOutcome, UploadSigner};

/// The notice of a step that needs the consent first.
const CONSENT_FIRST: &str = "Please agree to share your income summary first.";

/// The answer to a step of an open verification when the journey is elsewhere.
pub(super) type NotNow = Result<ApiResponse, PageError>;

/// The open journey, or the answer to a step it does not allow: the page as it is once closed,
/// the consent notice (400) while the consent is still to be given.
pub(super) async fn open_or_answer<'j, S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    journey: &'j Journey,
    visit: &Visit<'_>,
) -> Result<&'j Open, NotNow> {
    match journey {
        Journey::Open(open) => Ok(open),
        Journey::Consent { .. } => Err(refuse(deps, v, journey, visit, CONSENT_FIRST).await),
        _ => Err(current_page(deps, v, journey, visit).await),
    }
}

/// Writes `transition` in one conditional write: 303 back to the link once applied (`applied`
/// logs it), else the page as it now is (`after_conflict`).
pub(super) async fn write_then_show<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    transition: &Transition,
    visit: &Visit<'_>,
    applied: impl FnOnce(&Verification),
) -> Result<ApiResponse, PageError> {
    match deps.store.transition(v, transition, visit.now).await? {
        TransitionOutcome::Applied(done) => {
            applied(&done);
            Ok(see_other(visit.link))
        }
        TransitionOutcome::Conflict(fresh) => after_conflict(deps, fresh, visit).await,
    }
}

/// The "use another way" POST: the method to connect is recorded as `abandoned` (one conditional
/// write on the tries as read, consent kept) when `method` is the journey's next one; a form that
/// no longer fits (another tab switched, or nothing follows) shows the page as it now is.
pub(super) async fn switch_method<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
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
    let asked = form
        .get("method")
        .and_then(|m| VerificationMethod::parse(m));
    let Some(left) = open
        .connect
        .filter(|c| c.next.is_some() && c.next == asked)
        .map(|c| c.method)
    else {
        return current_page(deps, &v, journey, visit).await;
    };
    let transition = Transition::Attempt {
        attempt: MethodAttempt {
            method: left,
            outcome: AttemptOutcome::Abandoned,
            at: visit.now,
        },
    };
    write_then_show(deps, &v, &transition, visit, |_| {
        tracing::info!(method = left.as_str(), "tenant chose another way");
    })
    .await
}

/// The tenant finishes with the uploaded documents: the report from them, in one conditional
/// write that also checks no document changed since this read.
pub(super) async fn finish_documents<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let open = match open_or_answer(deps, &v, journey, visit).await {
        Ok(open) => open,
        Err(answer) => return answer,
    };
    let Some(uploads) = &open.uploads else {
        return current_page(deps, &v, journey, visit).await;
    };
    if let Err(NotReady(missing)) = uploads.finish {
        return refuse(deps, &v, journey, visit, missing).await;
    }
    let mut report = domain::documents::finish::document_report(&v, visit.now.date_naive());
    // Income held from the local stack's sandbox marks the report as local, as a connection does.
    if open.held.is_some() {
        report.local_sandbox = local_sandbox(deps, &v);
    }
    let (document, succeeded) = (VerificationMethod::Document, AttemptOutcome::Succeeded);
    record_attempts(&v, &mut report, document, succeeded, visit.now);
    let transition = Transition::Complete {
        report: Box::new(report),
    };
    write_then_show(deps, &v, &transition, visit, |_| {
        tracing::info!(documents = v.documents.len(), "finished with documents");
    })
    .await
}

/// The tenant finishes with the income held ("add another income source"): the report from it,
/// with the documents when any count (`finish_documents`), in one conditional write on the tries
/// as read. Without held income, the page as it is.
pub(super) async fn finish<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let open = match open_or_answer(deps, &v, journey, visit).await {
        Ok(open) => open,
        Err(answer) => return answer,
    };
    let (Some(held), Some(income)) = (&open.held, v.held_income.as_ref()) else {
        return current_page(deps, &v, journey, visit).await;
    };
    if held.with_documents {
        return finish_documents(deps, v, journey, visit).await;
    }
    let mut report = build_report_with(income, &RentTerms::from(&v));
    report.local_sandbox = local_sandbox(deps, &v);
    report.attempts = v.method_attempts.clone();
    let transition = Transition::Complete {
        report: Box::new(report),
    };
    write_then_show(deps, &v, &transition, visit, |_| {
        tracing::info!("finished with the income held");
    })
    .await
}

/// The figures a tenant typed from a photo or scan: stored once on a document the journey asks
/// them for.
pub(super) async fn state_pay<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    form: &HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let asked = |id: &String| match journey {
        Journey::Open(open) => open.typed_figures.contains(id),
        _ => false,
    };
    let Some((id, document)) = form
        .get("document")
        .and_then(|id| v.documents.get_key_value(id))
        .filter(|(id, _)| asked(id))
    else {
        return current_page(deps, &v, journey, visit).await;
    };
    let Some(stated) = documents::parse_stated_pay(form, visit.now.date_naive()) else {
        return refuse(deps, &v, journey, visit, documents::STATED_PAY_NOTICE).await;
    };
    let mut entry = document.clone();
    entry.stated = Some(stated);
    if deps.store.put_document(&v, id, &entry).await? {
        tracing::info!("tenant typed a document's figures");
        Ok(see_other(visit.link))
    } else {
        let fresh = deps.store.get_verification(v.verification_id).await?;
        after_conflict(deps, fresh, visit).await
    }
}

/// The tenant's note on a completed verification: stored once (see `report_copy`).
pub(super) async fn add_note<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    form: &HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if !matches!(journey, Journey::Done { may_add_note: true }) {
        return current_page(deps, &v, journey, visit).await;
    }
    let note = match report_copy::parse_note(form) {
        Ok(note) => note,
        Err(problem) => return refuse(deps, &v, journey, visit, &problem.message()).await,
    };
    match deps.store.add_tenant_note(v.verification_id, &note).await? {
        Some(_) => {
            tracing::info!(chars = note.chars().count(), "tenant added a note");
            Ok(see_other(visit.link))
        }
        None => {
            let fresh = deps.store.get_verification(v.verification_id).await?;
            after_conflict(deps, fresh, visit).await
        }
    }
}
