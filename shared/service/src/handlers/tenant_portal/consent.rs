//! The consent step: the tick, and the identity a consumer-reporting provider (Plaid Check)
//! needs, asked on the same form when the live provider says so. What the tenant types goes to
//! the provider in the consent request only: it is never stored or logged. The consent POST
//! records the consent (time, text version, the provider's user, the account's default methods)
//! in one conditional write.

use std::collections::HashMap;

use chrono::NaiveDate;

use super::actions::write_then_show;
use super::deps::{PageError, PortalDeps, PortalStore, Visit, served};
use super::render::{current_page, refuse};
use super::shell::provider_down;
use crate::http::ApiResponse;
use domain::journey::{self, Journey};
use domain::tenant_identity::{self, TenantIdentity};
use domain::{Transition, Verification};
use ports::{IncomeProvider, UploadSigner};

/// Version of the consent text (`render::CONSENT_TEXT`); recorded with the consent.
pub const CONSENT_VERSION: &str = "2026-11-v2";

/// The consent POST, when the journey's next step is the consent.
pub(super) async fn consent<S: PortalStore, C, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    journey: &Journey,
    form: &HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    let Journey::Consent { asks_identity } = *journey else {
        // Nothing to record (closed, or consented already): show where things stand.
        return current_page(deps, &v, journey, visit).await;
    };
    let identity = match at_consent(asks_identity, form, visit.now.date_naive()) {
        Ok(identity) => identity,
        Err(notice) => return refuse(deps, &v, journey, visit, notice).await,
    };
    let served = served(deps);
    // The account's default methods are read first, for a verification created without its own:
    // users are made only at the providers of the methods the consent stores (a tenant's
    // identity goes to no provider the verification will never use).
    let default = match v.methods.is_empty() {
        true => deps.store.get_default_methods(&v.account_id).await?,
        false => vec![],
    };
    let methods = journey::methods_at_consent(&v, &served, &default);
    // The provider's user is created before the write that stores it, and only then: a failure
    // here writes nothing, and the tenant simply agrees again.
    let user = match journey::scenarios(&v, &served) {
        true => Ok(None),
        false => {
            // The verification as the consent leaves it: its own methods, or those stored now.
            let consented = match methods.is_empty() {
                true => v.clone(),
                false => Verification {
                    methods: methods.clone(),
                    ..v.clone()
                },
            };
            (deps.live_provider)
                .create_user(&consented, identity.as_ref())
                .await
        }
    };
    let provider_user = match user {
        Ok(user) => user,
        Err(e) => {
            tracing::warn!(error = %e, "income provider could not start");
            return Ok(provider_down(visit.request_id));
        }
    };
    let transition = Transition::Consent {
        version: CONSENT_VERSION.to_string(),
        provider_user,
        methods,
    };
    write_then_show(deps, &v, &transition, visit, |_| {
        tracing::info!(consent_version = CONSENT_VERSION, "tenant consented");
    })
    .await
}

/// What the consent form gives the provider: None when it needs nothing; the identity when it
/// needs one and the form carries it whole and true; `Err` (the notice) otherwise.
pub(super) fn at_consent(
    needed: bool,
    form: &HashMap<String, String>,
    today: NaiveDate,
) -> Result<Option<TenantIdentity>, &'static str> {
    if !needed {
        return Ok(None);
    }
    tenant_identity::from_form(form, today)
        .map(Some)
        .ok_or(tenant_identity::IDENTITY_NOTICE)
}
