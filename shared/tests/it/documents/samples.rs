//! The sandbox's sample documents: each gets the verdict it is there to show, for the reason it
//! names, from the same analysis as any upload. Writes the verdict table to the test artifacts.

use chrono::NaiveDate;
use shared::documents::samples::{Sample, sample_pdf};
use shared::documents::{Analysis, Check, CheckResult, Verdict, analyse_set, names};
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
            // The scan: no text to check, said as the reason.
            Verdict::Undetermined => {
                assert_ne!(result_of(names::TEXT_LAYER), Some(CheckResult::Pass));
                assert!(a.reason.as_deref().unwrap().contains("scan"));
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
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
