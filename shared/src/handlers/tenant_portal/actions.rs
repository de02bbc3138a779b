//! The tenant's steps besides consenting and connecting a bank: the "Upload documents" section
//! added to the connection page (with the page's own URL, where S3 sends the browser back), the
//! figures a tenant types from a photo or scan, finishing with the documents, and the note on a
//! completed verification.

use super::routing::{offers_documents, record_attempts};
use super::{
    CONSENT_FIRST, PageError, PortalDeps, PortalStore, Visit, after_conflict, current_page,
    documents, local_sandbox, needs_consent, refuse, report_copy, uses_scenarios,
};
use crate::handlers::tenant_portal::page::see_other;
use crate::http::{ApiRequest, ApiResponse};
use domain::affordability::RentTerms;
use domain::income::VerificationMethod;
use domain::methods::AttemptOutcome;
use domain::report::build_report_with;
use domain::{Status, Transition, Verification};
use ports::{Clock, IncomeProvider, TransitionOutcome, UploadSigner};

/// Writes `transition` in one conditional write: 303 back to the link once applied (`applied`
/// logs it), else the page as it now is (`after_conflict`).
pub(super) async fn write_then_show<
    S: PortalStore,
    C: Clock,
    P: IncomeProvider,
    U: UploadSigner,
>(
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

/// The answer to a step that the verification's state does not allow: the page as it is once
/// closed, the consent notice while the consent is still to be given; None when the step may go
/// on.
pub(super) async fn not_now<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    visit: &Visit<'_>,
) -> Option<Result<ApiResponse, PageError>> {
    if !v.effective_status(visit.now).is_open() {
        return Some(current_page(deps, v, visit).await);
    }
    if needs_consent(deps, v) {
        return Some(refuse(deps, v, visit, CONSENT_FIRST).await);
    }
    None
}

/// The page's absolute URL: `PUBLIC_BASE_URL`, or the request's host over https, and the link.
pub(super) fn page_url<S, C, P, U>(
    deps: &PortalDeps<S, C, P, U>,
    req: &ApiRequest,
    link: &str,
) -> String {
    let base = deps
        .uploads
        .as_ref()
        .and_then(|u| u.base_url.clone())
        .or_else(|| {
            let host = req.headers.get("host")?.to_str().ok()?;
            Some(format!("https://{host}"))
        })
        .unwrap_or_default();
    format!("{}{link}", base.trim_end_matches('/'))
}

/// The connection page with "Upload documents" added, when the stack has a documents bucket.
pub(super) async fn with_documents<S, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    visit: &Visit<'_>,
    resp: ApiResponse,
) -> ApiResponse {
    let Some(uploads) = deps.uploads.as_ref().filter(|_| offers_documents(deps, v)) else {
        return resp;
    };
    let form = documents::upload_form(uploads, v, &visit.page_url, visit.now).await;
    let samples = uses_scenarios(deps, v);
    let section = documents::section(v, form.as_ref(), visit.link, visit.uploaded, samples);
    documents::with_section(resp, &section, form.as_ref())
}

/// The tenant finishes with the uploaded documents: the report from them, in one conditional
/// write that also checks no document changed since this read.
pub(super) async fn finish_documents<
    S: PortalStore,
    C: Clock,
    P: IncomeProvider,
    U: UploadSigner,
>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if !v.effective_status(visit.now).is_open() || !offers_documents(deps, &v) {
        return current_page(deps, &v, visit).await;
    }
    if needs_consent(deps, &v) {
        return refuse(deps, &v, visit, CONSENT_FIRST).await;
    }
    if let Err(missing) = domain::documents::record::ready_to_finish(v.documents.values()) {
        return refuse(deps, &v, visit, missing).await;
    }
    let mut report = domain::documents::finish::document_report(&v, visit.now.date_naive());
    // Income held from the local stack's sandbox marks the report as local, as a connection does.
    if v.held_income.is_some() {
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
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if let Some(page) = not_now(deps, &v, visit).await {
        return page;
    }
    let Some(held) = v.held_income.as_ref() else {
        return current_page(deps, &v, visit).await;
    };
    if v.documents.values().any(|d| d.counts()) && offers_documents(deps, &v) {
        return finish_documents(deps, v, visit).await;
    }
    let mut report = build_report_with(held, &RentTerms::from(&v));
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

/// The figures a tenant typed from a photo or scan: stored once on that document.
pub(super) async fn state_pay<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    form: &std::collections::HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let Some((id, document)) = form
        .get("document")
        .and_then(|id| v.documents.get_key_value(id))
        .filter(|(_, d)| d.needs_stated_pay() && d.stated.is_none())
    else {
        return current_page(deps, &v, visit).await;
    };
    if v.effective_status(visit.now) != Status::InProgress {
        return current_page(deps, &v, visit).await;
    }
    let Some(stated) = documents::parse_stated_pay(form, visit.now.date_naive()) else {
        return refuse(deps, &v, visit, documents::STATED_PAY_NOTICE).await;
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
pub(super) async fn add_note<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    form: &std::collections::HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if v.effective_status(visit.now) != Status::Completed || v.tenant_note.is_some() {
        return current_page(deps, &v, visit).await;
    }
    let note = match report_copy::parse_note(form) {
        Ok(note) => note,
        Err(problem) => return refuse(deps, &v, visit, &problem.message()).await,
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
