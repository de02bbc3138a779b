//! The sandbox's ready sample documents: a genuine pay stub, the stub before it, a copy edited
//! each way the checks look for, and a scan, so a landlord trying the service sees every
//! verdict. The tenant page of a test verification offers them for download; uploaded again,
//! they go through the same analysis as any file.
//!
//! Each sample carries the tenant's own name (except the one that must not) and figures drawn
//! from the verification's id, so two verifications never share a sample's fingerprints: the
//! reuse check stays quiet for samples, as it would for two real tenants' stubs.

pub mod edits;
pub mod stub;

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use uuid::Uuid;

use stub::{SampleStub, amount};

/// One sample document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    Genuine,
    Earlier,
    AppendedEdit,
    EditingTool,
    Annotation,
    OtherFont,
    Arithmetic,
    YearToDate,
    OtherName,
    Scan,
}

impl Sample {
    pub const ALL: [Sample; 10] = [
        Sample::Genuine,
        Sample::Earlier,
        Sample::AppendedEdit,
        Sample::EditingTool,
        Sample::Annotation,
        Sample::OtherFont,
        Sample::Arithmetic,
        Sample::YearToDate,
        Sample::OtherName,
        Sample::Scan,
    ];

    /// The sample's name in its download path (`.../samples/<slug>.pdf`).
    pub fn slug(self) -> &'static str {
        match self {
            Sample::Genuine => "genuine",
            Sample::Earlier => "earlier",
            Sample::AppendedEdit => "appended-edit",
            Sample::EditingTool => "editing-tool",
            Sample::Annotation => "annotation",
            Sample::OtherFont => "other-font",
            Sample::Arithmetic => "arithmetic",
            Sample::YearToDate => "year-to-date",
            Sample::OtherName => "other-name",
            Sample::Scan => "scan",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Sample> {
        Sample::ALL.into_iter().find(|s| s.slug() == slug)
    }

    /// What the sample is, as the page lists it.
    pub fn title(self) -> &'static str {
        match self {
            Sample::Genuine => "A genuine pay stub",
            Sample::Earlier => "The genuine stub two weeks before it",
            Sample::AppendedEdit => "The net pay changed in an update appended to the file",
            Sample::EditingTool => "Saved again by a PDF editor",
            Sample::Annotation => "The net pay covered by an annotation",
            Sample::OtherFont => "The net pay drawn in another font",
            Sample::Arithmetic => "A net pay that is not gross less deductions",
            Sample::YearToDate => {
                "Year-to-date figures lower than the stub before (upload with it)"
            }
            Sample::OtherName => "Someone else's pay stub",
            Sample::Scan => "A scan, with no text to read",
        }
    }

    /// The verdict the analysis gives the sample, and the checks it fails (none for the
    /// genuine stubs and the scan, which can't be checked).
    pub fn shows(self) -> (super::Verdict, &'static [&'static str]) {
        use super::Verdict::{Clean, Edited, Inconsistent, Undetermined};
        use super::names;
        match self {
            Sample::Genuine | Sample::Earlier => (Clean, &[]),
            // The new figure is drawn over the old one, in an appended revision.
            Sample::AppendedEdit => (Edited, &[names::INCREMENTAL_UPDATES, names::OVERLAYS]),
            // An editor's save is also a modification after the creation.
            Sample::EditingTool => (
                Edited,
                &[names::MODIFIED_AFTER_CREATION, names::EDITING_TOOL],
            ),
            Sample::Annotation => (Edited, &[names::OVERLAYS]),
            // What a reading check finds, a genuine document can show too: a review, not "edited".
            Sample::OtherFont => (Inconsistent, &[names::FONT_CONSISTENCY]),
            Sample::Arithmetic => (Inconsistent, &[names::NET_PAY_ARITHMETIC]),
            Sample::YearToDate => (Inconsistent, &[names::YEAR_TO_DATE]),
            Sample::OtherName => (Inconsistent, &[names::IDENTITY]),
            Sample::Scan => (Undetermined, &[]),
        }
    }

    /// The file name a download gets.
    pub fn file_name(self) -> String {
        format!("sample-{}.pdf", self.slug())
    }
}

