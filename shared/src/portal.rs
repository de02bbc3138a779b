//! The tenant page behind the secure link: `GET/POST /t/{verification_id}/{token}`.
//!
//! Server-rendered HTML that works without JavaScript (only a provider's own widget needs it).
//! Opening the link moves a pending verification to in_progress; the tenant consents (time and
//! text version recorded), connects an income source, and the completion is one conditional write
//! (status, report, `completed_at`, counters), so a race with a cancel or an expiry has one winner.
//!
//! The path carries the link token, so it is never logged; log lines name the verification id.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use tracing::Instrument;
use uuid::Uuid;

use crate::domain::{Mode, Status, Transition, Verification, format_ts};
use crate::http::{ApiRequest, ApiResponse, parse_query};
use crate::ports::{
    Clock, ConnectStep, IncomeProvider, ProviderError, Store, StoreError, TransitionOutcome,
};
use crate::report::build_report;
use crate::sandbox::{SandboxProvider, scenario_from_email};
use crate::secrets::sha256_hex;

/// Version of the consent text below; recorded with the consent.
pub const CONSENT_VERSION: &str = "2026-11-v1";
const CONSENT_TEXT: &str = "I agree that the income verification service may read the income \
deposits of the account I connect (employer or payer names, amounts and pay frequency) and share \
an income summary with the requester named above, for this rental application only. Account \
numbers, balances and individual purchases are not shared.";

/// What the tenant page needs.
pub struct PortalDeps<S, C, P> {
    pub store: S,
    pub clock: C,
    /// Income provider of live verifications (test verifications always use the sandbox).
    pub live_provider: P,
    pub sandbox: SandboxProvider,
}

#[derive(Debug)]
enum PageError {
    Store(StoreError),
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        PageError::Store(e)
    }
}

/// The income provider of live verifications, chosen by `INCOME_PROVIDER`: `plaid` (bank income
/// through Plaid) in production, `sandbox` where no provider is contracted (the local stack).
pub enum LiveProvider {
    Plaid(crate::plaid::PlaidIncomeProvider),
    Sandbox(SandboxProvider),
}

impl IncomeProvider for LiveProvider {
    async fn begin(&self, v: &Verification) -> Result<ConnectStep, ProviderError> {
        match self {
            LiveProvider::Plaid(p) => p.begin(v).await,
            LiveProvider::Sandbox(p) => p.begin(v).await,
        }
    }

    async fn fetch_income(
        &self,
        v: &Verification,
        connection: &str,
    ) -> Result<crate::report::ProviderIncome, ProviderError> {
        match self {
            LiveProvider::Plaid(p) => p.fetch_income(v, connection).await,
            LiveProvider::Sandbox(p) => p.fetch_income(v, connection).await,
        }
    }
}

/// Entry point of the `tenant-portal` function.
pub async fn tenant_portal<S: Store, C: Clock, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    req: ApiRequest,
) -> ApiResponse {
    let span = tracing::info_span!("tenant_page", request_id = %req.request_id, method = %req.method, verification_id = tracing::field::Empty);
    async {
        let response = match handle(deps, &req).await {
            Ok(resp) => resp,
            Err(PageError::Store(e)) => {
                tracing::error!(error = %e, "store call failed");
                page(
                    500,
                    "Something went wrong",
                    "<p>We could not load this page. Please try again in a few minutes.</p>",
                    &req.request_id,
                )
            }
        };
        tracing::info!(status = response.status, "tenant page served");
        response.with_header("x-request-id", req.request_id.clone())
    }
    .instrument(span)
    .await
}

fn parse_link(path: &str) -> Option<(Uuid, &str)> {
    let rest = path.strip_prefix("/t/")?;
    let (id, token) = rest.split_once('/')?;
    let token = token.trim_end_matches('/');
    if token.is_empty() || token.len() > 128 || token.contains('/') {
        return None;
    }
    Some((Uuid::parse_str(id).ok()?, token))
}

