//! The document analysis on fixtures the tests make: genuine pay stubs of four layouts, a bank
//! statement and a benefit letter printed by Chromium and re-rendered by cairo; edited copies for
//! every check; scans and photos; and hostile files, analysed in a child process under a
//! memory limit.

mod edits;
mod fixtures;
mod hostile;
mod layouts;
mod samples;

use domain::documents::reuse::{deposit_match, file_fingerprint, stub_fingerprint};
use domain::documents::{
    Analysis, CheckResult, DocumentKind, Fields, Verdict, analyse, analyse_set, names,
};
use domain::income::{PayFrequency, VerificationMethod, rules};

use fixtures::*;

const TENANT: &str = "Jane Doe";

fn result(a: &Analysis, check: &str) -> (CheckResult, String) {
    let c = a
        .check(check)
        .unwrap_or_else(|| panic!("no check {check} in {a:#?}"));
    (c.result, c.evidence.clone())
}

fn assert_check(a: &Analysis, check: &str, expected: CheckResult, evidence: &[&str]) {
    let (got, text) = result(a, check);
    assert_eq!(got, expected, "{check}: {text}");
    for part in evidence {
        assert!(text.contains(part), "{check}: '{part}' not in '{text}'");
    }
}

fn stub_of(a: &Analysis) -> &domain::documents::PayStub {
    match &a.fields {
        Fields::PayStub(s) => s,
        other => panic!("not a pay stub: {other:?}"),
    }
}

/// Every structure check of a genuine file passes.
fn assert_genuine_structure(a: &Analysis, producer: &str) {
    assert_check(a, names::TEXT_LAYER, CheckResult::Pass, &["1 page(s)"]);
    assert_check(
        a,
        names::INCREMENTAL_UPDATES,
        CheckResult::Pass,
        &["one revision"],
    );
    assert_check(
        a,
        names::MODIFIED_AFTER_CREATION,
        CheckResult::Pass,
        &["created 20"],
    );
    assert_check(
        a,
        names::EDITING_TOOL,
        CheckResult::Pass,
        &[producer, "not an editing tool"],
    );
    assert_check(a, names::OVERLAYS, CheckResult::Pass, &["no annotation"]);
    assert_check(
        a,
        names::ACTIVE_CONTENT,
        CheckResult::Pass,
        &["no JavaScript"],
    );
}

/// The bench's fixture (`make bench`, document analysis): a stub on two pages reads as one clean
/// stub with its figures.
#[test]
fn a_stub_on_two_pages_is_one_clean_stub_with_its_figures() {
    if !browser_available() {
        return;
    }
    let stub = Stub::new("2026-10-16", 21);
    let pdf = chromium_pdf("two_page_stub", &stub.two_page_adp_html());
    let a = analyse(&pdf, Some("Jane Q. Doe")).unwrap();
    assert_eq!(
        (a.kind, a.verdict, a.pages),
        (DocumentKind::PayStub, Verdict::Clean, 2)
    );
    let Fields::PayStub(fields) = &a.fields else {
        panic!("{:?}", a.fields)
    };
    assert_eq!(fields.gross_cents, Some(stub.gross));
    assert_eq!(fields.net_cents, Some(stub.net()));
}

