//! The report of a verification the tenant finished with documents: the series checks over the
//! set, the income of every document that counts through the one set of income rules (method
//! `document`), the documents with their verdicts, `needs_review`, and the documents' confidence
//! factor.

use chrono::NaiveDate;

use super::record::{DocumentRecord, analysed_set, counts_in_report, report_documents};
use super::review::{DocumentReview, ReviewDecision};
use super::{Analysis, BankStatement, Deposit, Verdict};
use crate::Verification;
use crate::affordability::RentTerms;
use crate::income::{ProviderIncome, VerificationMethod};
use crate::report::confidence::documents_factor;
use crate::report::{AwaitingReview, IncomeReport, build_report_with};

/// The report of `v`'s documents, as of `today` when no document shows a date, beside any income
/// held from a method that succeeded first (`Verification::held_income`): one report, by the one
/// set of income rules, a job seen twice counted once. Only `clean` documents count until the
/// landlord accepts the others (`awaiting_review` says which, and the total then).
pub fn document_report(v: &Verification, today: NaiveDate) -> IncomeReport {
    let set = analysed_set(v.documents.values(), held_bank(v).as_ref());
    let mut report = report_of(v, &set, today, false);
    let awaiting: Vec<String> = (report.documents.iter().flatten())
        .filter(|d| d.awaiting_review)
        .map(|d| d.name.clone())
        .collect();
    if !awaiting.is_empty() {
        report.awaiting_review = Some(AwaitingReview {
            documents: awaiting,
            total_monthly_income_if_accepted: report_of(v, &set, today, true).total_monthly_income,
        });
    }
    report
}

/// The report once the landlord reviewed its documents: an acceptance counts every document
/// that is not `edited` and raises the revision; a rejection keeps the figures. Either way the
/// review is kept in it. None when `v` has no report from documents.
pub fn reviewed_report(v: &Verification, review: &DocumentReview) -> Option<IncomeReport> {
    let current = v.income_report.as_ref().filter(|r| r.documents.is_some())?;
    let mut report = match review.decision {
        ReviewDecision::Rejected => current.clone(),
        ReviewDecision::Accepted => {
            let today = v.completed_at.unwrap_or(review.reviewed_at).date_naive();
            let set = analysed_set(v.documents.values(), held_bank(v).as_ref());
            let mut report = report_of(v, &set, today, true);
            report.attempts = current.attempts.clone();
            report.local_sandbox = current.local_sandbox;
            report.revision = current.revision + 1;
            report
        }
    };
    report.document_review = Some(review.clone());
    Some(report)
}

/// The report of a checked set, counting what `accepted` allows.
fn report_of(
    v: &Verification,
    set: &[(DocumentRecord, Analysis)],
    today: NaiveDate,
    accepted: bool,
) -> IncomeReport {
    let counted: Vec<&Analysis> = set
        .iter()
        .filter(|(d, a)| counts_in_report(a.verdict, d.stated.is_some(), accepted))
        .map(|(_, a)| a)
        .collect();
    let documents = super::income::provider_income(&counted, today);
    let held = v.held_income.as_ref();
    let income = match (documents, held) {
        (Some(documents), held) => documents.joined(held),
        (None, Some(held)) => held.clone(),
        (None, None) => ProviderIncome::empty(VerificationMethod::Document, today),
    };
    let mut report = build_report_with(&income, &RentTerms::from(v));
    if held.is_none() {
        report.verification_method = VerificationMethod::Document;
        report.amounts_basis = Some(VerificationMethod::Document.amounts_basis());
    }
    let (documents, needs_review) = report_documents(set, v.documents.values(), accepted);
    let on_unchecked = documents
        .iter()
        .any(|d| d.counted && d.verdict != Verdict::Clean);
    if report.total_monthly_income > 0.0
        && let Some(factor) = documents_factor(on_unchecked)
    {
        report.confidence_score =
            ((report.confidence_score * factor.effect) * 100.0).round() / 100.0;
        report.confidence_factors.push(factor);
    }
    if !documents.is_empty() && !report.methods_used.contains(&VerificationMethod::Document) {
        // Documents whose income awaits the review were still the method used.
        report.methods_used.push(VerificationMethod::Document);
    }
    report.documents = Some(documents);
    report.needs_review = Some(needs_review);
    report
}

/// The deposits of the bank the tenant connected before the documents (held income of the
/// `bank` method), as one statement from its first deposit to the end of its data: the
/// cross-source check compares each stub's net pay with them.
pub fn held_bank(v: &Verification) -> Option<BankStatement> {
    let held = v.held_income.as_ref()?;
    let deposits: Vec<Deposit> = (held.sources.iter())
        .filter(|s| s.method.unwrap_or(held.method) == VerificationMethod::Bank)
        .flat_map(|s| {
            s.payments.iter().map(|p| Deposit {
                date: p.date,
                cents: (p.amount * 100.0).round() as i64,
                payer: s.name.clone(),
            })
        })
        .collect();
    let first = deposits.iter().map(|d| d.date).min()?;
    Some(BankStatement {
        holder: None,
        period_start: Some(first),
        period_end: Some(held.as_of),
        deposits,
    })
}

