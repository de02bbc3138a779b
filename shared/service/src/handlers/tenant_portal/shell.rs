//! The document shell of every tenant page, and the answers that are no step of the journey
//! (not found, the provider down, the redirect after a write). Pure functions of what they are
//! given.

use crate::handlers::html::esc;
use crate::http::ApiResponse;

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

/// The page of a link past its window after the close: no name, no figures, nothing of the
/// landlord or the verification, the same for every link.
pub(crate) fn link_ended(request_id: &str) -> ApiResponse {
    page(
        410,
        "This link has ended",
        "<p>This income verification is closed, and its page is no longer available. Nothing else is needed from you.</p>",
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

/// How often the waiting page reloads itself (seconds): soon enough to show the report within
/// a breath of it being built, rare enough to cost nothing.
pub(crate) const WAITING_REFRESH_SECONDS: u32 = 10;

/// The page shown while a provider collects the tenant's data: it reloads itself with a meta
/// refresh (no JavaScript), and asks nothing of the tenant.
pub(crate) fn waiting_page(who: &str, expiry: &str, request_id: &str) -> ApiResponse {
    let body = format!(
        r#"<p class="notice" role="status">Your bank connection worked. We are collecting your income data from your bank: this usually takes a few minutes.</p>
<p>You do not need to do anything or connect again. This page updates itself; you may also close it and open the link later.</p>
<p><strong>{who}</strong> will be told once your income summary is ready.</p>
{expiry}"#
    );
    let mut resp = page(200, "Collecting your income data", &body, request_id);
    resp.body = resp.body.replacen(
        r#"<meta name="robots" content="noindex">"#,
        &format!(
            r#"<meta name="robots" content="noindex">
<meta http-equiv="refresh" content="{WAITING_REFRESH_SECONDS}">"#
        ),
        1,
    );
    resp
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
