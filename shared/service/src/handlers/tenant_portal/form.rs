//! The page's forms as the OpenAPI file describes them: a form outside that description (a
//! value outside an enum, a missing field its action requires, a malformed date or amount, a note
//! longer than the form can send) is refused whatever the verification's state, with the page as
//! it is and a notice, as a 400. A form inside it may still not fit the state: each action then
//! answers the page as it now is.

use std::collections::HashMap;

use chrono::NaiveDate;

use crate::handlers::tenant_portal::documents::{STATED_PAY_NOTICE, is_amount};
use crate::handlers::tenant_portal::report_copy::{NoteProblem, note_fits_form};
use crate::sandbox::is_scenario;
use domain::income::VerificationMethod;
use domain::tenant_identity;

/// The notice of a consent form without its tick (or with another value).
const AGREE_NOTICE: &str = "Please tick the box to agree before continuing.";
/// The notice of a scenario outside the sandbox's.
pub(super) const SCENARIO_NOTICE: &str = "Please choose one of the options.";

/// The notice of a "use another way" form without one of the methods.
const METHOD_NOTICE: &str = "Please use one of the buttons on the page.";

/// The notice of an "add another income source" box with another value than the page's.
const MORE_NOTICE: &str = "Please tick the box, or leave it empty, and try again.";

/// The pay frequencies the stated-pay form offers.
pub(super) const FREQUENCIES: [&str; 4] = ["weekly", "biweekly", "semi_monthly", "monthly"];

/// Why a form is outside the page's forms, as the tenant reads it; None when it is one of them.
pub(super) fn out_of_form(form: &HashMap<String, String>) -> Option<String> {
    let field = |name: &str| form.get(name).map(String::as_str);
    let action = field("action");
    if field("agree").is_some_and(|a| a != "yes")
        || (action == Some("consent") && field("agree").is_none())
    {
        return Some(AGREE_NOTICE.into());
    }
    if field("more").is_some_and(|m| m != "yes") {
        return Some(MORE_NOTICE.into());
    }
    if field("scenario").is_some_and(|s| !is_scenario(s)) {
        return Some(SCENARIO_NOTICE.into());
    }
    if field("method").is_none_or(|m| VerificationMethod::parse(m).is_none())
        && (action == Some("switch_method") || field("method").is_some())
    {
        return Some(METHOD_NOTICE.into());
    }
    if !tenant_identity::fields_well_formed(form) {
        return Some(tenant_identity::IDENTITY_NOTICE.into());
    }
    if field("note").is_some_and(|n| !note_fits_form(n)) {
        return Some(NoteProblem::TooLong.message());
    }
    if action == Some("note") && field("note").is_none_or(str::is_empty) {
        return Some(NoteProblem::Empty.message());
    }
    let stated_pay_malformed = field("frequency").is_some_and(|f| !FREQUENCIES.contains(&f))
        || field("pay_date").is_some_and(|d| !is_date(d))
        || field("gross").is_some_and(|a| !is_amount(a))
        || field("net").is_some_and(|a| !is_amount(a))
        || (action == Some("state_pay")
            && ["document", "pay_date", "gross", "net", "frequency"]
                .iter()
                .any(|name| field(name).is_none()));
    stated_pay_malformed.then(|| STATED_PAY_NOTICE.into())
}

/// A full date as `YYYY-MM-DD` (the OpenAPI `date` format), nothing around it.
fn is_date(raw: &str) -> bool {
    raw.len() == 10 && NaiveDate::parse_from_str(raw, "%Y-%m-%d").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_page_s_own_forms_pass() {
        for pairs in [
            vec![("action", "consent"), ("agree", "yes")],
            vec![
                ("action", "consent"),
                ("agree", "yes"),
                ("first_name", "Jane"),
                ("last_name", "Tenant"),
                ("phone", "+1 (415) 555-0123"),
                ("date_of_birth", "1990-04-12"),
                ("street", "1 Main St"),
                ("city", "Oakland"),
                ("region", "CA"),
                ("postal_code", "94612"),
            ],
            vec![("action", "connect"), ("scenario", "good")],
            vec![("action", "connect"), ("scenario", "good"), ("more", "yes")],
            vec![("action", "finish")],
            vec![("action", "start")],
            vec![("action", "note"), ("note", "Job starts in May")],
            vec![("action", "finish_documents")],
            vec![("action", "switch_method"), ("method", "payroll")],
            vec![("action", "switch_method"), ("method", "document")],
            vec![
                ("action", "state_pay"),
                ("document", "d1"),
                ("pay_date", "2026-10-30"),
                ("gross", "$2,400.50"),
                ("net", "1800"),
                ("frequency", "biweekly"),
            ],
        ] {
            assert_eq!(out_of_form(&form(&pairs)), None, "{pairs:?}");
        }
    }

    #[test]
    fn a_form_outside_the_page_s_is_refused_with_its_notice() {
        let stated = |field: &str, value: &str| {
            let mut f = form(&[
                ("action", "state_pay"),
                ("document", "d1"),
                ("pay_date", "2026-10-30"),
                ("gross", "2400"),
                ("net", "1800"),
                ("frequency", "biweekly"),
            ]);
            f.insert(field.into(), value.into());
            f
        };
        let cases = [
            (form(&[("action", "consent")]), AGREE_NOTICE.to_string()),
            (
                form(&[("action", "note"), ("agree", "no")]),
                AGREE_NOTICE.into(),
            ),
            (
                form(&[("action", "connect"), ("scenario", "nope")]),
                SCENARIO_NOTICE.into(),
            ),
            (form(&[("action", "note")]), NoteProblem::Empty.message()),
            (form(&[("action", "switch_method")]), METHOD_NOTICE.into()),
            (
                form(&[("action", "connect"), ("more", "no")]),
                MORE_NOTICE.into(),
            ),
            (
                form(&[("action", "switch_method"), ("method", "Payroll")]),
                METHOD_NOTICE.into(),
            ),
            (
                form(&[("action", "start"), ("method", "crypto")]),
                METHOD_NOTICE.into(),
            ),
            (
                form(&[("action", "note"), ("note", "")]),
                NoteProblem::Empty.message(),
            ),
            (
                form(&[("action", "start"), ("note", &"a".repeat(1001))]),
                NoteProblem::TooLong.message(),
            ),
            (
                form(&[
                    ("action", "consent"),
                    ("agree", "yes"),
                    ("date_of_birth", "4/12/1990"),
                ]),
                tenant_identity::IDENTITY_NOTICE.into(),
            ),
            (
                form(&[
                    ("action", "consent"),
                    ("agree", "yes"),
                    ("postal_code", "9461"),
                ]),
                tenant_identity::IDENTITY_NOTICE.into(),
            ),
            (stated("frequency", "daily"), STATED_PAY_NOTICE.into()),
            (stated("pay_date", "30/10/2026"), STATED_PAY_NOTICE.into()),
            (stated("pay_date", " 2026-10-30"), STATED_PAY_NOTICE.into()),
            (stated("gross", "lots"), STATED_PAY_NOTICE.into()),
            (stated("net", "1.234"), STATED_PAY_NOTICE.into()),
            (
                form(&[("action", "state_pay"), ("document", "d1")]),
                STATED_PAY_NOTICE.into(),
            ),
        ];
        for (f, notice) in cases {
            assert_eq!(out_of_form(&f), Some(notice), "{f:?}");
        }
    }
}