/// The documents that count toward the set (not refused), in upload order.
pub fn listed(v: &Verification) -> Vec<(&String, &DocumentRecord)> {
    let mut out: Vec<(&String, &DocumentRecord)> = v.documents.iter().collect();
    out.sort_by_key(|(_, d)| d.number);
    out
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};
    use proptest::prelude::*;

    use super::*;
    use crate::documents::any_verdict;
    use crate::documents::record::DocumentState;
    use crate::documents::{BenefitLetter, DocumentKind, Fields};
    use crate::{Mode, NewVerificationInput, VERIFICATION_LIFETIME};

    fn now() -> DateTime<Utc> {
        "2026-11-20T09:00:00Z".parse().unwrap()
    }

    /// A finished verification whose documents are award letters of these verdicts, each of
    /// its own payer and monthly amount.
    fn finished(letters: &[(Verdict, i64)]) -> Verification {
        let input = NewVerificationInput {
            tenant_email: "t@example.com".into(),
            monthly_rent: Some(1000.0),
            ..Default::default()
        };
        let mut v = Verification::new_pending("a", Mode::Test, input, now(), VERIFICATION_LIFETIME);
        v.completed_at = Some(now());
        for (i, (verdict, monthly)) in letters.iter().enumerate() {
            let mut d = DocumentRecord::arrived(i as u32 + 1, &format!("e{i}"), 1, now());
            d.state = DocumentState::Analysed;
            d.analysis = Some(Analysis {
                kind: DocumentKind::BenefitLetter,
                verdict: *verdict,
                reason: None,
                pages: 1,
                fields: Fields::BenefitLetter(BenefitLetter {
                    payer: Some(format!("Retirement Board {i}")),
                    recipient: None,
                    monthly_cents: Some(*monthly),
                    effective_date: NaiveDate::from_ymd_opt(2026, 1 + i as u32, 1),
                }),
                checks: vec![],
            });
            v.documents.insert(format!("d{i}"), d);
        }
        v.income_report = Some(document_report(&v, now().date_naive()));
        v
    }

    fn review(decision: ReviewDecision) -> DocumentReview {
        DocumentReview {
            decision,
            note: "checked".into(),
            reviewed_at: now(),
        }
    }

    proptest! {
        /// The report at completion is revision 1 and names what awaits the review with the
        /// total it would make; an acceptance makes exactly that total, counts every document
        /// but the edited ones, leaves nothing awaiting and is revision 2; a rejection keeps the
        /// figures and the revision; edited letters change no total, accepted or not.
        #[test]
        fn an_acceptance_makes_the_total_the_report_announced(
            letters in proptest::collection::vec((any_verdict(), 10_000i64..500_000), 1..6),
        ) {
            let v = finished(&letters);
            let report = v.income_report.clone().unwrap();
            prop_assert_eq!(report.revision, 1);
            prop_assert_eq!(
                report.total_monthly_income > 0.0,
                letters.iter().any(|(v, _)| *v == Verdict::Clean)
            );
            let documents = report.documents.clone().unwrap();
            let awaiting: Vec<String> = (documents.iter())
                .filter(|d| d.awaiting_review)
                .map(|d| d.name.clone())
                .collect();
            prop_assert_eq!(
                awaiting.is_empty(),
                letters.iter().all(|(v, _)| matches!(v, Verdict::Clean | Verdict::Edited))
            );
            prop_assert_eq!(
                report.awaiting_review.as_ref().map(|a| a.documents.clone()),
                (!awaiting.is_empty()).then(|| awaiting.clone())
            );

            let accepted = reviewed_report(&v, &review(ReviewDecision::Accepted)).unwrap();
            prop_assert_eq!(accepted.revision, 2);
            prop_assert!(accepted.awaiting_review.is_none());
            let expected = report
                .awaiting_review
                .as_ref()
                .map_or(report.total_monthly_income, |a| a.total_monthly_income_if_accepted);
            prop_assert_eq!(accepted.total_monthly_income, expected);
            for (d, (verdict, _)) in accepted.documents.unwrap().iter().zip(&letters) {
                prop_assert_eq!(d.counted, *verdict != Verdict::Edited);
                prop_assert!(!d.awaiting_review);
            }
            prop_assert!(accepted.total_monthly_income >= report.total_monthly_income);

            let rejected = reviewed_report(&v, &review(ReviewDecision::Rejected)).unwrap();
            prop_assert_eq!(rejected.revision, 1);
            prop_assert_eq!(rejected.total_monthly_income, report.total_monthly_income);
            prop_assert_eq!(&rejected.documents, &report.documents);

            let unedited: Vec<(Verdict, i64)> = (letters.iter().copied())
                .filter(|(v, _)| *v != Verdict::Edited)
                .collect();
            let without = finished(&unedited);
            let without_report = without.income_report.clone().unwrap();
            prop_assert_eq!(without_report.total_monthly_income, report.total_monthly_income);
            let without_accepted =
                reviewed_report(&without, &review(ReviewDecision::Accepted)).unwrap();
            prop_assert_eq!(without_accepted.total_monthly_income, accepted.total_monthly_income);
        }
    }
}
