//! The HTML of the tenant page's steps: the consent, the sandbox's scenarios, the provider's
//! widget. Pure functions of what they are given; the decisions are in `domain::journey`.

use std::fmt::Write as _;

use super::payroll_widget::payroll_widget_page;
use super::shell::{page, provider_down, script_string};
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use crate::sandbox::scenario_from_email;
use domain::Verification;
use domain::secrets::csp_nonce;
use ports::{ConnectStep, ProviderError};

/// When the link expires, and that a new one can be asked of the requester (`who`: HTML-escaped
/// already); on every page of an open verification.
pub(crate) fn expiry_note(who: &str, expires: &str) -> String {
    format!(
        r#"<p class="small">This link expires on {expires}. After that, ask <strong>{who}</strong> for a new link.</p>"#,
        expires = esc(expires),
    )
}

/// The consent step: who asks, what is shared, the box to tick.
/// `notes` are the expiry note and any notice; `fields` what the provider needs beside the tick
/// (the identity a consumer report asks), or nothing.
pub(crate) fn consent_body(
    banner: &str,
    who: &str,
    property: &str,
    notes: &str,
    fields: &str,
    link: &str,
    consent_text: &str,
) -> String {
    format!(
        r#"{banner}<p><strong>{who}</strong> asks you to verify your income{property}.</p>
<h2>What will be shared</h2>
<ul><li>Who pays you (employer or payer names)</li><li>Monthly income per source and how often you are paid</li><li>Whether your income is at least three times the rent</li></ul>
<p>Not shared: account numbers, balances, individual purchases.</p>
{notes}
<form method="post" action="{link}">
<input type="hidden" name="action" value="consent">
{fields}
<p class="check"><input type="checkbox" id="agree" name="agree" value="yes" required>
<label for="agree">{consent}</label></p>
<button type="submit">Agree and continue</button>
</form>"#,
        link = esc(link),
        consent = esc(consent_text),
    )
}

/// The consent form's identity fields, with the browser's autofill names.
pub(crate) const IDENTITY_FIELDS: &str = r#"<fieldset><legend>Who you are, for the bank-income report</legend>
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

/// The sandbox's scenario form (no JavaScript).
pub(crate) fn scenario_body(
    banner: &str,
    scenarios: &[(String, String)],
    preferred: &str,
    notice: &str,
    link: &str,
) -> String {
    let mut options = String::new();
    for (key, label) in scenarios {
        let checked = if key == preferred { " checked" } else { "" };
        let _ = write!(
            options,
            r#"<p class="option"><input type="radio" id="s-{k}" name="scenario" value="{k}"{checked}> <label for="s-{k}">{l}</label></p>"#,
            k = esc(key),
            l = esc(label)
        );
    }
    format!(
        r#"{banner}<p>Choose the bank account your income is paid into.</p>
{notice}
<form method="post" action="{link}" id="connect">
<input type="hidden" name="action" value="connect">
<fieldset><legend>Sandbox bank</legend>{options}</fieldset>
<button type="submit">Connect and share</button>
</form>"#,
        link = esc(link)
    )
}

/// The page of a provider's first connection step: the sandbox's scenarios, or the widget.
pub(crate) fn connect_step(
    step: Result<ConnectStep, ProviderError>,
    banner: &str,
    v: &Verification,
    link: &str,
    notice: &str,
    request_id: &str,
) -> ApiResponse {
    match step {
        Ok(ConnectStep::ChooseScenario { scenarios }) => {
            let preferred = scenario_from_email(&v.tenant_email).unwrap_or("good");
            page(
                200,
                "Connect your income",
                &scenario_body(banner, &scenarios, preferred, notice, link),
                request_id,
            )
        }
        Ok(ConnectStep::Widget { link_token, script }) => {
            widget_page(&link_token, script.as_deref(), link, notice, request_id)
        }
        Ok(ConnectStep::PayrollWidget {
            user_token,
            sandbox,
            script,
        }) => {
            let widget = super::payroll_widget::Widget {
                user_token: &user_token,
                sandbox,
                script: script.as_deref(),
            };
            payroll_widget_page(&widget, link, notice, request_id)
        }
        Err(e) => {
            tracing::warn!(error = %e, "income provider could not start");
            provider_down(request_id)
        }
    }
}

/// Before a real provider's widget: a button that starts the connection (a POST), so opening the
/// page asks the provider nothing.
pub(crate) fn start_body(notice: &str, link: &str) -> String {
    format!(
        r#"<p>Connect the bank account your income is paid into. A window from our bank-data partner opens.</p>
{notice}
<form method="post" action="{link}">
<input type="hidden" name="action" value="start">
<button type="submit">Connect your bank</button>
</form>"#,
        link = esc(link)
    )
}

