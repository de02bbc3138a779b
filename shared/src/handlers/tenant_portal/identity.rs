//! The identity a consumer-reporting provider needs (Plaid Check), asked on the consent form
//! when the live provider says so: the fields, and reading them at the consent POST. What the
//! tenant types goes to the provider in that request only: it is never stored or logged.

use std::collections::HashMap;

use chrono::NaiveDate;

use crate::domain::tenant_identity::{self, TenantIdentity};

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
