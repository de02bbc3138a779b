//! Uploaded documents (pay stubs, bank statements, benefit award letters): reading, extraction,
//! the tampering checks and a verdict per document. Pure functions over the file's bytes; no
//! storage and no AWS. `docs/documents.md` states the same in words.
//!
//! - `intake`: what a file is (PDF, photo, anything else) and the limits it must fit;
//! - `text`: each page's text runs with their positions and fonts, in reading order;
//! - `fields`, `extract`, `statement`, `letter`: the typed figures of each kind of document;
//! - `structure`, `arithmetic`, `identity`: the checks, each with its evidence;
//! - `editing_tools`: the documented list of tools known for editing PDFs;
//! - `reuse`: keyed fingerprints, the reuse check and matching stubs to bank deposits;
//! - `income`: the extracted figures as the one income-rules input;
//! - `record`: an upload as the verification keeps it, and the upload's caps;
//! - `finish`: the report of a verification finished with documents;
//! - `review`: the landlord's review of the documents, kept in the report;
//! - `samples`: the sandbox's ready sample documents, genuine and edited.

use serde::{Deserialize, Serialize};

pub mod arithmetic;
pub mod editing_tools;
pub mod extract;
pub mod fields;
pub mod finish;
pub mod identity;
pub mod income;
pub mod intake;
pub mod letter;
pub mod record;
pub mod reuse;
pub mod review;
pub mod samples;
pub mod statement;
pub mod structure;
pub mod text;

pub use extract::{BankStatement, BenefitLetter, Deduction, Deposit, Fields, PayStub};
pub use intake::{Limits, Refusal};

/// What a document was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    PayStub,
    BankStatement,
    BenefitLetter,
    /// A JPEG or PNG, or a PDF page without text: the tenant types the figures it shows.
    Photo,
    /// Text that matches none of the kinds above.
    Unknown,
}

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckResult {
    Pass,
    Fail,
    /// The values agree in part (a name written another way): a person should compare them.
    Partial,
    NotApplicable,
    Unknown,
}

/// One check with what it compared and the values it found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub check: String,
    pub result: CheckResult,
    pub evidence: String,
}

impl Check {
    pub fn new(check: &str, result: CheckResult, evidence: impl Into<String>) -> Self {
        Check {
            check: check.to_string(),
            result,
            evidence: evidence.into(),
        }
    }
}

/// The verdict on one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Clean,
    /// Structural evidence that the content changed after the document was made.
    Edited,
    /// A reading check found figures or a name that don't agree: a person should review it.
    Inconsistent,
    Undetermined,
}

/// The figures of a document of that kind, each kind read by its own module (`extract` the pay
/// stub, `statement` the bank statement, `letter` the benefit letter).
fn fields_of(kind: DocumentKind, pages: &[text::Page]) -> Fields {
    let lines = fields::all_lines(pages);
    match kind {
        DocumentKind::PayStub => Fields::PayStub(extract::pay_stub(&lines)),
        DocumentKind::BankStatement => Fields::BankStatement(statement::bank_statement(&lines)),
        DocumentKind::BenefitLetter => Fields::BenefitLetter(letter::benefit_letter(&lines)),
        DocumentKind::Photo | DocumentKind::Unknown => Fields::None,
    }
}

/// Check names, as they appear in the report.
pub mod names {
    pub const TEXT_LAYER: &str = "text_layer";
    pub const INCREMENTAL_UPDATES: &str = "incremental_updates";
    pub const MODIFIED_AFTER_CREATION: &str = "modified_after_creation";
    pub const EDITING_TOOL: &str = "editing_tool";
    pub const OVERLAYS: &str = "overlays";
    pub const FONT_CONSISTENCY: &str = "font_consistency";
    pub const ACTIVE_CONTENT: &str = "active_content";
    pub const NET_PAY_ARITHMETIC: &str = "net_pay_arithmetic";
    pub const YEAR_TO_DATE: &str = "year_to_date";
    pub const PAY_DATES: &str = "pay_dates";
    pub const IDENTITY: &str = "identity";
    pub const DEPOSIT_MATCH: &str = "deposit_match";
    pub const REUSE: &str = "reuse";
}