/// Plaid Link's script, from Plaid's CDN.
const PLAID_LINK_SCRIPT: &str = "https://cdn.plaid.com/link/v2/stable/link-initialize.js";

/// The provider's widget (Plaid Link) needs its script; everything else on the page works without.
pub(crate) fn widget_page(
    link_token: &str,
    script: Option<&str>,
    link: &str,
    notice: &str,
    request_id: &str,
) -> ApiResponse {
    let nonce = csp_nonce();
    let script_url = script.unwrap_or(PLAID_LINK_SCRIPT);
    // The script's origin may run it and be called by it: Plaid's, or the local stand-in's.
    let origin = script
        .and_then(super::documents::origin_of)
        .unwrap_or_else(|| "https://cdn.plaid.com".into());
    let connect = if script.is_some() {
        origin.clone()
    } else {
        "https://*.plaid.com".into()
    };
    let body = format!(
        r#"<p>Connect the bank account your income is paid into. A window from our bank-data partner opens.</p>
{notice}
<form method="post" action="{link}" id="connect">
<input type="hidden" name="action" value="connect">
<button type="button" id="open">Connect your bank</button>
</form>
<script src="{script_url}" nonce="{nonce}"></script>
<script nonce="{nonce}">
var handler = Plaid.create({{ token: {token}, onSuccess: function () {{ document.getElementById("connect").submit(); }} }});
document.getElementById("open").addEventListener("click", function () {{ handler.open(); }});
</script>
<noscript><p>Connecting a bank needs JavaScript for our partner's window.</p></noscript>"#,
        link = esc(link),
        token = script_string(link_token),
        script_url = esc(script_url),
    );
    let mut resp = page(200, "Connect your income", &body, request_id);
    for (name, value) in resp.headers.iter_mut() {
        if name == "content-security-policy" {
            *value = format!(
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}' {origin}; frame-src {origin}; connect-src {connect}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
            );
        }
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nonce a page's policy names and its scripts carry.
    fn nonce_of(resp: &ApiResponse) -> String {
        let csp = resp.header("content-security-policy").unwrap();
        let nonce = csp
            .split("'nonce-")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap()
            .to_string();
        assert_eq!(
            resp.body.matches(&format!("nonce=\"{nonce}\"")).count(),
            2,
            "both scripts carry the policy's nonce"
        );
        nonce
    }

    /// Each answer draws its own nonce, even for the same request id and token: nothing about
    /// the request predicts it.
    #[test]
    fn every_widget_page_draws_a_fresh_nonce() {
        let pages: [fn() -> ApiResponse; 2] = [
            || widget_page("link-token", None, "/t/x/y", "", "req-1"),
            || {
                let widget = super::super::payroll_widget::Widget {
                    user_token: "user-token",
                    sandbox: true,
                    script: None,
                };
                payroll_widget_page(&widget, "/t/x/y", "", "req-1")
            },
        ];
        for make in pages {
            let (first, second) = (nonce_of(&make()), nonce_of(&make()));
            assert_ne!(first, second);
            assert_eq!(first.len(), 24, "128 bits, base64");
        }
    }

    #[test]
    fn the_expiry_note_names_the_time_and_who_gives_a_new_link() {
        let note = expiry_note("Acme &amp; Sons", "2026-11-27 10:00 UTC");
        assert_eq!(
            note,
            "<p class=\"small\">This link expires on 2026-11-27 10:00 UTC. After that, ask <strong>Acme &amp; Sons</strong> for a new link.</p>"
        );
        let body = consent_body("", "Acme", "", &note, "", "/t/x/y", "I agree");
        assert!(body.contains(&note));
    }

    #[test]
    fn a_hostile_link_token_cannot_leave_its_script_string() {
        let hostile = "x\"</script><script>alert(1)</script><!--&\u{2028}\u{2029}'\\";
        let literal = script_string(hostile);
        for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(
                !literal.contains(forbidden),
                "{literal} contains {forbidden:?}"
            );
        }
        // It is still exactly the token, for a JavaScript (JSON) parser.
        assert_eq!(serde_json::from_str::<String>(&literal).unwrap(), hostile);
        let resp = widget_page(hostile, None, "/t/x/y", "", "req-1");
        assert_eq!(
            resp.body.matches("</script>").count(),
            2,
            "only the page's own two scripts end"
        );
        assert!(!resp.body.contains("alert(1)</script>"));
        assert!(resp.body.contains(&format!("token: {literal},")));
    }
}