#[test]
fn genuine_stubs_of_four_layouts_and_two_producers_are_clean_with_every_figure() {
    if !browser_available() {
        return;
    }
    let stub = Stub::new("2026-11-06", 22);
    for (name, html, amounts, font, employee) in [
        (
            "adp",
            stub.adp_html(),
            "18 amount(s)",
            "DejaVuSans",
            "Jane Q. Doe",
        ),
        (
            "gusto",
            stub.gusto_html(),
            "18 amount(s)",
            "DejaVuSerif",
            "Jane Q. Doe",
        ),
        (
            "paychex",
            stub.paychex_html(),
            "19 amount(s)",
            "DejaVuSansMono",
            "DOE, JANE Q",
        ),
        (
            "workday",
            stub.workday_html(),
            "23 amount(s)",
            "DejaVuSansCondensed",
            "Jane Q. Doe",
        ),
    ] {
        let chromium = chromium_pdf(name, &html);
        let cairo = cairo_pdf(name, &chromium);
        for (pdf, producer) in [(chromium, "Skia/PDF"), (cairo, "cairo")] {
            let a = analyse(&pdf, Some(TENANT)).unwrap();
            assert_eq!(
                (a.kind, a.verdict),
                (DocumentKind::PayStub, Verdict::Clean),
                "{name} by {producer}: {a:#?}"
            );
            assert_genuine_structure(&a, producer);
            assert_check(
                &a,
                names::FONT_CONSISTENCY,
                CheckResult::Pass,
                &[amounts, font],
            );
            assert_check(
                &a,
                names::NET_PAY_ARITHMETIC,
                CheckResult::Pass,
                &[
                    "gross 2,000.00 less deductions 533.00 is 1,467.00; the stub states net 1,467.00",
                ],
            );
            assert_check(
                &a,
                names::YEAR_TO_DATE,
                CheckResult::Pass,
                &["44,000.00 covers this period's gross 2,000.00"],
            );
            assert_check(
                &a,
                names::PAY_DATES,
                CheckResult::Pass,
                &["14 days (2026-10-19 to 2026-11-01), paid 2026-11-06"],
            );
            assert_check(
                &a,
                names::IDENTITY,
                CheckResult::Pass,
                &[&format!("employee '{employee}' matches")],
            );
            let s = stub_of(&a);
            if name == "paychex" {
                assert_eq!(s.deductions_total_cents, Some(53_300));
                assert_check(
                    &a,
                    names::NET_PAY_ARITHMETIC,
                    CheckResult::Pass,
                    &["the 5 deduction lines add up to 533.00, the stated total is 533.00"],
                );
            }
            assert_eq!(s.employer.as_deref(), Some("Acme Widgets Inc"));
            assert_eq!(s.employee.as_deref(), Some(employee));
            assert_eq!(
                (s.period_start, s.period_end, s.pay_date),
                (
                    Some(d("2026-10-19")),
                    Some(d("2026-11-01")),
                    Some(d("2026-11-06"))
                )
            );
            assert_eq!(s.pay_frequency, Some(PayFrequency::Biweekly));
            assert_eq!((s.gross_cents, s.net_cents), (Some(200_000), Some(146_700)));
            assert_eq!(
                (s.ytd_gross_cents, s.ytd_net_cents),
                (Some(4_400_000), Some(3_227_400))
            );
            let mut deductions: Vec<i64> = s.deductions.iter().map(|d| d.cents).collect();
            deductions.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(deductions, [20_000, 12_400, 10_000, 8_000, 2_900]);
        }
    }
}

#[test]
fn a_statement_and_a_letter_are_read_and_clean() {
    if !browser_available() {
        return;
    }
    let statement = chromium_pdf(
        "statement",
        &statement_html(
            "Jane Q. Doe",
            &[
                ("10/09", "ACME WIDGETS INC DIR DEP PPD ID: 4410", 146_700),
                ("10/23", "ACME WIDGETS INC DIR DEP PPD ID: 4410", 146_700),
            ],
        ),
    );
    for pdf in [statement.clone(), cairo_pdf("statement", &statement)] {
        let a = analyse(&pdf, Some(TENANT)).unwrap();
        assert_eq!(
            (a.kind, a.verdict),
            (DocumentKind::BankStatement, Verdict::Clean),
            "{a:#?}"
        );
        assert_genuine_structure(&a, "");
        assert_check(
            &a,
            names::IDENTITY,
            CheckResult::Pass,
            &["account holder 'Jane Q. Doe'"],
        );
        let Fields::BankStatement(s) = &a.fields else {
            panic!()
        };
        assert_eq!(
            (s.period_start, s.period_end),
            (Some(d("2026-10-01")), Some(d("2026-10-31")))
        );
        let deposits: Vec<(String, i64, &str)> = s
            .deposits
            .iter()
            .map(|x| (x.date.to_string(), x.cents, x.payer.as_str()))
            .collect();
        assert_eq!(
            deposits,
            [
                ("2026-10-09".to_string(), 146_700, "ACME WIDGETS INC"),
                ("2026-10-23".to_string(), 146_700, "ACME WIDGETS INC")
            ]
        );
    }
    let letter = chromium_pdf("letter", &letter_html("Jane Q. Doe", 123_400));
    for pdf in [letter.clone(), cairo_pdf("letter", &letter)] {
        let a = analyse(&pdf, Some(TENANT)).unwrap();
        assert_eq!(
            (a.kind, a.verdict),
            (DocumentKind::BenefitLetter, Verdict::Clean),
            "{a:#?}"
        );
        assert_genuine_structure(&a, "");
        assert_check(
            &a,
            names::FONT_CONSISTENCY,
            CheckResult::Pass,
            &["1 amount(s)"],
        );
        let Fields::BenefitLetter(l) = &a.fields else {
            panic!()
        };
        assert_eq!(l.payer.as_deref(), Some("Social Security Administration"));
        assert_eq!(
            (l.monthly_cents, l.effective_date),
            (Some(123_400), Some(d("2026-12-01")))
        );
        assert_check(
            &a,
            names::IDENTITY,
            CheckResult::Pass,
            &["recipient 'Jane Q. Doe'"],
        );
    }
}

