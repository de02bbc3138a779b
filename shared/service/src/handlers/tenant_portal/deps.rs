//! What the tenant page runs on (the store, the clock, the providers, the documents bucket), the
//! request's context once the link is checked, and what the stack serves (`journey::Served`),
//! from which `domain::journey::next_step` decides the tenant's next step.

use chrono::{DateTime, Utc};

use super::documents::DocumentUploads;
use crate::http::ApiRequest;
use crate::sandbox::SandboxProvider;
use domain::journey::{self, Journey, Served};
use domain::retention::LinkWindow;
use domain::{Mode, Verification};
use ports::{AccountStore, DocumentStore, IncomeProvider, StoreError, VerificationStore};

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
    /// How long a closed verification's link still opens its page and PDF copy.
    pub link_window: LinkWindow,
}

#[derive(Debug)]
pub(super) enum PageError {
    Store(StoreError),
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        PageError::Store(e)
    }
}

/// The request's context once the link is checked.
pub(super) struct Visit<'a> {
    pub link: &'a str,
    pub now: DateTime<Utc>,
    pub request_id: &'a str,
    /// The page's absolute URL (S3 sends the browser back to it after an upload).
    pub page_url: String,
    /// The object key S3 names when it sends the browser back after an upload.
    pub uploaded: Option<&'a str>,
}

/// What this stack serves, for the journey.
pub(super) fn served<S, C, P: IncomeProvider, U>(deps: &PortalDeps<S, C, P, U>) -> Served<'_> {
    Served {
        live_methods: deps.live_provider.methods(),
        live_simulated: deps.live_provider.simulated(),
        live_identity_methods: deps.live_provider.identity_methods(),
        documents: deps.uploads.is_some(),
    }
}

/// The tenant's next step with `v` at `now` (`domain::journey::next_step`).
pub(super) fn journey_of<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    now: DateTime<Utc>,
) -> Journey {
    journey::next_step(v, now, &served(deps))
}

/// `Some(true)` for a live verification whose income comes from the local stack's sandbox: its
/// report says so (`local_sandbox`); None otherwise.
pub(super) fn local_sandbox<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Option<bool> {
    (v.mode == Mode::Live && deps.live_provider.simulated()).then_some(true)
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
