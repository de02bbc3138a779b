//! The journey's uploads on the page: the "Upload documents" section added to the step, and the
//! sandbox's sample documents, downloaded only where the journey offers them.

use chrono::{DateTime, Utc};

use super::deps::{PortalDeps, Visit};
use super::documents;
use crate::http::ApiResponse;
use domain::Verification;
use domain::documents::samples::{Sample, sample_pdf};
use domain::journey::{Journey, Open};
use ports::UploadSigner;

/// The step's page with "Upload documents" added, when the journey offers uploads (documents
/// are one of the methods and the stack has a documents bucket).
pub(super) async fn with_documents<S, C, P, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    open: &Open,
    visit: &Visit<'_>,
    resp: ApiResponse,
) -> ApiResponse {
    let (Some(bucket), Some(uploads)) = (deps.uploads.as_ref(), open.uploads.as_ref()) else {
        return resp;
    };
    let form = match uploads.may_upload {
        true => documents::upload_form(bucket, v, &visit.page_url, visit.now).await,
        false => None,
    };
    let shown = documents::Shown {
        just_uploaded: visit.uploaded,
        may_upload: uploads.may_upload,
        samples: uploads.samples,
        typed_figures: &open.typed_figures,
    };
    let section = documents::section(v, form.as_ref(), visit.link, &shown);
    documents::with_section(resp, &section, form.as_ref())
}

/// A sample document of the sandbox, made for this verification's tenant: only where the
/// journey offers samples (an open, consented verification in test mode or on the local stack's
/// sandbox, with documents among its methods). None otherwise, or for a name that is no sample.
pub(super) fn sample_download(
    v: &Verification,
    journey: &Journey,
    name: &str,
    now: DateTime<Utc>,
) -> Option<ApiResponse> {
    let Journey::Open(open) = journey else {
        return None;
    };
    if !open.uploads.as_ref().is_some_and(|u| u.samples) {
        return None;
    }
    let sample = Sample::from_slug(name)?;
    let tenant = v.tenant_name.as_deref().unwrap_or("Jamie Sample");
    let bytes = sample_pdf(sample, v.verification_id, tenant, now.date_naive())?;
    Some(ApiResponse::pdf(bytes, &sample.file_name()))
}