#[test]
fn each_edit_is_named_with_its_evidence() {
    if !browser_available() {
        return;
    }
    let genuine = chromium_pdf("edit_base", &Stub::new("2026-11-06", 22).adp_html());

    let appended = edits::incremental_overlay(&genuine, "$1,467.00", "$1,967.00");
    let a = analyse(&appended, Some(TENANT)).unwrap();
    assert_eq!(a.verdict, Verdict::Edited);
    assert_check(
        &a,
        names::INCREMENTAL_UPDATES,
        CheckResult::Fail,
        &[
            "2 revisions",
            "1 update(s) appended after the first %%EOF",
            "(page 1)",
            "(content of page 1)",
            "(Type1)",
        ],
    );
    assert_check(
        &a,
        names::FONT_CONSISTENCY,
        CheckResult::Fail,
        &["'$1,967.00' is drawn in Helvetica", "DejaVuSans"],
    );

    // Saved whole as one revision, the new figure away from the old: only its font tells, and a
    // font alone is a reading check's finding, for review.
    let rewritten = edits::rewritten_overlay(&genuine, "$1,467.00", "$1,967.00");
    let a = analyse(&rewritten, Some(TENANT)).unwrap();
    assert_eq!(a.verdict, Verdict::Inconsistent);
    assert_check(
        &a,
        names::INCREMENTAL_UPDATES,
        CheckResult::Pass,
        &["one revision"],
    );
    assert_check(
        &a,
        names::FONT_CONSISTENCY,
        CheckResult::Fail,
        &["'$1,967.00' is drawn in Helvetica"],
    );

    let replaced = edits::replaced_in_content(&genuine, "$1,467.00", "$1,476.00");
    let a = analyse(&replaced, Some(TENANT)).unwrap();
    assert_eq!(a.verdict, Verdict::Inconsistent);
    assert_check(
        &a,
        names::INCREMENTAL_UPDATES,
        CheckResult::Pass,
        &["one revision"],
    );
    assert_check(
        &a,
        names::FONT_CONSISTENCY,
        CheckResult::Pass,
        &["18 amount(s), 18 in DejaVuSans"],
    );
    assert_check(
        &a,
        names::NET_PAY_ARITHMETIC,
        CheckResult::Fail,
        &["gross 2,000.00 less deductions 533.00 is 1,467.00; the stub states net 1,476.00"],
    );

    let annotated = edits::annotated(&genuine, "$1,467.00", "$1,967.00");
    let a = analyse(&annotated, Some(TENANT)).unwrap();
    assert_eq!(a.verdict, Verdict::Edited);
    assert_check(
        &a,
        names::OVERLAYS,
        CheckResult::Fail,
        &["page 1: a FreeText annotation over '$1,467.00'"],
    );

    let resaved = edits::resaved_by(&genuine, "iLovePDF");
    let a = analyse(&resaved, Some(TENANT)).unwrap();
    assert_eq!(a.verdict, Verdict::Edited);
    assert_check(
        &a,
        names::EDITING_TOOL,
        CheckResult::Fail,
        &["producer 'iLovePDF'", "iLovePDF is an editing tool"],
    );
    assert_check(
        &a,
        names::MODIFIED_AFTER_CREATION,
        CheckResult::Fail,
        &["modified 2026-11-08T17:30:00+00:00 after its creation 2026-11-06T09:00:00+00:00"],
    );

    let mut wrong_net = Stub::new("2026-11-06", 22);
    wrong_net.net_error = 50_000;
    let a = analyse(
        &chromium_pdf("wrong_net", &wrong_net.gusto_html()),
        Some(TENANT),
    )
    .unwrap();
    assert_eq!(a.verdict, Verdict::Inconsistent);
    assert_check(
        &a,
        names::NET_PAY_ARITHMETIC,
        CheckResult::Fail,
        &["is 1,467.00; the stub states net 1,967.00"],
    );

    let mut someone_else = Stub::new("2026-11-06", 22);
    someone_else.employee = "John R. Smith".into();
    let a = analyse(
        &chromium_pdf("someone_else", &someone_else.adp_html()),
        Some(TENANT),
    )
    .unwrap();
    assert_eq!(a.verdict, Verdict::Inconsistent);
    assert_check(
        &a,
        names::IDENTITY,
        CheckResult::Fail,
        &["employee 'John R. Smith' does not match the tenant's name 'Jane Doe'"],
    );
}

