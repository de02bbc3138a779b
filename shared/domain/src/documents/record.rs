//! A tenant's uploaded document as the verification keeps it: where its object is, what state its
//! analysis is in, the analysis itself, and the figures the tenant typed for a photo or scan. The
//! rules of the upload (the caps, the object key) live here too. Pure: no storage, no AWS.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{
    Analysis, BankStatement, Check, CheckResult, DocumentKind, Fields, PayStub, Verdict, names,
};
use crate::income::PayFrequency;

/// At most this many documents (analysed or being analysed, not refused) make one verification's
/// set: a pay stub series, a statement or a letter rarely needs more.
pub const MAX_DOCUMENTS: usize = 6;

/// At most this many uploads per verification, refused and replaced ones included: every object
/// version posted counts, a form posted again too. It bounds what one link can store
/// (12 x 10 MB) and analyse, and how many verdicts a tenant can try for.
pub const MAX_UPLOADS: u32 = 12;

/// The largest upload, in bytes (10 MB, the POST policy's `content-length-range`).
pub const MAX_UPLOAD_BYTES: u64 = 10 * 1024 * 1024;

/// The prefix of every uploaded object; the analysis reads only objects under it.
pub const UPLOAD_PREFIX: &str = "uploads/";

/// The object key of one upload: `uploads/<verification id>/<document id>`.
pub fn object_key(verification_id: Uuid, document_id: &str) -> String {
    format!("{UPLOAD_PREFIX}{verification_id}/{document_id}")
}

/// The verification and document of an object key; None for any other key.
pub fn parse_object_key(key: &str) -> Option<(Uuid, String)> {
    let rest = key.strip_prefix(UPLOAD_PREFIX)?;
    let (verification, document) = rest.split_once('/')?;
    let valid = !document.is_empty()
        && document.len() <= 64
        && document
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    Some((verification.parse().ok()?, document.to_string())).filter(|_| valid)
}

/// Where a document's analysis stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentState {
    /// The object arrived; its analysis has not finished yet.
    Analysing,
    /// Analysed: see `analysis` (its verdict may be `undetermined`).
    Analysed,
    /// Not a document the service reads (not a PDF, JPEG or PNG, encrypted, corrupt, past a
    /// limit): see `refusal`. It is no part of the set; the tenant may upload another.
    Refused,
}

/// The pay date, gross and net pay a tenant typed from a photo or scan, and how often they are
/// paid (so a single stub counts at its stated pay, as a text stub does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatedPay {
    pub pay_date: NaiveDate,
    pub gross_cents: i64,
    pub net_cents: i64,
    pub pay_frequency: PayFrequency,
}

/// One uploaded document of a verification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentRecord {
    /// Its place among the verification's uploads, from 1: its name is "Document <number>".
    pub number: u32,
    /// The object's ETag: the analysis of one object is recorded once.
    pub etag: String,
    /// The S3 version of the object: the one analysed, and the one the landlord downloads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
    pub size: u64,
    pub state: DocumentState,
    #[serde(with = "crate::ts")]
    pub uploaded_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// Why the file was refused, in plain words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// The figures the tenant typed (a photo or scan only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated: Option<StatedPay>,
    /// The earlier uploads to the same form, oldest first, each as recorded when a later one
    /// replaced it (verdict or refusal included; their own `replaced` empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<DocumentRecord>,
}

impl DocumentRecord {
    /// A document whose object just arrived.
    pub fn arrived(number: u32, etag: &str, size: u64, now: DateTime<Utc>) -> Self {
        DocumentRecord {
            number,
            etag: etag.to_string(),
            version_id: None,
            size,
            state: DocumentState::Analysing,
            uploaded_at: now,
            analysis: None,
            refusal: None,
            stated: None,
            replaced: vec![],
        }
    }

