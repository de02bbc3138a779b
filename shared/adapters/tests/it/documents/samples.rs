//! The sandbox's sample documents: each gets the verdict it is there to show, for the reason it
//! names, from the same analysis as any upload. Writes the verdict table to the test artifacts.

use chrono::NaiveDate;
use domain::documents::samples::{Sample, sample_pdf};
use domain::documents::{
    Analysis, CONTENT_CHANGED, Check, CheckResult, Verdict, analyse_set, names,
};
use uuid::Uuid;

const TENANT: &str = "Jane Q. Doe";

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()
}

fn pdf(sample: Sample, id: Uuid) -> Vec<u8> {
    sample_pdf(sample, id, TENANT, today())
        .unwrap_or_else(|| panic!("sample {} was not made", sample.slug()))
}

/// Each sample analysed alone, as its page line says; the year-to-date sample beside the stub
/// before it, which it needs to show.
fn analysed(sample: Sample, id: Uuid) -> Analysis {
    let earlier = pdf(Sample::Earlier, id);
    let file = pdf(sample, id);
    let files: Vec<&[u8]> = match sample {
        Sample::YearToDate => vec![&earlier, &file],
        _ => vec![&file],
    };
    let mut results = analyse_set(&files, Some(TENANT));
    results
        .pop()
        .unwrap()
        .unwrap_or_else(|r| panic!("sample {} was refused: {r:?}", sample.slug()))
}

#[test]
fn every_sample_gets_the_verdict_it_shows_for_the_reason_it_names() {
    let id = Uuid::from_u128(0x5a5a_1234);
    let mut table = vec![
        "| sample | verdict | failed checks, with their evidence |".to_string(),
        "|---|---|---|".to_string(),
    ];
    for sample in Sample::ALL {
        let a = analysed(sample, id);
        let (verdict, fails) = sample.shows();
        let failed: Vec<&Check> = (a.checks.iter())
            .filter(|c| c.result == CheckResult::Fail)
            .collect();
        let evidence: Vec<String> = (failed.iter())
            .map(|c| format!("`{}`: {}", c.check, c.evidence))
            .collect();
        table.push(format!(
            "| {} | {:?} | {} |",
            sample.slug(),
            a.verdict,
            match evidence.is_empty() {
                true => a.reason.clone().unwrap_or_else(|| "none".into()),
                false => evidence.join("; "),
            }
        ));
        assert_eq!(
            a.verdict,
            verdict,
            "sample {}: {:?}",
            sample.slug(),
            a.checks
        );
        let names: Vec<&str> = failed.iter().map(|c| c.check.as_str()).collect();
        assert_eq!(names, fails, "sample {}", sample.slug());
        let result_of = |name: &str| a.check(name).map(|c| c.result);
        match verdict {
            // Clean: the figures read and add up; the name is the tenant's.
            Verdict::Clean => {
                assert_eq!(
                    result_of(names::NET_PAY_ARITHMETIC),
                    Some(CheckResult::Pass)
                );
                assert_eq!(result_of(names::IDENTITY), Some(CheckResult::Pass));
            }
            Verdict::Edited => {}
            // A reading check disagrees; nothing in the file's structure shows an edit.
            Verdict::Inconsistent => assert!(
                names.iter().all(|n| !CONTENT_CHANGED.contains(n)),
                "sample {}: {names:?}",
                sample.slug()
            ),
            // The scan: no text to check, said as the reason.
            Verdict::Undetermined => {
                assert_ne!(result_of(names::TEXT_LAYER), Some(CheckResult::Pass));
                assert!(a.reason.as_deref().unwrap().contains("scan"));
            }
        }
    }
    let dir = crate::report_pdf::artifacts_dir();
    std::fs::write(dir.join("sample-verdicts.md"), table.join("\n") + "\n").unwrap();
}