/// One analysed document: its kind, its figures, the checks and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub kind: DocumentKind,
    pub verdict: Verdict,
    /// Why the verdict is `undetermined`, in plain words; None otherwise.
    pub reason: Option<String>,
    pub pages: usize,
    pub fields: Fields,
    pub checks: Vec<Check>,
}

impl Analysis {
    /// The check of that name, if it ran.
    pub fn check(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.check == name)
    }

    /// Adds or replaces a check, then decides the verdict again.
    pub fn set_check(&mut self, check: Check) {
        match self.checks.iter_mut().find(|c| c.check == check.check) {
            Some(existing) => *existing = check,
            None => self.checks.push(check),
        }
        self.decide();
    }

    fn decide(&mut self) {
        let (verdict, reason) = verdict(self.kind, &self.checks);
        self.verdict = verdict;
        self.reason = reason;
    }
}

/// The structure checks whose failure shows that the content changed after the document was
/// made: a later revision rewriting page content, an editing tool's save, drawing over the text.
/// Every other failing check reads figures, dates, names or fonts, which a genuine document
/// can also disagree on (a layout misread, a nickname, a subtotal): those ask for a review.
pub const CONTENT_CHANGED: &[&str] = &[
    names::INCREMENTAL_UPDATES,
    names::EDITING_TOOL,
    names::OVERLAYS,
];

/// The verdict rule, in order:
/// 1. `edited` when a check of [`CONTENT_CHANGED`] fails;
/// 2. `inconsistent` when any other check but `active_content` fails or matches only in part:
///    its evidence is what a person should review;
/// 3. `undetermined` when the document can't be checked: a photo or a page without text,
///    JavaScript or embedded files (`active_content` fails), text that is none of the known
///    kinds, or a pay stub whose gross, deductions and net could not all be read
///    (`net_pay_arithmetic` unknown);
/// 4. `clean` otherwise.
pub fn verdict(kind: DocumentKind, checks: &[Check]) -> (Verdict, Option<String>) {
    let failed = |c: &&Check| c.result == CheckResult::Fail;
    if checks
        .iter()
        .filter(failed)
        .any(|c| CONTENT_CHANGED.contains(&c.check.as_str()))
    {
        return (Verdict::Edited, None);
    }
    let disagrees = checks.iter().any(|c| {
        matches!(c.result, CheckResult::Fail | CheckResult::Partial)
            && c.check != names::ACTIVE_CONTENT
    });
    if disagrees {
        return (Verdict::Inconsistent, None);
    }
    let result_of = |name: &str| checks.iter().find(|c| c.check == name).map(|c| c.result);
    let reason =
        if kind == DocumentKind::Photo || result_of(names::TEXT_LAYER) != Some(CheckResult::Pass) {
            Some("the document is a photo or a scan without text: its figures can't be checked")
        } else if result_of(names::ACTIVE_CONTENT) == Some(CheckResult::Fail) {
            Some("the document carries JavaScript or embedded files")
        } else if kind == DocumentKind::Unknown {
            Some("the text is not a pay stub, a bank statement or a benefit letter")
        } else if kind == DocumentKind::PayStub
            && result_of(names::NET_PAY_ARITHMETIC) != Some(CheckResult::Pass)
        {
            Some("the gross pay, deductions and net pay could not all be read")
        } else {
            None
        };
    match reason {
        Some(r) => (Verdict::Undetermined, Some(r.to_string())),
        None => (Verdict::Clean, None),
    }
}

/// Analyses one file: refused when it is not a PDF or a photo, or breaks a limit; otherwise its
/// kind, figures, checks and verdict. `tenant_name` feeds the identity check (not applicable
/// without it).
pub fn analyse(bytes: &[u8], tenant_name: Option<&str>) -> Result<Analysis, Refusal> {
    analyse_with(bytes, tenant_name, &Limits::default())
}

