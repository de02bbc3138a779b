//! The HTML of the tenant page: one document shell, the texts of each state, and the provider's
//! widget. Pure functions of what they are given; the decisions are in `tenant_portal`.

use std::fmt::Write as _;

use crate::adapters::sandbox::scenario_from_email;
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::Verification;
use domain::secrets::sha256_hex;
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
        Ok(ConnectStep::Widget { link_token }) => {
            widget_page(&link_token, link, notice, request_id)
        }
        Ok(ConnectStep::PayrollWidget {
            user_token,
            sandbox,
        }) => super::payroll_widget::payroll_widget_page(
            &user_token,
            sandbox,
            link,
            notice,
            request_id,
        ),
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

/// The provider's widget (Plaid Link) needs its script; everything else on the page works without.
pub(crate) fn widget_page(
    link_token: &str,
    link: &str,
    notice: &str,
    request_id: &str,
) -> ApiResponse {
    let nonce = sha256_hex(format!("{request_id}{link_token}").as_bytes())[..24].to_string();
    let body = format!(
        r#"<p>Connect the bank account your income is paid into. A window from our bank-data partner opens.</p>
{notice}
<form method="post" action="{link}" id="connect">
<input type="hidden" name="action" value="connect">
<button type="button" id="open">Connect your bank</button>
</form>
<script src="https://cdn.plaid.com/link/v2/stable/link-initialize.js" nonce="{nonce}"></script>
<script nonce="{nonce}">
var handler = Plaid.create({{ token: {token}, onSuccess: function () {{ document.getElementById("connect").submit(); }} }});
document.getElementById("open").addEventListener("click", function () {{ handler.open(); }});
</script>
<noscript><p>Connecting a bank needs JavaScript for our partner's window.</p></noscript>"#,
        link = esc(link),
        token = script_string(link_token),
    );
    let mut resp = page(200, "Connect your income", &body, request_id);
    for (name, value) in resp.headers.iter_mut() {
        if name == "content-security-policy" {
            *value = format!(
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}' https://cdn.plaid.com; frame-src https://cdn.plaid.com; connect-src https://*.plaid.com; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
            );
        }
    }
    resp
}

/// A JavaScript string literal that is safe inside `<script>`: JSON-encoded, and with `<`, `>`,
/// `&` and U+2028/U+2029 escaped, so no value can close the script or break the line.
pub fn script_string(raw: &str) -> String {
    let json = serde_json::to_string(raw).unwrap_or_else(|_| "\"\"".to_string());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn provider_down(request_id: &str) -> ApiResponse {
    page(
        503,
        "Please try again shortly",
        "<p>We cannot reach the income provider right now. Nothing was lost: open the link again in a few minutes.</p>",
        request_id,
    )
    .with_header("retry-after", "120")
}

pub(crate) fn not_found(request_id: &str) -> ApiResponse {
    page(
        404,
        "This link is not valid",
        "<p>Check that you opened the whole link from the e-mail, or ask the person who requested the verification to send a new one.</p>",
        request_id,
    )
}

pub(crate) fn see_other(link: &str) -> ApiResponse {
    ApiResponse {
        status: 303,
        headers: vec![
            ("location".into(), link.to_string()),
            ("cache-control".into(), "no-store".into()),
        ],
        body: String::new(),
        binary: None,
    }
}

pub(crate) fn page(status: u16, title: &str, body: &str, request_id: &str) -> ApiResponse {
    ApiResponse::html(
        status,
        format!(
            r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{title} · Income verification</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }}
main {{ max-width: 34rem; margin: 0 auto; padding: 1.5rem 1rem; background: #fff; min-height: 100vh; box-sizing: border-box; }}
h1 {{ font-size: 1.5rem; margin-top: 0; }} h2 {{ font-size: 1.1rem; }}
button {{ font: inherit; line-height: 1.5; min-height: 2.75rem; padding: .75rem 1.25rem; border: 0; border-radius: .4rem; background: #1f5eff; color: #fff; width: 100%; }}
button:focus-visible, input:focus-visible {{ outline: 3px solid #ffbf47; }}
.check, .option {{ display: flex; gap: .6rem; align-items: flex-start; }}
.check input {{ margin-top: .35rem; width: 1.2rem; height: 1.2rem; flex: none; }}
.option input {{ margin-top: .25rem; width: 1.2rem; height: 1.2rem; flex: none; }}
fieldset {{ border: 1px solid #ccd; border-radius: .4rem; margin-bottom: 1rem; }}
.notice {{ background: #fff3cd; padding: .6rem; border-radius: .4rem; }}
.sandbox {{ background: #e8f0ff; padding: .5rem; border-radius: .4rem; font-size: .9rem; }}
.small, footer {{ font-size: .85rem; color: #5a6070; }}
footer {{ word-break: break-all; }}
table.shared {{ width: 100%; border-collapse: collapse; margin-bottom: 1rem; }}
table.shared th, table.shared td {{ text-align: left; padding: .3rem .2rem; border-bottom: 1px solid #e3e5ea; vertical-align: top; }}
table.shared td.amount {{ text-align: right; white-space: nowrap; }}
a.download {{ display: block; text-align: center; padding: .75rem 1.25rem; border: 2px solid #1f5eff; border-radius: .4rem; color: #1f5eff; font-weight: 600; text-decoration: none; margin-bottom: 1rem; }}
textarea {{ font: inherit; width: 100%; box-sizing: border-box; min-height: 6rem; padding: .5rem; border: 1px solid #ccd; border-radius: .4rem; }}
blockquote {{ margin: 0 0 1rem; padding: .5rem .8rem; border-left: 4px solid #ccd; white-space: pre-wrap; }}
</style>
</head>
<body><main>
<h1>{title}</h1>
{body}
<footer><p>Reference: {request_id}</p></footer>
</main></body>
</html>
"#,
            title = esc(title),
            request_id = esc(request_id),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let resp = widget_page(hostile, "/t/x/y", "", "req-1");
        assert_eq!(
            resp.body.matches("</script>").count(),
            2,
            "only the page's own two scripts end"
        );
        assert!(!resp.body.contains("alert(1)</script>"));
        assert!(resp.body.contains(&format!("token: {literal},")));
    }
}