#[test]
fn the_genuine_samples_read_as_a_series_of_the_tenants_pay() {
    let id = Uuid::from_u128(77);
    let (earlier, genuine) = (pdf(Sample::Earlier, id), pdf(Sample::Genuine, id));
    let results = analyse_set(&[&earlier, &genuine], Some(TENANT));
    for r in &results {
        let a = r.as_ref().unwrap();
        assert_eq!(a.verdict, Verdict::Clean, "{:?}", a.checks);
        assert_eq!(
            a.check(names::YEAR_TO_DATE).unwrap().result,
            CheckResult::Pass
        );
        assert_eq!(a.check(names::IDENTITY).unwrap().result, CheckResult::Pass);
    }
}

#[test]
fn two_verifications_never_share_a_samples_figures() {
    let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2 << 120 | 3 << 112));
    assert_ne!(pdf(Sample::Genuine, a), pdf(Sample::Genuine, b));
    // The same verification gets the same sample each time (a download again is the same file).
    assert_eq!(pdf(Sample::Genuine, a), pdf(Sample::Genuine, a));
    assert_eq!(Sample::from_slug("scan"), Some(Sample::Scan));
    assert_eq!(Sample::from_slug("nope"), None);
}

/// The cross-source check against a bank the tenant connected first (held income): a stub
/// whose net pay is one of its employer's deposits passes; one stating more is edited and
/// not counted.
#[test]
fn a_stub_is_compared_with_the_deposits_of_the_bank_connected_first() {
    use domain::documents::finish::document_report;
    use domain::documents::record::{DocumentRecord, DocumentState};
    use domain::income::{Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod};
    use domain::{Mode, NewVerificationInput, VERIFICATION_LIFETIME, Verification};

    let id = Uuid::from_u128(0xb4e1);
    let genuine = analyse_set(&[&pdf(Sample::Genuine, id)], Some(TENANT))
        .remove(0)
        .unwrap();
    let domain::documents::Fields::PayStub(stub) = &genuine.fields else {
        panic!("a pay stub")
    };
    let (paid, net) = (stub.pay_date.unwrap(), stub.net_cents.unwrap());
    let employer = stub.employer.clone().unwrap().to_uppercase();
    let verification = |deposit_cents: i64| {
        let input = NewVerificationInput {
            tenant_email: "jane@example.com".into(),
            tenant_name: Some(TENANT.into()),
            monthly_rent: Some(1000.0),
            ..Default::default()
        };
        let now = chrono::Utc::now();
        let mut v =
            Verification::new_pending("acct", Mode::Test, input, now, VERIFICATION_LIFETIME);
        let deposit = |date: NaiveDate| Payment {
            date,
            amount: deposit_cents as f64 / 100.0,
        };
        v.held_income = Some(ProviderIncome {
            as_of: paid + chrono::Duration::days(10),
            method: VerificationMethod::Bank,
            sources: vec![ProviderIncomeSource {
                name: format!("{employer} PAYROLL"),
                category: "SALARY".into(),
                payments: vec![
                    deposit(paid - chrono::Duration::days(28)),
                    deposit(paid - chrono::Duration::days(14)),
                    deposit(paid),
                ],
                ..Default::default()
            }],
            provider_confidence: None,
        });
        let mut record = DocumentRecord::arrived(1, "etag", 1, now);
        record.state = DocumentState::Analysed;
        record.analysis = Some(genuine.clone());
        v.documents.insert("d1".into(), record);
        v
    };
    let matched = document_report(&verification(net), today());
    let documents = matched.documents.unwrap();
    let check = (documents[0].checks.iter())
        .find(|c| c.check == names::DEPOSIT_MATCH)
        .expect("compared with the connected bank");
    assert_eq!(check.result, CheckResult::Pass, "{}", check.evidence);
    assert_eq!(documents[0].verdict, Verdict::Clean);
    // The bank paid 300.00 less than the stub states: the stub needs review, not counted until
    // the landlord accepts it.
    let short = document_report(&verification(net - 30_000), today());
    let documents = short.documents.unwrap();
    let check = (documents[0].checks.iter())
        .find(|c| c.check == names::DEPOSIT_MATCH)
        .unwrap();
    assert_eq!(check.result, CheckResult::Fail, "{}", check.evidence);
    assert_eq!(documents[0].verdict, Verdict::Inconsistent);
    assert!(!documents[0].counted && documents[0].awaiting_review);
}