/// [`analyse`] under the given limits.
pub fn analyse_with(
    bytes: &[u8],
    tenant_name: Option<&str>,
    limits: &Limits,
) -> Result<Analysis, Refusal> {
    let pdf = match intake::open(bytes, limits)? {
        intake::Opened::Photo(format) => {
            let mut analysis = Analysis {
                kind: DocumentKind::Photo,
                verdict: Verdict::Undetermined,
                reason: None,
                pages: 1,
                fields: Fields::None,
                checks: vec![Check::new(
                    names::TEXT_LAYER,
                    CheckResult::Unknown,
                    format!("a {format} image: no text to read"),
                )],
            };
            analysis.decide();
            return Ok(analysis);
        }
        intake::Opened::Pdf(pdf) => pdf,
    };
    let pages = text::read_pages(&pdf.doc, limits)?;
    let mut checks = vec![text::text_layer_check(&pages)];
    checks.extend(structure::checks(&pdf, &pages));
    let kind = if checks[0].result == CheckResult::Pass {
        extract::detect_kind(&pages)
    } else {
        DocumentKind::Photo
    };
    let fields = fields_of(kind, &pages);
    checks.extend(arithmetic::single_document_checks(&fields));
    checks.push(identity::check(&fields, tenant_name));
    let mut analysis = Analysis {
        kind,
        verdict: Verdict::Undetermined,
        reason: None,
        pages: pages.len(),
        fields,
        checks,
    };
    analysis.decide();
    Ok(analysis)
}

/// Analyses a tenant's set of documents, then checks them as a set (`set_checks`) and decides
/// each verdict again. Each entry is one file's analysis or its refusal, in the order given.
pub fn analyse_set(files: &[&[u8]], tenant_name: Option<&str>) -> Vec<Result<Analysis, Refusal>> {
    let mut results: Vec<Result<Analysis, Refusal>> =
        files.iter().map(|b| analyse(b, tenant_name)).collect();
    let analysed: Vec<(usize, &Analysis)> = (results.iter().enumerate())
        .filter_map(|(i, r)| r.as_ref().ok().map(|a| (i, a)))
        .collect();
    for (index, check) in set_checks(&analysed, None) {
        if let Ok(analysis) = &mut results[index] {
            analysis.set_check(check);
        }
    }
    results
}

/// The checks of a set of documents, by the index each belongs to: the pay stubs as a series
/// (year-to-date figures and pay dates across consecutive stubs of one employer), and each
/// stub's net pay against the deposits of a bank statement of the set, or of the tenant's
/// connected bank (`bank`), that covers its pay date. A statement found edited is no evidence
/// about a stub.
pub fn set_checks(set: &[(usize, &Analysis)], bank: Option<&BankStatement>) -> Vec<(usize, Check)> {
    let stubs: Vec<(usize, PayStub)> = (set.iter())
        .filter_map(|(i, a)| match &a.fields {
            Fields::PayStub(stub) => Some((*i, stub.clone())),
            _ => None,
        })
        .collect();
    let statements: Vec<&BankStatement> = (set.iter())
        .filter(|(_, a)| a.verdict != Verdict::Edited)
        .filter_map(|(_, a)| match &a.fields {
            Fields::BankStatement(s) => Some(s),
            _ => None,
        })
        .chain(bank)
        .collect();
    let mut checks = arithmetic::series_checks(&stubs);
    checks.extend(reuse::deposit_checks(&stubs, &statements));
    checks
}