    /// `self` replacing `previous` (the same form posted again): it keeps `previous` and the
    /// uploads that one replaced, in order.
    pub fn replacing(mut self, previous: &DocumentRecord) -> Self {
        let mut earlier = previous.clone();
        self.replaced = std::mem::take(&mut earlier.replaced);
        self.replaced.push(earlier);
        self
    }

    /// Whether this record is of that object: the same version when both name one, else the
    /// same ETag.
    pub fn is_object(&self, etag: &str, version_id: Option<&str>) -> bool {
        match (self.version_id.as_deref(), version_id) {
            (Some(mine), Some(theirs)) => mine == theirs,
            _ => self.etag == etag,
        }
    }

    /// This record or one it replaced, the one of that object.
    pub fn find_object_mut(
        &mut self,
        etag: &str,
        version_id: Option<&str>,
    ) -> Option<&mut DocumentRecord> {
        if self.is_object(etag, version_id) {
            return Some(self);
        }
        (self.replaced.iter_mut()).find(|d| d.is_object(etag, version_id))
    }

    /// This record's words in the trace of a later upload that replaced it, e.g. "Document 3
    /// (signs of editing found)" or "Document 2 (refused: not a PDF)".
    pub fn replaced_words(&self) -> String {
        let outcome = match (self.state, &self.analysis, &self.refusal) {
            (DocumentState::Analysed, Some(a), _) => verdict_words(a.verdict).to_string(),
            (DocumentState::Refused, _, Some(why)) => format!("refused: {why}"),
            _ => "replaced before its analysis finished".to_string(),
        };
        format!("{} ({outcome})", self.name())
    }

    pub fn name(&self) -> String {
        format!("Document {}", self.number)
    }

    /// Part of the set (not refused).
    pub fn counts(&self) -> bool {
        self.state != DocumentState::Refused
    }

    /// A photo or a page without text, whose figures only the tenant can state.
    pub fn needs_stated_pay(&self) -> bool {
        self.analysis.as_ref().is_some_and(|a| {
            a.kind == DocumentKind::Photo
                || a.check(names::TEXT_LAYER)
                    .is_some_and(|c| c.result != CheckResult::Pass)
        })
    }

    pub fn verdict(&self) -> Option<Verdict> {
        self.analysis.as_ref().map(|a| a.verdict)
    }
}

/// The analysis of a document whose analysis could not finish after its retries: `undetermined`,
/// with the reason.
pub fn unfinished(reason: &str) -> Analysis {
    Analysis {
        kind: DocumentKind::Unknown,
        verdict: Verdict::Undetermined,
        reason: Some(format!("the analysis could not finish: {reason}")),
        pages: 0,
        fields: Fields::None,
        checks: vec![],
    }
}

/// The documents of a set, in upload order, with the pay-stub series checks (year-to-date
/// figures and pay dates across one employer's stubs) applied and each verdict decided again.
/// A photo's stated figures stand in for its fields, so they count as the tenant's pay stub.
pub fn analysed_set<'a>(
    documents: impl IntoIterator<Item = &'a DocumentRecord>,
    bank: Option<&BankStatement>,
) -> Vec<(DocumentRecord, Analysis)> {
    let mut out: Vec<(DocumentRecord, Analysis)> = documents
        .into_iter()
        .filter(|d| d.state == DocumentState::Analysed)
        .filter_map(|d| {
            let mut analysis = d.analysis.clone()?;
            if let Some(stated) = &d.stated {
                analysis.fields = Fields::PayStub(PayStub {
                    pay_date: Some(stated.pay_date),
                    gross_cents: Some(stated.gross_cents),
                    net_cents: Some(stated.net_cents),
                    pay_frequency: Some(stated.pay_frequency),
                    ..Default::default()
                });
            }
            Some((d.clone(), analysis))
        })
        .collect();
    out.sort_by_key(|(d, _)| d.number);
    // Typed figures are the tenant's word, not a document's: no set check reads them.
    let read: Vec<(usize, &Analysis)> = (out.iter().enumerate())
        .filter(|(_, (d, _))| d.stated.is_none())
        .map(|(i, (_, a))| (i, a))
        .collect();
    let checks = super::set_checks(&read, bank);
    for (index, check) in checks {
        out[index].1.set_check(check);
    }
    out
}