async fn handle<S: Store, C: Clock, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    req: &ApiRequest,
) -> Result<ApiResponse, PageError> {
    let Some((id, token)) = parse_link(&req.path) else {
        return Ok(not_found(&req.request_id));
    };
    let token_hash = sha256_hex(token.as_bytes());
    let Some(mut v) = deps.store.get_verification(id).await? else {
        return Ok(not_found(&req.request_id));
    };
    // The id alone opens nothing: the token's hash must be bound to this verification.
    if !v.token_hashes.iter().any(|h| h == &token_hash) {
        return Ok(not_found(&req.request_id));
    }
    tracing::Span::current().record("verification_id", tracing::field::display(id));
    let now = deps.clock.now();
    let link = req.path.clone();
    match req.method {
        http::Method::GET | http::Method::HEAD => {
            // The requester's name and the move to in_progress are independent: one round trip.
            let start = async {
                if v.effective_status(now) != Status::Pending {
                    return Ok(Some(v.clone()));
                }
                Ok::<_, StoreError>(
                    match deps.store.transition(&v, &Transition::Start, now).await? {
                        TransitionOutcome::Applied(next) => {
                            tracing::info!("tenant opened the link");
                            Some(next)
                        }
                        TransitionOutcome::Conflict(fresh) => fresh,
                    },
                )
            };
            let (requester, started) = futures::join!(requester_name(deps, &v), start);
            let Some(current) = started? else {
                return Ok(not_found(&req.request_id));
            };
            v = current;
            render(deps, &v, &requester?, &link, now, None, &req.request_id).await
        }
        http::Method::POST => {
            let form = parse_query(&String::from_utf8_lossy(&req.body));
            match form.get("action").map(String::as_str) {
                Some("consent") => consent(deps, v, &form, &link, now, &req.request_id).await,
                Some("connect") => connect(deps, v, &form, &link, now, &req.request_id).await,
                _ => Ok(page(
                    400,
                    "Unknown action",
                    "<p>Please go back and use the buttons on the page.</p>",
                    &req.request_id,
                )),
            }
        }
        _ => Ok(page(
            405,
            "Not allowed",
            "<p>This page only answers GET and POST.</p>",
            &req.request_id,
        )
        .with_header("allow", "GET, POST")),
    }
}

/// The current page again with a notice, as a 400 (the tenant's form input was not usable).
async fn refuse<S: Store, C: Clock, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    v: &Verification,
    link: &str,
    now: DateTime<Utc>,
    notice: &str,
    request_id: &str,
) -> Result<ApiResponse, PageError> {
    let requester = requester_name(deps, v).await?;
    let page = render(deps, v, &requester, link, now, Some(notice), request_id).await?;
    Ok(ApiResponse {
        status: 400,
        ..page
    })
}

/// Who asks, as the page names them (read only when a page is rendered).
async fn requester_name<S: Store, C, P>(
    deps: &PortalDeps<S, C, P>,
    v: &Verification,
) -> Result<String, StoreError> {
    Ok(deps
        .store
        .get_account(&v.account_id)
        .await?
        .map_or_else(|| "the requester".to_string(), |a| a.name))
}

fn see_other(link: &str) -> ApiResponse {
    ApiResponse {
        status: 303,
        headers: vec![
            ("location".into(), link.to_string()),
            ("cache-control".into(), "no-store".into()),
        ],
        body: String::new(),
    }
}

async fn begin_step<S, C, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    v: &Verification,
) -> Result<ConnectStep, ProviderError> {
    match v.mode {
        Mode::Test => deps.sandbox.begin(v).await,
        Mode::Live => deps.live_provider.begin(v).await,
    }
}

async fn consent<S: Store, C: Clock, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    v: Verification,
    form: &std::collections::HashMap<String, String>,
    link: &str,
    now: DateTime<Utc>,
    request_id: &str,
) -> Result<ApiResponse, PageError> {
    if v.effective_status(now) != Status::InProgress || v.consented_at.is_some() {
        return Ok(see_other(link));
    }
    if form.get("agree").map(String::as_str) != Some("yes") {
        return refuse(
            deps,
            &v,
            link,
            now,
            "Please tick the box to agree before continuing.",
            request_id,
        )
        .await;
    }
    let provider = match begin_step(deps, &v).await {
        Ok(ConnectStep::Widget {
            link_token,
            provider_user,
        }) => Some((provider_user, link_token)),
        Ok(ConnectStep::ChooseScenario { .. }) => None,
        Err(e) => {
            tracing::warn!(error = %e, "income provider could not start");
            return Ok(provider_down(request_id));
        }
    };
    let provider = provider.as_ref().map(|(u, l)| (u.as_str(), l.as_str()));
    deps.store
        .record_consent(v.verification_id, CONSENT_VERSION, now, provider)
        .await?;
    tracing::info!(consent_version = CONSENT_VERSION, "tenant consented");
    Ok(see_other(link))
}