/// Any verdict, for the properties of the rules that follow from one.
#[cfg(test)]
pub(crate) fn any_verdict() -> impl proptest::strategy::Strategy<Value = Verdict> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Verdict::Clean),
        Just(Verdict::Edited),
        Just(Verdict::Inconsistent),
        Just(Verdict::Undetermined),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks(results: &[(&str, CheckResult)]) -> Vec<Check> {
        results
            .iter()
            .map(|(name, result)| Check::new(name, *result, ""))
            .collect()
    }

    #[test]
    fn the_verdict_follows_the_documented_order() {
        use CheckResult::*;
        let clean = [
            (names::TEXT_LAYER, Pass),
            (names::ACTIVE_CONTENT, Pass),
            (names::NET_PAY_ARITHMETIC, Pass),
            (names::IDENTITY, NotApplicable),
        ];
        assert_eq!(
            verdict(DocumentKind::PayStub, &checks(&clean)),
            (Verdict::Clean, None)
        );
        let mut edited = clean.to_vec();
        edited.push((names::FONT_CONSISTENCY, Fail));
        edited[1].1 = Fail;
        assert_eq!(
            verdict(DocumentKind::PayStub, &checks(&edited)).0,
            Verdict::Inconsistent,
            "what a reading check found is said, active content or not"
        );
        for structural in CONTENT_CHANGED {
            let mut edited = clean.to_vec();
            edited.push((structural, Fail));
            assert_eq!(
                verdict(DocumentKind::PayStub, &checks(&edited)).0,
                Verdict::Edited
            );
        }
        for reading in [
            names::NET_PAY_ARITHMETIC,
            names::YEAR_TO_DATE,
            names::PAY_DATES,
            names::IDENTITY,
            names::FONT_CONSISTENCY,
            names::DEPOSIT_MATCH,
            names::REUSE,
            names::MODIFIED_AFTER_CREATION,
        ] {
            for result in [Fail, Partial] {
                let mut read = clean.to_vec();
                read.retain(|(name, _)| *name != reading);
                read.push((reading, result));
                assert_eq!(
                    verdict(DocumentKind::PayStub, &checks(&read)),
                    (Verdict::Inconsistent, None),
                    "{reading} {result:?}"
                );
            }
        }
        let mut active = clean.to_vec();
        active[1].1 = Fail;
        let (v, reason) = verdict(DocumentKind::PayStub, &checks(&active));
        assert_eq!(v, Verdict::Undetermined);
        assert!(reason.unwrap().contains("JavaScript"));
        let mut unread = clean.to_vec();
        unread[2].1 = Unknown;
        let (v, reason) = verdict(DocumentKind::PayStub, &checks(&unread));
        assert_eq!(v, Verdict::Undetermined);
        assert!(reason.unwrap().contains("could not all be read"));
        assert_eq!(
            verdict(DocumentKind::BankStatement, &checks(&unread)).0,
            Verdict::Clean
        );
        let (v, reason) = verdict(DocumentKind::Unknown, &checks(&clean));
        assert_eq!(v, Verdict::Undetermined);
        assert!(reason.unwrap().contains("not a pay stub"));
    }

    proptest::proptest! {
        /// Whatever the checks say, only a failed structure check of `CONTENT_CHANGED` makes a
        /// document `edited`; any other failed or partial check but `active_content` makes it
        /// `inconsistent`.
        #[test]
        fn only_changed_content_makes_a_document_edited(
            found in proptest::collection::vec((0usize..13, 0usize..5), 0..14),
        ) {
            const ALL: [&str; 13] = [
                names::TEXT_LAYER, names::INCREMENTAL_UPDATES, names::MODIFIED_AFTER_CREATION,
                names::EDITING_TOOL, names::OVERLAYS, names::FONT_CONSISTENCY,
                names::ACTIVE_CONTENT, names::NET_PAY_ARITHMETIC, names::YEAR_TO_DATE,
                names::PAY_DATES, names::IDENTITY, names::DEPOSIT_MATCH, names::REUSE,
            ];
            use CheckResult::*;
            let results = [Pass, Fail, Partial, NotApplicable, Unknown];
            let list: Vec<Check> = (found.iter())
                .map(|(c, r)| Check::new(ALL[*c], results[*r], ""))
                .collect();
            let (v, _) = verdict(DocumentKind::PayStub, &list);
            let changed = list.iter().any(|c| c.result == Fail && CONTENT_CHANGED.contains(&c.check.as_str()));
            let disagrees = list.iter().any(|c| matches!(c.result, Fail | Partial) && c.check != names::ACTIVE_CONTENT);
            proptest::prop_assert_eq!(v == Verdict::Edited, changed);
            if !changed && disagrees {
                proptest::prop_assert_eq!(v, Verdict::Inconsistent);
            }
        }
    }
}
