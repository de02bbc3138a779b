//! "Upload documents" on the tenant page, beside connecting a bank: the signed form that sends
//! one file straight to S3 (no JavaScript: S3 redirects back to the page), the list of uploads
//! with their state, the figures a photo or scan needs typed, and the button that finishes with
//! the documents. The analysis runs elsewhere (`analyze_document`); this page only reads it.

use std::collections::HashMap;
use std::fmt::Write as _;

use chrono::{DateTime, NaiveDate, Utc};

use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::Verification;
use domain::documents::finish::listed;
use domain::documents::record::{
    DocumentRecord, DocumentState, StatedPay, object_key, verdict_words,
};
use domain::documents::samples::Sample;
use domain::income::PayFrequency;
use ports::UploadSigner;
use ports::upload_form::UploadForm;

/// What the page needs to offer uploads: the signer, and the page's own origin (S3 redirects
/// the browser there after an upload).
pub struct DocumentUploads<U> {
    pub signer: U,
    /// `PUBLIC_BASE_URL`; None: the request's own host, over https.
    pub base_url: Option<String>,
}

/// A fresh, signed form for one more upload (the journey says whether one may be offered); None
/// when the credentials could not be had: the page then offers the bank only, and says why.
pub async fn upload_form<U: UploadSigner>(
    uploads: &DocumentUploads<U>,
    v: &Verification,
    page_url: &str,
    now: DateTime<Utc>,
) -> Option<UploadForm> {
    let document_id = uuid::Uuid::new_v4().simple().to_string();
    let key = object_key(v.verification_id, &document_id);
    match uploads.signer.upload_form(&key, page_url, now).await {
        Ok(form) => Some(form),
        Err(e) => {
            tracing::warn!(error = %e, "upload form could not be signed");
            None
        }
    }
}

fn state_words(d: &DocumentRecord) -> String {
    match d.state {
        DocumentState::Analysing => "being checked; refresh this page in a moment".into(),
        DocumentState::Refused => format!(
            "not accepted: {}. You can upload another file.",
            d.refusal.as_deref().unwrap_or("the file can't be read")
        ),
        DocumentState::Analysed => match &d.stated {
            Some(_) => "could not be checked: you typed its figures".into(),
            None => d
                .verdict()
                .map(verdict_words)
                .unwrap_or("checked")
                .to_string(),
        },
    }
}

/// What the documents section shows beside the documents, as the journey decided it.
pub struct Shown<'a> {
    /// The object key S3 named when it sent the browser back after an upload.
    pub just_uploaded: Option<&'a str>,
    pub may_upload: bool,
    /// The sandbox's sample documents.
    pub samples: bool,
    /// The documents whose figures the tenant is asked to type.
    pub typed_figures: &'a [String],
}

/// The documents section: what arrived, the forms, and the finishing button.
pub fn section(v: &Verification, form: Option<&UploadForm>, link: &str, shown: &Shown) -> String {
    let just_uploaded = shown.just_uploaded;
    let mut out = String::from(
        r#"<h2 id="documents">Or upload documents</h2>
<p>No bank connection? Upload 1 to 6 recent pay stubs, bank statements or benefit award letters instead: PDF, or a photo (JPEG or PNG), each at most 10 MB, one at a time.</p>"#,
    );
    let documents = listed(v);
    if let Some(key) = just_uploaded
        && !documents.iter().any(|(id, _)| key.ends_with(id.as_str()))
    {
        out.push_str(r#"<p class="notice" role="status">Your file arrived. We are checking it: refresh this page in a moment.</p>"#);
    }
    if !documents.is_empty() {
        out.push_str(r#"<table class="shared"><tr><th>Document</th><th>Status</th></tr>"#);
        for (_, d) in &documents {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                esc(&d.name()),
                esc(&state_words(d))
            );
        }
        out.push_str("</table>");
    }
    for (id, d) in &documents {
        if d.state == DocumentState::Analysed && shown.typed_figures.contains(id) {
            let _ = write!(
                out,
                r#"<form method="post" action="{link}">
<fieldset><legend>{name} is a photo or scan: please type what it shows</legend>
<input type="hidden" name="action" value="state_pay"><input type="hidden" name="document" value="{id}">
<p><label for="pd-{id}">Pay date</label><br><input type="date" id="pd-{id}" name="pay_date" required></p>
<p><label for="g-{id}">Gross pay ($)</label><br><input type="text" inputmode="decimal" id="g-{id}" name="gross" required></p>
<p><label for="n-{id}">Net pay ($)</label><br><input type="text" inputmode="decimal" id="n-{id}" name="net" required></p>
<p><label for="f-{id}">Paid</label><br><select id="f-{id}" name="frequency" required><option value="weekly">every week</option><option value="biweekly" selected>every two weeks</option><option value="semi_monthly">twice a month</option><option value="monthly">every month</option></select></p>
<p class="small">The report marks these figures as typed by you.</p>
<button type="submit">Save these figures</button></fieldset>
</form>"#,
                link = esc(link),
                name = esc(&d.name()),
                id = esc(id),
            );
        }
    }
    match form {
        Some(form) => {
            let _ = write!(
                out,
                r#"<form method="post" action="{}" enctype="multipart/form-data">"#,
                esc(&form.url)
            );
            for (name, value) in &form.fields {
                let _ = write!(
                    out,
                    r#"<input type="hidden" name="{}" value="{}">"#,
                    esc(name),
                    esc(value)
                );
            }
            out.push_str(
                r#"<p><label for="file">Choose a file</label><br><input type="file" id="file" name="file" accept="application/pdf,image/jpeg,image/png" required></p>
<button type="submit">Upload this file</button></form>"#,
            );
        }
        None if !shown.may_upload => out.push_str(
            r#"<p class="small">You have uploaded as many files as one request takes.</p>"#,
        ),
        None => {}
    }
    if shown.samples && shown.may_upload {
        samples_list(&mut out, link);
    }
    if documents.iter().any(|(_, d)| d.counts()) {
        let _ = write!(
            out,
            r#"<form method="post" action="{}"><input type="hidden" name="action" value="finish_documents">
<p class="small">When every document is checked, share the summary with the requester.</p>
<button type="submit">Finish and share these documents</button></form>"#,
            esc(link)
        );
    }
    out
}

/// The sandbox's sample documents, to download and upload again: each shows a verdict.
fn samples_list(out: &mut String, link: &str) {
    out.push_str(
        r#"<details><summary>Sandbox: sample documents to try</summary>
<p class="small">Download one, then upload it above: each shows what the checks find. They carry your name and made-up figures.</p><ul>"#,
    );
    for sample in Sample::ALL {
        let _ = write!(
            out,
            r#"<li><a href="{}/samples/{}.pdf" download>{}</a></li>"#,
            esc(link),
            sample.slug(),
            esc(sample.title())
        );
    }
    out.push_str("</ul></details>");
}

/// The page with the documents section added before its footer, and the upload form's origin
/// allowed as a form action.
pub fn with_section(
    mut resp: ApiResponse,
    section: &str,
    form: Option<&UploadForm>,
) -> ApiResponse {
    if let Some(at) = resp.body.find("<footer>") {
        resp.body.insert_str(at, section);
    }
    if let Some(origin) = form.and_then(|f| origin_of(&f.url)) {
        for (name, value) in resp.headers.iter_mut() {
            if name == "content-security-policy" {
                *value = value.replace(
                    "form-action 'self'",
                    &format!("form-action 'self' {origin}"),
                );
            }
        }
    }
    resp
}

/// `scheme://host[:port]` of a URL (for a page's content security policy).
pub(super) fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    (!host.is_empty()).then(|| format!("{scheme}://{host}"))
}

