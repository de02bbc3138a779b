//! The journey's lines around the method to connect: why the last method was left, the income
//! held so far with its finishing button, the "add another income source" box and the "use
//! another way" button. Pure functions of the journey (`domain::journey`).

use super::documents::with_section;
use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::income::VerificationMethod;
use domain::journey::{Connect, Open};
use domain::methods::AttemptOutcome;

/// The lines above the next method's choices: why the last method was left, and, once income
/// is held, that it is in and how to finish with it (`held_section`).
pub(super) fn retry_notice(open: &Open, link: &str) -> String {
    let Some(last) = &open.last_try else {
        return String::new();
    };
    let how = esc(last.method.words());
    let line = match last.outcome {
        AttemptOutcome::Abandoned => {
            format!("You left connecting by {how}. Your consent stands: carry on below.")
        }
        AttemptOutcome::NoIncome => format!(
            "Connecting by {how} found no income we could count. Nothing is lost: try another way below."
        ),
        AttemptOutcome::Succeeded => format!(
            "Your income from {how} is in. Add another income source below, or finish and share now."
        ),
        AttemptOutcome::Failed => {
            format!("Connecting by {how} did not work. Nothing is lost: try another way below.")
        }
    };
    format!(
        r#"<p class="notice" role="status">{line}</p>{}"#,
        held_section(open, link)
    )
}

/// Once income is held: the methods it came from, and the button that builds the report from
/// it (`action=finish`). Empty before.
fn held_section(open: &Open, link: &str) -> String {
    let Some(held) = &open.held else {
        return String::new();
    };
    let held: Vec<&str> = held.methods.iter().map(|m| m.words()).collect();
    format!(
        r#"<form method="post" action="{link}" class="finish">
<input type="hidden" name="action" value="finish">
<p class="small">Income in so far: {held}. A job seen by two methods is counted once.</p>
<button type="submit">Finish and share my income</button>
</form>"#,
        link = esc(link),
        held = esc(&held.join(", ")),
    )
}

/// The "add another income source" box of the connection form (`id="connect"`), when another
/// method follows the one to connect: ticked, the income found is held for the next one.
pub(super) fn more_box(connect: &Connect) -> &'static str {
    match connect.next {
        Some(_) => {
            r#"<p class="check"><input type="checkbox" id="more" name="more" value="yes" form="connect"> <label for="more">Add another income source after this one (a second job, or pay stubs)</label></p>"#
        }
        None => "",
    }
}

/// `resp` with the "use another way" button below its own form: one click records the method
/// to connect as `abandoned` and offers the next one, consent kept. As it was when no other
/// method follows.
pub(super) fn with_switch(connect: &Connect, link: &str, resp: ApiResponse) -> ApiResponse {
    let Some(next) = connect.next else {
        return resp;
    };
    let label = match next {
        VerificationMethod::Bank => "connect your bank instead",
        VerificationMethod::Payroll => "connect your payroll account instead",
        VerificationMethod::Document => "upload documents instead",
    };
    let form = format!(
        r#"<form method="post" action="{link}" class="switch">
<input type="hidden" name="action" value="switch_method">
<input type="hidden" name="method" value="{method}">
<p>Did not finish, or prefer another way? <button type="submit">Use another way: {label}</button></p>
</form>"#,
        link = esc(link),
        method = next.as_str(),
    );
    with_section(resp, &form, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::journey::Held;
    use domain::methods::MethodAttempt;

    fn open(last: Option<(VerificationMethod, AttemptOutcome)>, held: bool) -> Open {
        Open {
            open: vec![],
            connect: None,
            last_try: last.map(|(method, outcome)| MethodAttempt {
                method,
                outcome,
                at: chrono::Utc::now(),
            }),
            held: held.then(|| Held {
                methods: vec![VerificationMethod::Bank],
                with_documents: false,
            }),
            uploads: None,
            typed_figures: vec![],
        }
    }

    #[test]
    fn the_notice_says_why_the_last_method_was_left() {
        use AttemptOutcome::*;
        use VerificationMethod::*;
        assert_eq!(retry_notice(&open(None, false), "/t"), "");
        let failed = retry_notice(&open(Some((Bank, Failed)), false), "/t");
        assert!(failed.contains("by bank did not work"), "{failed}");
        let left = retry_notice(&open(Some((Bank, Abandoned)), false), "/t");
        assert!(left.contains("You left connecting by bank"), "{left}");
        let held = retry_notice(&open(Some((Bank, Succeeded)), true), "/t");
        assert!(
            held.contains("Income in so far: bank.") && held.contains("action\" value=\"finish\"")
        );
    }
}