#[test]
fn year_to_date_figures_add_up_across_consecutive_stubs_and_never_go_backwards() {
    if !browser_available() {
        return;
    }
    let first = chromium_pdf("series_1", &Stub::new("2026-10-23", 21).adp_html());
    let second = chromium_pdf("series_2", &Stub::new("2026-11-06", 22).adp_html());
    let mut backwards = Stub::new("2026-11-06", 22);
    backwards.ytd_error = -500_000;
    let backwards = chromium_pdf("series_back", &backwards.adp_html());

    let results = analyse_set(&[&second, &first], Some(TENANT));
    let later = results[0].as_ref().unwrap();
    assert_eq!(later.verdict, Verdict::Clean);
    assert_check(
        later,
        names::YEAR_TO_DATE,
        CheckResult::Pass,
        &[
            "year-to-date gross 42,000.00 on 2026-10-23 plus this period's 2,000.00 is 44,000.00; the stub on 2026-11-06 states 44,000.00",
        ],
    );
    assert_check(
        later,
        names::PAY_DATES,
        CheckResult::Pass,
        &["paid 2026-10-23 then 2026-11-06: 14 days apart"],
    );

    let results = analyse_set(&[&first, &backwards], Some(TENANT));
    let later = results[1].as_ref().unwrap();
    assert_eq!(later.verdict, Verdict::Inconsistent);
    assert_check(
        later,
        names::YEAR_TO_DATE,
        CheckResult::Fail,
        &["year-to-date gross went backwards: 42,000.00 on 2026-10-23, 39,000.00 on 2026-11-06"],
    );
    assert_eq!(results[0].as_ref().unwrap().verdict, Verdict::Clean);

    // The stubs as the income rules' input, and the fingerprints and deposit match.
    let analyses: Vec<&Analysis> = results.iter().map(|r| r.as_ref().unwrap()).collect();
    let income = domain::documents::income::provider_income(&analyses, d("2026-11-28")).unwrap();
    assert_eq!(income.method, VerificationMethod::Document);
    assert_eq!(income.as_of, d("2026-11-06"));
    // No document date moves the as-of date past the report's day.
    let early = domain::documents::income::provider_income(&analyses, d("2026-11-01")).unwrap();
    assert_eq!(early.as_of, d("2026-11-01"));
    let source = &income.sources[0];
    assert_eq!(
        (source.name.as_str(), source.category.as_str()),
        ("Acme Widgets Inc", "SALARY")
    );
    assert_eq!(
        (source.pay_rate, source.pay_frequency),
        (Some(2000.0), Some(PayFrequency::Biweekly))
    );
    assert_eq!(
        source.payments.iter().map(|p| p.date).collect::<Vec<_>>(),
        [d("2026-10-23"), d("2026-11-06")]
    );
    // A single stub counts at its stated pay and frequency, by the domain's rules.
    let single =
        domain::documents::income::provider_income(&analyses[..1], d("2026-11-28")).unwrap();
    let streams = domain::income::streams::group(&single);
    match rules::assess(&streams[0], &single) {
        rules::Assessment::Counted(counted) => {
            assert_eq!(counted.reason, Some(rules::CountReason::StatedPay));
            assert_eq!(counted.monthly_cents, 433_333);
        }
        other => panic!("a single stub is not counted: {other:?}"),
    }
    let key = b"fingerprint key";
    assert_eq!(
        file_fingerprint(key, &first),
        file_fingerprint(key, &first.clone())
    );
    assert_ne!(
        file_fingerprint(key, &first),
        file_fingerprint(b"other key", &first)
    );
    let stub = stub_of(analyses[0]);
    let reprinted = analyse(&cairo_pdf("series_1", &first), None).unwrap();
    assert_eq!(
        stub_fingerprint(key, stub),
        stub_fingerprint(key, stub_of(&reprinted)),
        "the same figures, another file"
    );
    let deposit = |date: &str, cents| domain::documents::Deposit {
        date: d(date),
        cents,
        payer: "ACME".into(),
    };
    assert_eq!(
        deposit_match(stub, &[deposit("2026-10-24", 146_700)]).result,
        CheckResult::Pass
    );
    let miss = deposit_match(
        stub,
        &[
            deposit("2026-10-24", 120_000),
            deposit("2026-11-02", 146_700),
        ],
    );
    assert_eq!(miss.result, CheckResult::Fail, "{}", miss.evidence);
    assert!(
        miss.evidence
            .contains("no deposit within 4 days of 2026-10-23 and 1% of net pay 1,467.00"),
        "{}",
        miss.evidence
    );
}

