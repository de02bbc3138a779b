//! The tenant's own copy once the verification is completed: the page shows what was shared (the
//! same figures as the landlord's report), offers the same PDF at `{link}/report.pdf` (a GET,
//! authenticated by the link token like the page), and takes one short note to the landlord.
//!
//! The note is stored once: one conditional write (completed, and no note yet), so of two tabs
//! posting at the same time exactly one note is kept, and a landlord who has read or downloaded
//! the report never sees it change afterwards. It is at most 500 characters, trimmed, with line
//! breaks kept and other control characters refused.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::income::PayFrequency;
use domain::report_pdf::sections::money;
use domain::report_pdf::{report_filename, report_pdf};
use domain::{Status, TENANT_NOTE_MAX_CHARS, Verification};

/// The PDF of a completed verification's report, or None when there is none (not completed).
pub(crate) fn pdf_download(
    v: &Verification,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<ApiResponse> {
    (v.effective_status(now) == Status::Completed && v.income_report.is_some())
        .then(|| ApiResponse::pdf(report_pdf(v, now), &report_filename(v)))
}

/// Why a note cannot be stored, as the tenant reads it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NoteProblem {
    Empty,
    TooLong,
    ControlCharacters,
}

impl NoteProblem {
    pub(crate) fn message(&self) -> String {
        match self {
            NoteProblem::Empty => "Please write your note before sending it.".into(),
            NoteProblem::TooLong => {
                format!(
                    "Your note is too long: please keep it to {TENANT_NOTE_MAX_CHARS} characters."
                )
            }
            NoteProblem::ControlCharacters => {
                "Your note contains characters we cannot show; please type it again.".into()
            }
        }
    }
}

/// Whether a sent note is within what the form can send: its 500 characters with each line
/// break sent as two (`\r\n`). A longer one is refused whatever the page's state.
pub(crate) fn note_fits_form(sent: &str) -> bool {
    sent.chars().count() <= 2 * TENANT_NOTE_MAX_CHARS
}

/// The note of a form as it is stored: trimmed, `\r\n` as `\n`, at most 500 characters.
pub(crate) fn parse_note(form: &HashMap<String, String>) -> Result<String, NoteProblem> {
    let note = form
        .get("note")
        .map(|n| n.replace("\r\n", "\n").trim().to_string())
        .unwrap_or_default();
    if note.is_empty() {
        return Err(NoteProblem::Empty);
    }
    if note.chars().count() > TENANT_NOTE_MAX_CHARS {
        return Err(NoteProblem::TooLong);
    }
    if note
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(NoteProblem::ControlCharacters);
    }
    Ok(note)
}

