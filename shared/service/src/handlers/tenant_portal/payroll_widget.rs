//! The payroll provider's widget (Argyle Link, Web SDK v5) on the tenant page. Link opens on the
//! tenant's click; when an account is connected and Link closes, the page posts `connect`, and
//! the server reads the payroll data. The page's script and Argyle's are the only scripts.

use super::shell::{page, script_string};
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::secrets::csp_nonce;

/// Argyle Link's script (Web SDK v5).
const ARGYLE_LINK_SCRIPT: &str = "https://plugin.argyle.com/argyle.web.v5.js";

/// What opens Link: the user token, Argyle's sandbox or not, and the script (Argyle's when None,
/// else the local stack's stand-in).
pub(crate) struct Widget<'a> {
    pub user_token: &'a str,
    pub sandbox: bool,
    pub script: Option<&'a str>,
}

pub(crate) fn payroll_widget_page(
    widget: &Widget<'_>,
    link: &str,
    notice: &str,
    request_id: &str,
) -> ApiResponse {
    let nonce = csp_nonce();
    let script_url = widget.script.unwrap_or(ARGYLE_LINK_SCRIPT);
    // The script's origin may run it, frame it and be called by it: Argyle's, or the stand-in's.
    let stand_in = widget.script.and_then(super::documents::origin_of);
    let (script_src, frame_src, connect_src) = match &stand_in {
        Some(origin) => (origin.clone(), origin.clone(), origin.clone()),
        None => (
            "https://plugin.argyle.com".to_string(),
            "https://*.argyle.com".to_string(),
            "https://*.argyle.com".to_string(),
        ),
    };
    let body = format!(
        r#"<p>Connect the payroll account of your employer or gig platform. A window from our payroll-data partner opens.</p>
{notice}
<form method="post" action="{link}" id="connect">
<input type="hidden" name="action" value="connect">
<button type="button" id="open">Connect your payroll</button>
</form>
<script src="{script_url}" nonce="{nonce}"></script>
<script nonce="{nonce}">
var connected = false;
var link = Argyle.create({{ userToken: {token}, sandbox: {sandbox},
  onAccountConnected: function () {{ connected = true; }},
  onClose: function () {{ if (connected) {{ document.getElementById("connect").submit(); }} }} }});
document.getElementById("open").addEventListener("click", function () {{ link.open(); }});
</script>
<noscript><p>Connecting a payroll account needs JavaScript for our partner's window.</p></noscript>"#,
        link = esc(link),
        token = script_string(widget.user_token),
        sandbox = widget.sandbox,
        script_url = esc(script_url),
    );
    let mut resp = page(200, "Connect your income", &body, request_id);
    for (name, value) in resp.headers.iter_mut() {
        if name == "content-security-policy" {
            *value = format!(
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}' {script_src}; frame-src {frame_src}; connect-src {connect_src}; worker-src 'self' blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
            );
        }
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_token_stays_inside_its_script_string() {
        let hostile = "x\"</script><script>alert(1)</script>";
        let widget = Widget {
            user_token: hostile,
            sandbox: true,
            script: None,
        };
        let resp = payroll_widget_page(&widget, "/t/x/y", "", "req-1");
        assert_eq!(resp.body.matches("</script>").count(), 2);
        assert!(resp.body.contains("sandbox: true"));
        assert!(
            resp.body
                .contains(&format!("userToken: {},", script_string(hostile)))
        );
        let csp = resp
            .headers
            .iter()
            .find(|(n, _)| n == "content-security-policy")
            .map(|(_, v)| v.clone())
            .unwrap();
        assert!(csp.contains("https://plugin.argyle.com"), "{csp}");
    }

    #[test]
    fn the_local_stand_in_script_is_the_only_origin_allowed() {
        let widget = Widget {
            user_token: "emu-token",
            sandbox: true,
            script: Some("http://127.0.0.1:4100/argyle.web.v5.js"),
        };
        let resp = payroll_widget_page(&widget, "/t/x/y", "", "req-1");
        assert!(
            (resp.body).contains(r#"<script src="http://127.0.0.1:4100/argyle.web.v5.js""#),
            "{}",
            resp.body
        );
        let csp = (resp.headers.iter())
            .find(|(n, _)| n == "content-security-policy")
            .map(|(_, v)| v.clone())
            .unwrap();
        assert!(csp.contains("connect-src http://127.0.0.1:4100;"), "{csp}");
        assert!(!csp.contains("argyle.com"), "{csp}");
    }
}