/// Employers the samples are drawn from.
const EMPLOYERS: [&str; 4] = [
    "Northwind Logistics Inc",
    "Bluebird Health LLC",
    "Cedar Valley Schools Corp",
    "Harbor Light Foods Inc",
];

/// The genuine stub of a verification: its employer and pay from the id, paid on the last
/// Friday at least two days before `today`.
fn genuine(verification_id: Uuid, tenant_name: &str, today: NaiveDate) -> SampleStub {
    let seed = verification_id.as_bytes();
    let mut pay_date = today - Duration::days(2);
    while pay_date.weekday() != Weekday::Fri {
        pay_date -= Duration::days(1);
    }
    // Biweekly pays fall on the same Fridays all year: the first one of the year on or after
    // January 2nd, then every 14 days.
    let day = (pay_date.ordinal0() % 14) as i64;
    if day < 7 {
        pay_date -= Duration::days(7);
    }
    let created = pay_date - Duration::days(3);
    SampleStub {
        employer: EMPLOYERS[usize::from(seed[0]) % EMPLOYERS.len()].to_string(),
        employee: tenant_name.to_string(),
        pay_date,
        gross: 180_000 + i64::from(seed[1] % 40) * 2_500,
        net_error: 0,
        ytd_error: 0,
        net_in_other_font: false,
        created: (created, 9),
    }
}

/// The sample's PDF for this verification's tenant; None only when an edit could not be made.
pub fn sample_pdf(
    sample: Sample,
    verification_id: Uuid,
    tenant_name: &str,
    today: NaiveDate,
) -> Option<Vec<u8>> {
    let stub = genuine(verification_id, tenant_name, today);
    let higher = |s: &SampleStub| format!("${}", amount(s.net() + 45_000));
    match sample {
        Sample::Genuine => Some(stub.pdf()),
        Sample::Earlier => Some(earlier(&stub).pdf()),
        Sample::AppendedEdit => {
            edits::incremental_overlay(&stub.pdf(), &stub.printed_net(), &higher(&stub))
        }
        Sample::EditingTool => edits::resaved_by(&stub.pdf(), "iLovePDF"),
        Sample::Annotation => edits::annotated(&stub.pdf(), &stub.printed_net(), &higher(&stub)),
        // The figure itself still adds up: the font alone gives the edit away.
        Sample::OtherFont => Some(
            SampleStub {
                net_in_other_font: true,
                ..stub
            }
            .pdf(),
        ),
        Sample::Arithmetic => Some(
            SampleStub {
                net_error: 45_000,
                ..stub
            }
            .pdf(),
        ),
        // The genuine stub's figures with a year to date below the earlier stub's.
        Sample::YearToDate => Some(
            SampleStub {
                ytd_error: -(stub.gross * 3),
                ..stub
            }
            .pdf(),
        ),
        Sample::OtherName => Some(
            SampleStub {
                employee: "Morgan T. Avery".into(),
                ..stub
            }
            .pdf(),
        ),
        Sample::Scan => edits::scan_pdf(scanned_page(), None),
    }
}

/// The stub paid two weeks before.
fn earlier(stub: &SampleStub) -> SampleStub {
    let pay_date = stub.pay_date - Duration::days(14);
    SampleStub {
        pay_date,
        created: (pay_date - Duration::days(3), 9),
        ..stub.clone()
    }
}

/// A page as a scanner sees it: grey bars where the lines of text were, no text layer.
fn scanned_page() -> lopdf::Stream {
    const WIDTH: usize = 204;
    const HEIGHT: usize = 264;
    let row_bytes = WIDTH.div_ceil(8);
    let mut rows = vec![0xffu8; row_bytes * HEIGHT];
    // Lines of "text": dark runs of varying length every 8 rows, 3 rows high.
    for line in 0..26 {
        let top = 20 + line * 9;
        let length = 40 + (line * 37) % 130;
        for y in top..top + 3 {
            for x in 16..16 + length {
                rows[y * row_bytes + x / 8] &= !(0x80 >> (x % 8));
            }
        }
    }
    edits::bitmap_image(WIDTH as i64, HEIGHT as i64, rows)
}