/// The completed page's body: what was shared, the PDF, and the note (or its form).
pub(crate) fn completed_body(
    v: &Verification,
    who: &str,
    property: &str,
    link: &str,
    notice: &str,
) -> String {
    let mut out =
        format!("<p>Your income summary was shared with <strong>{who}</strong>{property}.</p>\n");
    if let Some(report) = &v.income_report {
        out.push_str("<h2>What was shared</h2>\n<table class=\"shared\"><tbody>\n");
        for source in &report.income_sources {
            let _ = writeln!(
                out,
                "<tr><td>{} <span class=\"small\">({}, {})<br>{}<br>Seen by {}</span></td><td class=\"amount\">{} a month</td></tr>",
                esc(&source.name),
                esc(&source.income_category),
                source
                    .pay_frequency
                    .map_or("irregular", PayFrequency::words),
                esc(&source.basis),
                esc(&domain::report::sightings_words(&source.sightings)),
                money(source.monthly_income),
            );
        }
        let _ = writeln!(
            out,
            "<tr><th>Total monthly income</th><td class=\"amount\"><strong>{}</strong></td></tr>",
            money(report.total_monthly_income)
        );
        if let Some(rent) = v.monthly_rent {
            let _ = writeln!(
                out,
                "<tr><td>Monthly rent</td><td class=\"amount\">{}</td></tr>",
                money(rent)
            );
        }
        if let Some(ratio) = report.rent_to_income_ratio {
            let _ = writeln!(
                out,
                "<tr><td>Rent-to-income ratio</td><td class=\"amount\">{ratio:.4}</td></tr>"
            );
        }
        if let Some(passes) = report.passes_3x_rule {
            let _ = writeln!(
                out,
                "<tr><td>Income at least 3 times the rent</td><td class=\"amount\">{}</td></tr>",
                if passes { "Yes" } else { "No" }
            );
        }
        out.push_str("</tbody></table>\n");
        let _ = writeln!(
            out,
            "<p class=\"small\">Figures as of {}, the end of the data your provider shared.</p>",
            report.as_of
        );
        if report.methods_used.len() > 1 {
            let used: Vec<&str> = report.methods_used.iter().map(|m| m.words()).collect();
            let _ = writeln!(
                out,
                "<p class=\"small\" id=\"methods\">Verified by {}. {}</p>",
                esc(&used.join(" and ")),
                esc(domain::report::MORE_THAN_ONE_METHOD)
            );
        }
        if let Some(documents) = &report.documents {
            out.push_str("<h2>Your documents</h2>\n<ul class=\"documents\">\n");
            for d in documents {
                let _ = writeln!(out, "<li>{}</li>", esc(&d.summary));
            }
            out.push_str("</ul>\n");
        }
        if !report.excluded_sources.is_empty() {
            out.push_str("<h2>Money seen but not counted</h2>\n<ul class=\"excluded\">\n");
            for source in &report.excluded_sources {
                let _ = writeln!(
                    out,
                    "<li><strong>{}</strong> ({}): {}</li>",
                    esc(&source.name),
                    money(source.observed_amount),
                    esc(&source.explanation),
                );
            }
            out.push_str("</ul>\n");
        }
    }
    let _ = writeln!(
        out,
        "<a class=\"download\" href=\"{}/report.pdf\" download>Download the report (PDF)</a>",
        esc(link)
    );
    match &v.tenant_note {
        Some(note) => {
            let _ = writeln!(
                out,
                "<h2>Your note to {who}</h2>\n<blockquote id=\"tenant-note\">{}</blockquote>",
                esc(note)
            );
        }
        None => {
            let _ = write!(
                out,
                r#"<h2>Add a note for {who}</h2>
<p class="small">Optional, once, up to {TENANT_NOTE_MAX_CHARS} characters: for example a job starting soon, or a voucher. They see it with your report.</p>
{notice}
<form method="post" action="{link}">
<input type="hidden" name="action" value="note">
<p><label for="note">Your note</label><br><textarea id="note" name="note" maxlength="{TENANT_NOTE_MAX_CHARS}" required></textarea></p>
<button type="submit">Send note</button>
</form>
"#,
                link = esc(link),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(note: &str) -> HashMap<String, String> {
        HashMap::from([("note".to_string(), note.to_string())])
    }

    #[test]
    fn a_note_is_trimmed_and_bounded() {
        assert_eq!(
            parse_note(&form("  Job starts 1 May\r\nThanks ")),
            Ok("Job starts 1 May\nThanks".into())
        );
        assert_eq!(parse_note(&form("   ")), Err(NoteProblem::Empty));
        assert_eq!(parse_note(&HashMap::new()), Err(NoteProblem::Empty));
        assert_eq!(
            parse_note(&form(&"é".repeat(500))).map(|n| n.chars().count()),
            Ok(500)
        );
        assert_eq!(
            parse_note(&form(&"é".repeat(501))),
            Err(NoteProblem::TooLong)
        );
        assert_eq!(
            parse_note(&form("bell\u{7}")),
            Err(NoteProblem::ControlCharacters)
        );
    }

    #[test]
    fn a_full_note_of_line_breaks_as_a_browser_sends_it_fits_the_form() {
        // 500 line breaks typed, 1,000 characters sent.
        let sent = format!("a{}b", "\r\n".repeat(498));
        assert!(note_fits_form(&sent));
        assert_eq!(parse_note(&form(&sent)).map(|n| n.chars().count()), Ok(500));
        assert!(!note_fits_form(&"a".repeat(1001)));
    }
}