/// Why a typed figure was not taken.
pub const STATED_PAY_NOTICE: &str = "Please type the pay date, the gross and net pay in dollars \
(net no more than gross), and how often you are paid.";

/// Whether a typed amount reads as dollars (`cents` takes it).
pub(super) fn is_amount(raw: &str) -> bool {
    cents(raw).is_some()
}

fn cents(raw: &str) -> Option<i64> {
    let cleaned: String = raw
        .trim()
        .trim_start_matches('$')
        .chars()
        .filter(|c| *c != ',')
        .collect();
    let (whole, fraction) = cleaned.split_once('.').unwrap_or((&cleaned, ""));
    if whole.is_empty()
        || whole.len() > 7
        || fraction.len() > 2
        || !whole.chars().all(|c| c.is_ascii_digit())
        || !fraction.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let fraction = format!("{fraction:0<2}");
    Some(whole.parse::<i64>().ok()? * 100 + fraction.parse::<i64>().ok()?)
}

/// The typed figures of the form, checked: a pay date within the last year (not in the future),
/// gross above zero, net above zero and not above gross.
pub fn parse_stated_pay(form: &HashMap<String, String>, today: NaiveDate) -> Option<StatedPay> {
    let pay_date = NaiveDate::parse_from_str(form.get("pay_date")?.trim(), "%Y-%m-%d").ok()?;
    let gross_cents = cents(form.get("gross")?)?;
    let net_cents = cents(form.get("net")?)?;
    // The form's frequencies (`form::FREQUENCIES`).
    let pay_frequency = match form.get("frequency")?.as_str() {
        "weekly" => PayFrequency::Weekly,
        "biweekly" => PayFrequency::Biweekly,
        "semi_monthly" => PayFrequency::SemiMonthly,
        "monthly" => PayFrequency::Monthly,
        _ => return None,
    };
    let recent = pay_date <= today && (today - pay_date).num_days() <= 366;
    (recent && gross_cents > 0 && net_cents > 0 && net_cents <= gross_cents).then_some(StatedPay {
        pay_date,
        gross_cents,
        net_cents,
        pay_frequency,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_figures_are_dollars_and_a_recent_date() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        let form = |d: &str, g: &str, n: &str| {
            HashMap::from([
                ("pay_date".to_string(), d.to_string()),
                ("gross".to_string(), g.to_string()),
                ("net".to_string(), n.to_string()),
                ("frequency".to_string(), "biweekly".to_string()),
            ])
        };
        assert_eq!(
            parse_stated_pay(&form("2026-11-14", "$2,500.00", "1900.5"), today),
            Some(StatedPay {
                pay_date: NaiveDate::from_ymd_opt(2026, 11, 14).unwrap(),
                gross_cents: 250_000,
                net_cents: 190_050,
                pay_frequency: PayFrequency::Biweekly,
            })
        );
        for (d, g, n) in [
            ("2026-12-01", "100", "90"),
            ("2024-11-01", "100", "90"),
            ("2026-11-14", "100", "190"),
            ("2026-11-14", "1.005", "1"),
            ("14/11/2026", "100", "90"),
            ("2026-11-14", "-5", "1"),
        ] {
            assert_eq!(parse_stated_pay(&form(d, g, n), today), None, "{d} {g} {n}");
        }
    }

    #[test]
    fn the_form_s_origin_is_allowed_as_a_form_action() {
        assert_eq!(
            origin_of("https://b.s3.us-east-1.amazonaws.com"),
            Some("https://b.s3.us-east-1.amazonaws.com".into())
        );
        assert_eq!(
            origin_of("http://127.0.0.1:4566/bucket"),
            Some("http://127.0.0.1:4566".into())
        );
    }
}