async fn connect<S: Store, C: Clock, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    v: Verification,
    form: &std::collections::HashMap<String, String>,
    link: &str,
    now: DateTime<Utc>,
    request_id: &str,
) -> Result<ApiResponse, PageError> {
    if v.effective_status(now) != Status::InProgress || v.consented_at.is_none() {
        return Ok(see_other(link));
    }
    let income = match v.mode {
        Mode::Test => {
            let Some(scenario) = form
                .get("scenario")
                .filter(|s| crate::sandbox::SCENARIOS.iter().any(|(k, _)| k == s))
            else {
                return refuse(
                    deps,
                    &v,
                    link,
                    now,
                    "Please choose one of the options.",
                    request_id,
                )
                .await;
            };
            deps.sandbox.fetch_income(&v, scenario).await
        }
        Mode::Live => match (&v.provider_user, form.get("scenario")) {
            (Some(user), _) => deps.live_provider.fetch_income(&v, user).await,
            // A live provider without a widget (the local stack's sandbox) takes the scenario.
            (None, Some(scenario)) => deps.live_provider.fetch_income(&v, scenario).await,
            (None, None) => {
                return refuse(
                    deps,
                    &v,
                    link,
                    now,
                    "Please connect an account first.",
                    request_id,
                )
                .await;
            }
        },
    };
    let transition = match income {
        Ok(income) => Transition::Complete {
            report: build_report(&income, v.monthly_rent),
        },
        Err(ProviderError::Rejected(reason)) => {
            tracing::info!(reason = %reason, "income provider could not verify income");
            Transition::Fail {
                reason: "income_unverifiable".into(),
            }
        }
        Err(ProviderError::Unavailable(reason)) => {
            tracing::warn!(reason = %reason, "income provider unavailable");
            return Ok(provider_down(request_id));
        }
    };
    // One conditional write: if a cancel or an expiry got there first, it wins and the page shows it.
    match deps.store.transition(&v, &transition, now).await? {
        TransitionOutcome::Applied(done) => {
            tracing::info!(status = done.status.as_str(), "verification finished")
        }
        TransitionOutcome::Conflict(_) => {
            tracing::info!("verification changed meanwhile; completion not applied")
        }
    }
    Ok(see_other(link))
}

fn provider_down(request_id: &str) -> ApiResponse {
    page(
        503,
        "Please try again shortly",
        "<p>We cannot reach the income provider right now. Nothing was lost: open the link again in a few minutes.</p>",
        request_id,
    )
    .with_header("retry-after", "120")
}

