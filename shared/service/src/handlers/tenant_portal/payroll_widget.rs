//! The payroll provider's widget (Argyle Link, Web SDK v5) on the tenant page. Link opens on the
//! tenant's click; when an account is connected and Link closes, the page posts `connect`, and
//! the server reads the payroll data. The page's script and Argyle's are the only scripts.

use super::shell::{page, script_string};
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::secrets::csp_nonce;

pub(crate) fn payroll_widget_page(
    user_token: &str,
    sandbox: bool,
    link: &str,
    notice: &str,
    request_id: &str,
) -> ApiResponse {
    let nonce = csp_nonce();
    let body = format!(
        r#"<p>Connect the payroll account of your employer or gig platform. A window from our payroll-data partner opens.</p>
{notice}
<form method="post" action="{link}" id="connect">
<input type="hidden" name="action" value="connect">
<button type="button" id="open">Connect your payroll</button>
</form>
<script src="https://plugin.argyle.com/argyle.web.v5.js" nonce="{nonce}"></script>
<script nonce="{nonce}">
var connected = false;
var link = Argyle.create({{ userToken: {token}, sandbox: {sandbox},
  onAccountConnected: function () {{ connected = true; }},
  onClose: function () {{ if (connected) {{ document.getElementById("connect").submit(); }} }} }});
document.getElementById("open").addEventListener("click", function () {{ link.open(); }});
</script>
<noscript><p>Connecting a payroll account needs JavaScript for our partner's window.</p></noscript>"#,
        link = esc(link),
        token = script_string(user_token),
    );
    let mut resp = page(200, "Connect your income", &body, request_id);
    for (name, value) in resp.headers.iter_mut() {
        if name == "content-security-policy" {
            *value = format!(
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}' https://plugin.argyle.com; frame-src https://*.argyle.com; connect-src https://*.argyle.com; worker-src 'self' blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
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
        let resp = payroll_widget_page(hostile, true, "/t/x/y", "", "req-1");
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
}
