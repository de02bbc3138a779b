//! The income report as a PDF (the landlord's `GET /api/v1/verify/report` and the tenant's copy).
//!
//! Written with `pdf-writer` (small, no system dependency) in the PDF base-14 font Helvetica, which
//! every viewer has, so no font file is embedded: text is encoded as WinAnsi, and a character
//! outside it prints as `?`. [`layout`] is the page machinery (A4 pages, wrapping, page breaks);
//! [`sections`] holds what the report says, one function per section.

pub mod layout;
pub mod sections;

use chrono::{DateTime, Utc};

use crate::Verification;

/// The PDF of a completed verification's report, generated at `now`. Pure: the same inputs give
/// the same bytes.
pub fn report_pdf(v: &Verification, now: DateTime<Utc>) -> Vec<u8> {
    let mut doc = layout::Document::new();
    sections::render_report(&mut doc, v, now);
    doc.finish(&format!("Income report {}", v.verification_id))
}

/// The file name offered for download.
pub fn report_filename(v: &Verification) -> String {
    format!("income-report-{}.pdf", v.verification_id)
}