#[test]
fn scans_and_photos_are_undetermined_so_the_tenant_types_the_figures() {
    if !browser_available() {
        return;
    }
    let genuine = chromium_pdf("scan_base", &Stub::new("2026-11-06", 22).adp_html());
    let jpeg = page_jpeg("scan", &genuine);
    let scan = edits::scan_pdf(&jpeg, 850, 1100, None);
    let recognised = edits::scan_pdf(
        &jpeg,
        850,
        1100,
        Some("Earnings Statement Net Pay $1,467.00"),
    );
    let png = page_png("photo", &genuine);
    for (bytes, evidence) in [
        (scan, "page 1 has no text, images cover 100% of it"),
        (
            recognised,
            "page 1 has text over an image, images cover 100% of it",
        ),
        (jpeg, "a JPEG image: no text to read"),
        (png, "a PNG image: no text to read"),
    ] {
        let a = analyse(&bytes, Some(TENANT)).unwrap();
        assert_eq!(
            (a.kind, a.verdict),
            (DocumentKind::Photo, Verdict::Undetermined)
        );
        assert_check(&a, names::TEXT_LAYER, CheckResult::Unknown, &[evidence]);
        assert!(a.reason.as_deref().unwrap().contains("photo or a scan"));
    }
}

/// The cross-source check: with a bank statement in the same set, each stub's net pay must be a
/// deposit from its employer within the window; a statement of another account proves nothing.
#[test]
fn a_stubs_net_pay_is_matched_to_its_employers_deposit_on_a_statement_of_the_set() {
    if !browser_available() {
        return;
    }
    let stubs: Vec<Vec<u8>> = [("2026-10-09", 20), ("2026-10-23", 21)]
        .iter()
        .map(|(date, n)| {
            chromium_pdf(
                &format!("deposit-stub-{n}"),
                &Stub::new(date, *n).adp_html(),
            )
        })
        .collect();
    let statement = |name: &str, rows: &[(&str, &str, i64)]| {
        chromium_pdf(name, &statement_html("Jane Q. Doe", rows))
    };
    let payer = "ACME WIDGETS INC DIR DEP PPD ID: 4410";
    let matching = statement(
        "deposits-matching",
        &[("10/09", payer, 146_700), ("10/23", payer, 146_700)],
    );
    // The stubs' net pay is 1,467.00; the employer paid 1,200.00 on 10/23.
    let short = statement(
        "deposits-short",
        &[("10/09", payer, 146_700), ("10/23", payer, 120_000)],
    );
    let elsewhere = statement("deposits-elsewhere", &[("10/15", "VENMO CASHOUT", 30_000)]);
    let set = |statement: &[u8]| {
        analyse_set(&[&stubs[0], &stubs[1], statement], Some(TENANT))
            .into_iter()
            .map(Result::unwrap)
            .collect::<Vec<Analysis>>()
    };
    let both = set(&matching);
    for a in &both[..2] {
        assert_eq!(a.verdict, Verdict::Clean, "{:#?}", a.checks);
        assert_check(
            a,
            names::DEPOSIT_MATCH,
            CheckResult::Pass,
            &["net pay 1,467.00", "from ACME WIDGETS INC"],
        );
    }
    assert!(
        both[2].check(names::DEPOSIT_MATCH).is_none(),
        "a statement is not compared"
    );
    let short = set(&short);
    assert_eq!(short[0].verdict, Verdict::Clean);
    assert_eq!(
        short[1].verdict,
        Verdict::Inconsistent,
        "{:#?}",
        short[1].checks
    );
    assert_check(
        &short[1],
        names::DEPOSIT_MATCH,
        CheckResult::Fail,
        &[
            "no deposit within 4 days of 2026-10-23",
            "the nearest 1,200.00 on 2026-10-23",
        ],
    );
    for a in &set(&elsewhere)[..2] {
        assert_eq!(a.verdict, Verdict::Clean, "{:#?}", a.checks);
        assert_check(
            a,
            names::DEPOSIT_MATCH,
            CheckResult::NotApplicable,
            &["no deposit from Acme Widgets Inc"],
        );
    }
}