async fn render<S: Store, C: Clock, P: IncomeProvider>(
    deps: &PortalDeps<S, C, P>,
    v: &Verification,
    requester: &str,
    link: &str,
    now: DateTime<Utc>,
    notice: Option<&str>,
    request_id: &str,
) -> Result<ApiResponse, PageError> {
    let who = esc(requester);
    let property = v
        .property_address
        .as_deref()
        .map(|a| format!(" for <strong>{}</strong>", esc(a)))
        .unwrap_or_default();
    let notice = notice
        .map(|n| format!(r#"<p class="notice" role="alert">{}</p>"#, esc(n)))
        .unwrap_or_default();
    let sandbox = if v.mode == Mode::Test {
        r#"<p class="sandbox">Sandbox request: no real bank data is used.</p>"#
    } else {
        ""
    };
    let resp = match v.effective_status(now) {
        Status::Completed => page(
            200,
            "Thank you",
            &format!(
                "<p>Your income summary was shared with <strong>{who}</strong>{property}. You can close this page.</p>"
            ),
            request_id,
        ),
        Status::Failed => page(
            200,
            "We could not verify your income",
            &format!(
                "<p>The connected account did not show income we could verify. <strong>{who}</strong> has been told; \
                 they may ask you for another form of proof.</p>"
            ),
            request_id,
        ),
        Status::Expired if v.cancelled_at.is_some() => page(
            410,
            "This request was cancelled",
            &format!(
                "<p><strong>{who}</strong> cancelled this income verification. Nothing else is needed from you.</p>"
            ),
            request_id,
        ),
        Status::Expired => page(
            410,
            "This link has expired",
            &format!(
                "<p>Links are valid for 7 days. Ask <strong>{who}</strong> to send a new request if you still need to verify your income.</p>"
            ),
            request_id,
        ),
        Status::Pending | Status::InProgress if v.consented_at.is_none() => page(
            200,
            "Verify your income",
            &format!(
                r#"{sandbox}<p><strong>{who}</strong> asks you to verify your income{property}.</p>
<h2>What will be shared</h2>
<ul><li>Who pays you (employer or payer names)</li><li>Monthly income per source and how often you are paid</li><li>Whether your income is at least three times the rent</li></ul>
<p>Not shared: account numbers, balances, individual purchases.</p>
<p class="small">This link expires on {expires}.</p>
{notice}
<form method="post" action="{link}">
<input type="hidden" name="action" value="consent">
<p class="check"><input type="checkbox" id="agree" name="agree" value="yes" required>
<label for="agree">{consent}</label></p>
<button type="submit">Agree and continue</button>
</form>"#,
                expires = esc(&format_ts(v.expires_at)[..10]),
                link = esc(link),
                consent = esc(CONSENT_TEXT),
            ),
            request_id,
        ),
        Status::Pending | Status::InProgress => {
            let step = match v.mode {
                Mode::Live if v.provider_user.is_some() => Ok(ConnectStep::Widget {
                    link_token: v.provider_link_token.clone().unwrap_or_default(),
                    provider_user: String::new(),
                }),
                _ => begin_step(deps, v).await,
            };
            match step {
                Ok(ConnectStep::ChooseScenario { scenarios }) => {
                    let preferred = scenario_from_email(&v.tenant_email).unwrap_or("good");
                    let mut options = String::new();
                    for (key, label) in &scenarios {
                        let checked = if key == preferred { " checked" } else { "" };
                        let _ = write!(
                            options,
                            r#"<p class="option"><input type="radio" id="s-{k}" name="scenario" value="{k}"{checked}> <label for="s-{k}">{l}</label></p>"#,
                            k = esc(key),
                            l = esc(label)
                        );
                    }
                    page(
                        200,
                        "Connect your income",
                        &format!(
                            r#"{sandbox}<p>Choose the bank account your income is paid into.</p>
{notice}
<form method="post" action="{link}">
<input type="hidden" name="action" value="connect">
<fieldset><legend>Sandbox bank</legend>{options}</fieldset>
<button type="submit">Connect and share</button>
</form>"#,
                            link = esc(link)
                        ),
                        request_id,
                    )
                }
                Ok(ConnectStep::Widget { link_token, .. }) => {
                    widget_page(&link_token, link, &notice, request_id)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "income provider could not start");
                    provider_down(request_id)
                }
            }
        }
    };
    Ok(resp)
}

/// The provider's widget (Plaid Link) needs its script; everything else on the page works without.
fn widget_page(link_token: &str, link: &str, notice: &str, request_id: &str) -> ApiResponse {
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
var handler = Plaid.create({{ token: "{token}", onSuccess: function () {{ document.getElementById("connect").submit(); }} }});
document.getElementById("open").addEventListener("click", function () {{ handler.open(); }});
</script>
<noscript><p>Connecting a bank needs JavaScript for our partner's window.</p></noscript>"#,
        link = esc(link),
        token = esc(link_token),
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

fn not_found(request_id: &str) -> ApiResponse {
    page(
        404,
        "This link is not valid",
        "<p>Check that you opened the whole link from the e-mail, or ask the person who requested the verification to send a new one.</p>",
        request_id,
    )
}

/// HTML escaping for text and attribute values.
pub fn esc(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn page(status: u16, title: &str, body: &str, request_id: &str) -> ApiResponse {
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
    fn links_parse_strictly() {
        let id = Uuid::new_v4();
        assert_eq!(parse_link(&format!("/t/{id}/abc")), Some((id, "abc")));
        assert_eq!(parse_link(&format!("/t/{id}/")), None);
        assert_eq!(parse_link(&format!("/t/{id}/a/b")), None);
        assert_eq!(parse_link("/t/not-a-uuid/abc"), None);
        assert_eq!(parse_link("/x/abc"), None);
    }

    #[test]
    fn escaping_covers_html_and_attributes() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