/// When a document's figures count toward the report's income.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// A `clean` document read from its own text: at once.
    Now,
    /// An `inconsistent` or `undetermined` document, or figures the tenant typed: once the
    /// landlord accepts the documents (`POST /api/v1/verify/review`).
    AfterReview,
    /// An `edited` document: never.
    Never,
}

/// When a document with this verdict counts; `stated` when the tenant typed its figures.
pub fn counting(verdict: Verdict, stated: bool) -> Counting {
    match verdict {
        Verdict::Edited => Counting::Never,
        Verdict::Clean if !stated => Counting::Now,
        _ => Counting::AfterReview,
    }
}

/// Whether a document counts, the landlord having accepted the documents or not.
pub fn counts_in_report(verdict: Verdict, stated: bool, accepted: bool) -> bool {
    match counting(verdict, stated) {
        Counting::Now => true,
        Counting::AfterReview => accepted,
        Counting::Never => false,
    }
}

/// One document as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportDocument {
    pub name: String,
    pub kind: DocumentKind,
    pub verdict: Verdict,
    /// Why the verdict is `undetermined`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Whether its income counts: `edited` documents never do; `inconsistent` and
    /// `undetermined` ones, and typed figures, once the landlord accepts them.
    pub counted: bool,
    /// Its income counts once the landlord accepts the documents; absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaiting_review: bool,
    /// The pay date, gross and net were typed by the tenant (a photo or scan).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stated_by_tenant: bool,
    /// The verdict in plain words, with the checks that failed or the reason, and what it
    /// replaced.
    pub summary: String,
    pub checks: Vec<Check>,
    /// The earlier uploads to the same form, each with its verdict or refusal: a landlord sees
    /// that a file was swapped. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<String>,
    /// The upload was refused (`reason` says why): never counted, its verdict `undetermined`.
    /// Listed so that a file swapped for one that can't be read stays in sight. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

/// The verdict in plain words, for the webhook's summary, the PDF and the tenant's page.
pub fn verdict_words(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Clean => "no sign of editing found",
        Verdict::Edited => "signs of editing found",
        Verdict::Inconsistent => "inconsistencies found, needs review",
        Verdict::Undetermined => "could not be checked",
    }
}

/// What a document was read as, in words.
pub fn kind_words(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::PayStub => "pay stub",
        DocumentKind::BankStatement => "bank statement",
        DocumentKind::BenefitLetter => "benefit letter",
        DocumentKind::Photo => "photo or scan",
        DocumentKind::Unknown => "document of no known kind",
    }
}

