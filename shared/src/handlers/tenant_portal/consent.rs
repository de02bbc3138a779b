//! The consent step: the tick, and the identity a consumer-reporting provider (Plaid Check)
//! needs, asked on the same form when the live provider says so. What the tenant types goes to
//! the provider in the consent request only: it is never stored or logged. The consent POST
//! records the consent (time, text version, the provider's user) in one conditional write.

use std::collections::HashMap;

use chrono::NaiveDate;

use super::actions::write_then_show;
use super::page::provider_down;
use super::{
    CONSENT_VERSION, PageError, PortalDeps, PortalStore, Visit, current_page, needs_consent,
    refuse, routing, uses_scenarios,
};
use crate::http::ApiResponse;
use domain::tenant_identity::{self, TenantIdentity};
use domain::{Transition, Verification};
use ports::{Clock, IncomeProvider, UploadSigner};

pub(super) async fn consent<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    form: &HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if !v.effective_status(visit.now).is_open() || !needs_consent(deps, &v) {
        // Nothing to record (closed, or consented already): show where things stand.
        return current_page(deps, &v, visit).await;
    }
    let identity = match at_consent(asks_identity(deps, &v), form, visit.now.date_naive()) {
        Ok(identity) => identity,
        Err(notice) => return refuse(deps, &v, visit, notice).await,
    };
    // The provider's user is created before the write that stores it, and only then: a failure
    // here writes nothing, and the tenant simply agrees again. The account's default methods are
    // read beside it, for a verification created without its own.
    let user = async {
        match uses_scenarios(deps, &v) {
            true => Ok(None),
            false => {
                (deps.live_provider)
                    .create_user(&v, identity.as_ref())
                    .await
            }
        }
    };
    let (user, methods) = tokio::join!(user, routing::methods_at_consent(deps, &v));
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
        methods: methods?,
    };
    write_then_show(deps, &v, &transition, visit, |_| {
        tracing::info!(consent_version = CONSENT_VERSION, "tenant consented");
    })
    .await
}

/// Whether the consent asks the tenant's identity: a real provider that needs it (the
/// sandbox never does).
fn asks_identity<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> bool {
    !uses_scenarios(deps, v) && deps.live_provider.needs_identity()
}

/// The identity fields of the consent form, when it asks them.
pub(super) fn identity_fields<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> &'static str {
    match asks_identity(deps, v) {
        true => FIELDS_HTML,
        false => "",
    }
}

/// The consent form's identity fields, with the browser's autofill names.
pub(super) const FIELDS_HTML: &str = r#"<fieldset><legend>Who you are, for the bank-income report</legend>
<p class="small">The consumer report needs these. They go to the bank-data provider only; we keep none of them.</p>
<p><label for="id-first">Legal first name</label><br><input id="id-first" name="first_name" autocomplete="given-name" maxlength="100" required></p>
<p><label for="id-last">Legal last name</label><br><input id="id-last" name="last_name" autocomplete="family-name" maxlength="100" required></p>
<p><label for="id-phone">Mobile number</label><br><input type="tel" id="id-phone" name="phone" autocomplete="tel" maxlength="30" required></p>
<p><label for="id-dob">Date of birth</label><br><input type="date" id="id-dob" name="date_of_birth" autocomplete="bday" required></p>
<p><label for="id-street">Street address</label><br><input id="id-street" name="street" autocomplete="street-address" maxlength="100" required></p>
<p><label for="id-city">City</label><br><input id="id-city" name="city" autocomplete="address-level2" maxlength="100" required></p>
<p><label for="id-region">State (two letters)</label><br><input id="id-region" name="region" autocomplete="address-level1" maxlength="2" size="2" required></p>
<p><label for="id-zip">ZIP code</label><br><input id="id-zip" name="postal_code" autocomplete="postal-code" inputmode="numeric" maxlength="10" required></p>
</fieldset>"#;

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