/// One document's verdict in a sentence: "Document 2 (pay stub): signs of editing found
/// (incremental_updates); not counted." `awaiting` when its income waits on the landlord's
/// acceptance.
pub fn summary(name: &str, analysis: &Analysis, stated: bool, awaiting: bool) -> String {
    let mut out = format!(
        "{name} ({}): {}",
        kind_words(analysis.kind),
        verdict_words(analysis.verdict)
    );
    let named = |results: &[CheckResult]| -> Vec<&str> {
        (analysis.checks.iter())
            .filter(|c| results.contains(&c.result))
            .map(|c| c.check.as_str())
            .collect()
    };
    match analysis.verdict {
        Verdict::Edited => out.push_str(&format!(
            " ({}); not counted",
            named(&[CheckResult::Fail])
                .into_iter()
                .filter(|c| super::CONTENT_CHANGED.contains(c))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Verdict::Inconsistent => out.push_str(&format!(
            " ({})",
            named(&[CheckResult::Fail, CheckResult::Partial]).join(", ")
        )),
        Verdict::Undetermined => {
            if let Some(reason) = &analysis.reason {
                out.push_str(&format!(": {reason}"));
            }
        }
        Verdict::Clean => {}
    }
    if stated {
        out.push_str("; its pay date, gross and net pay were typed by the tenant");
    }
    if awaiting {
        out.push_str("; counted once the landlord accepts it");
    }
    out.push('.');
    out
}

/// The documents of the report in upload order, `accepted` when the landlord accepted them, and
/// whether a person should review them: any document that is not `clean`, or figures the tenant
/// typed. The refused uploads are listed too, never counted: each upload leaves a trace.
pub fn report_documents<'a>(
    set: &[(DocumentRecord, Analysis)],
    refused: impl IntoIterator<Item = &'a DocumentRecord>,
    accepted: bool,
) -> (Vec<ReportDocument>, bool) {
    let mut documents: Vec<(u32, ReportDocument)> = set
        .iter()
        .map(|(d, a)| {
            let stated = d.stated.is_some();
            let counted = counts_in_report(a.verdict, stated, accepted);
            let awaiting = !counted && counting(a.verdict, stated) == Counting::AfterReview;
            let entry = ReportDocument {
                name: d.name(),
                kind: a.kind,
                verdict: a.verdict,
                reason: a.reason.clone(),
                counted,
                awaiting_review: awaiting,
                stated_by_tenant: stated,
                summary: summary(&d.name(), a, stated, awaiting),
                checks: a.checks.clone(),
                replaced: vec![],
                refused: false,
            };
            (d.number, with_trace(entry, d))
        })
        .collect();
    documents.extend(
        (refused.into_iter())
            .filter(|d| d.state == DocumentState::Refused)
            .map(|d| (d.number, with_trace(refused_entry(d), d))),
    );
    documents.sort_by_key(|(number, _)| *number);
    let needs_review = set
        .iter()
        .any(|(d, a)| counting(a.verdict, d.stated.is_some()) != Counting::Now);
    (
        documents.into_iter().map(|(_, d)| d).collect(),
        needs_review,
    )
}

/// A refused upload as the report lists it: "Document 3 (document of no known kind): refused: not
/// a PDF; not counted."
fn refused_entry(d: &DocumentRecord) -> ReportDocument {
    let why = d
        .refusal
        .clone()
        .unwrap_or_else(|| "no reason recorded".to_string());
    ReportDocument {
        name: d.name(),
        kind: DocumentKind::Unknown,
        verdict: Verdict::Undetermined,
        summary: format!(
            "{} ({}): refused: {why}; not counted.",
            d.name(),
            kind_words(DocumentKind::Unknown)
        ),
        reason: Some(why),
        counted: false,
        awaiting_review: false,
        stated_by_tenant: false,
        checks: vec![],
        replaced: vec![],
        refused: true,
    }
}

/// `entry` with the uploads `d` replaced, in its `replaced` and at the end of its summary.
fn with_trace(mut entry: ReportDocument, d: &DocumentRecord) -> ReportDocument {
    entry.replaced = d.replaced.iter().map(|r| r.replaced_words()).collect();
    if !entry.replaced.is_empty() {
        entry
            .summary
            .push_str(&format!(" It replaced {}.", entry.replaced.join("; ")));
    }
    entry
}

/// Whether the tenant may finish with these documents: at least one analysed, none still being
/// analysed, and every photo's figures typed. Otherwise what is missing, in plain words.
pub fn ready_to_finish<'a>(
    documents: impl IntoIterator<Item = &'a DocumentRecord>,
) -> Result<(), &'static str> {
    let documents: Vec<&DocumentRecord> = documents.into_iter().filter(|d| d.counts()).collect();
    if documents.is_empty() {
        return Err("Please upload at least one document first.");
    }
    if documents
        .iter()
        .any(|d| d.state == DocumentState::Analysing)
    {
        return Err("Your documents are still being checked. Please wait a moment and refresh.");
    }
    if documents
        .iter()
        .any(|d| d.needs_stated_pay() && d.stated.is_none())
    {
        return Err("Please type the pay date, gross and net pay of each photo or scan first.");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
