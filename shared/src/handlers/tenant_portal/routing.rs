//! Routing between methods on the tenant page: when a connection fails or finds no income and
//! another of the verification's methods remains, the try is recorded (`Transition::Attempt`)
//! and the page offers the next method, consent kept. Otherwise the verification completes or
//! fails as the connection decides, and a report made after routing records every try.

use chrono::{DateTime, Utc};

use crate::handlers::html::esc;
use crate::http::ApiResponse;
use domain::income::{ProviderIncome, VerificationMethod};
use domain::methods::{self, AttemptOutcome, MethodAttempt};
use domain::report::IncomeReport;
use domain::{Mode, Transition, Verification};
use ports::{AccountStore, Clock, IncomeProvider, ProviderError, StoreError, UploadSigner};

use super::actions::{not_now, write_then_show};
use super::{PageError, PortalDeps, PortalStore, Visit, current_page, uses_scenarios};

/// The methods this page can serve `v`: the sandbox's where the tenant picks scenarios, else the
/// live provider's, and uploaded documents where the stack has a documents bucket.
fn served<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Vec<VerificationMethod> {
    let mode = if uses_scenarios(deps, v) {
        Mode::Test
    } else {
        Mode::Live
    };
    methods::available(
        Some(deps.live_provider.method()),
        mode,
        deps.uploads.is_some(),
    )
}

/// The methods this page routes `v` between: the verification's own (named at create, or the
/// account's default stored at consent), else every method the page can serve, in order.
pub(super) fn routable<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Vec<VerificationMethod> {
    methods::effective(&v.methods, &[], &served(deps, v))
}

/// The methods the consent stores on `v`: for a verification created without its own, its
/// account's default set less what this page cannot serve (`methods::from_account_default`);
/// nothing to store otherwise. The account is read only then.
pub(super) async fn methods_at_consent<S: AccountStore, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Result<Vec<VerificationMethod>, StoreError> {
    if !v.methods.is_empty() {
        return Ok(vec![]);
    }
    let default = deps.store.get_default_methods(&v.account_id).await?;
    Ok(methods::from_account_default(&default, &served(deps, v)))
}

/// Whether the page offers `v` uploaded documents: the stack takes them and they are one of
/// the verification's methods.
pub(super) fn offers_documents<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> bool {
    routable(deps, v).contains(&VerificationMethod::Document)
}

/// The method the page offers to connect now: the first of `v`'s open methods other than
/// uploaded documents, which the page offers beside it. None when only documents remain.
pub(super) fn current<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Option<VerificationMethod> {
    methods::remaining(&routable(deps, v), &v.method_attempts)
        .into_iter()
        .find(|m| *m != VerificationMethod::Document)
}

/// Where "use another way" leads from the method offered now: the next of `v`'s open methods.
/// None when nothing is offered now or nothing follows it.
pub(super) fn next_way<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Option<(VerificationMethod, VerificationMethod)> {
    let now = current(deps, v)?;
    let next = methods::remaining(&routable(deps, v), &v.method_attempts)
        .into_iter()
        .find(|m| *m != now)?;
    Some((now, next))
}

/// The "add another income source" box of the connection form (`id="connect"`), when another
/// method follows the one offered now: ticked, the income found is held for the next one.
pub(super) fn more_box<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> &'static str {
    match next_way(deps, v) {
        Some(_) => {
            r#"<p class="check"><input type="checkbox" id="more" name="more" value="yes" form="connect"> <label for="more">Add another income source after this one (a second job, or pay stubs)</label></p>"#
        }
        None => "",
    }
}

/// `resp` with the "use another way" button below its own form: one click records the method
/// offered now as `abandoned` and offers the next one, consent kept. As it was when no other
/// method remains.
pub(super) fn with_switch<S, C, P: IncomeProvider, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
    link: &str,
    resp: ApiResponse,
) -> ApiResponse {
    let Some((_, next)) = next_way(deps, v) else {
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
    super::documents::with_section(resp, &form, None)
}

/// The "use another way" POST: the method offered now is recorded as `abandoned` (one
/// conditional write on the tries as read, consent kept) when `method` is the next one; a form
/// that no longer fits (another tab switched, or nothing follows) shows the page as it now is.
pub(super) async fn switch_method<S: PortalStore, C: Clock, P: IncomeProvider, U: UploadSigner>(
    deps: &PortalDeps<S, C, P, U>,
    v: Verification,
    form: &std::collections::HashMap<String, String>,
    visit: &Visit<'_>,
) -> Result<ApiResponse, PageError> {
    if let Some(page) = not_now(deps, &v, visit).await {
        return page;
    }
    let asked = form
        .get("method")
        .and_then(|m| VerificationMethod::parse(m));
    let Some((left, _)) = next_way(deps, &v).filter(|(_, next)| Some(*next) == asked) else {
        return current_page(deps, &v, visit).await;
    };
    let transition = Transition::Attempt {
        attempt: MethodAttempt {
            method: left,
            outcome: AttemptOutcome::Abandoned,
            at: visit.now,
        },
    };
    write_then_show(deps, &v, &transition, visit, |_| {
        tracing::info!(method = left.as_str(), "tenant chose another way");
    })
    .await
}

/// A report made after routing records every try, `method`'s last with its `outcome`.
pub(super) fn record_attempts(
    v: &Verification,
    report: &mut IncomeReport,
    method: VerificationMethod,
    outcome: AttemptOutcome,
    now: DateTime<Utc>,
) {
    if !v.method_attempts.is_empty() {
        report.attempts = v.method_attempts.clone();
        report.attempts.push(MethodAttempt {
            method,
            outcome,
            at: now,
        });
    }
}

/// What a connection of `method` leads to: a transition, or None when the provider is
/// unavailable (the tenant tries again later; nothing is written). With `more` ("add another
/// income source") and another method open, income found is held (`Transition::Hold`); without,
/// the report counts it with any income held before. Once income is held, a refused or empty
/// connection is only recorded: the tenant may still finish with what is held.
pub(super) fn decide(
    v: &Verification,
    method: VerificationMethod,
    routable: &[VerificationMethod],
    income: Result<ProviderIncome, ProviderError>,
    (now, more): (DateTime<Utc>, bool),
    build: impl Fn(&ProviderIncome) -> IncomeReport,
) -> Option<Transition> {
    let held = v.held_income.as_ref();
    let others_remain = methods::remaining(routable, &v.method_attempts)
        .iter()
        .any(|m| *m != method);
    let attempt = |outcome| MethodAttempt {
        method,
        outcome,
        at: now,
    };
    match income {
        Ok(income) => {
            let own = build(&income);
            let no_income = own.income_sources.is_empty();
            if no_income && (others_remain || held.is_some()) {
                tracing::info!(method = method.as_str(), "no income: next method offered");
                return Some(Transition::Attempt {
                    attempt: attempt(AttemptOutcome::NoIncome),
                });
            }
            if !no_income && more && others_remain {
                tracing::info!(
                    method = method.as_str(),
                    "income held: another source to add"
                );
                return Some(Transition::Hold {
                    attempt: attempt(AttemptOutcome::Succeeded),
                    income: Box::new(income),
                });
            }
            let outcome = if no_income {
                AttemptOutcome::NoIncome
            } else {
                AttemptOutcome::Succeeded
            };
            let mut report = match held {
                Some(held) => build(&income.joined(Some(held))),
                None => own,
            };
            record_attempts(v, &mut report, method, outcome, now);
            Some(Transition::Complete {
                report: Box::new(report),
            })
        }
        Err(ProviderError::Rejected(reason)) => {
            tracing::info!(reason = %reason, method = method.as_str(), "income provider could not verify income");
            Some(if others_remain || held.is_some() {
                Transition::Attempt {
                    attempt: attempt(AttemptOutcome::Failed),
                }
            } else {
                Transition::Fail {
                    reason: "income_unverifiable".into(),
                }
            })
        }
        Err(ProviderError::Unavailable(reason)) => {
            tracing::warn!(reason = %reason, "income provider unavailable");
            None
        }
    }
}

/// The lines above the next method's choices: why the last method was left, and, once income
/// is held, that it is in and how to finish with it (`held_section`).
pub(super) fn retry_notice(v: &Verification, link: &str) -> String {
    let Some(last) = v.method_attempts.last() else {
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
        held_section(v, link)
    )
}

/// Once income is held: the methods it came from, and the button that builds the report from
/// it (`action=finish`). Empty before.
fn held_section(v: &Verification, link: &str) -> String {
    if v.held_income.is_none() {
        return String::new();
    }
    let held: Vec<&str> = v
        .method_attempts
        .iter()
        .filter(|a| a.outcome == AttemptOutcome::Succeeded)
        .map(|a| a.method.words())
        .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use VerificationMethod::*;
    use domain::income::ProviderIncomeSource;
    use domain::report::build_report;
    use domain::{NewVerificationInput, VERIFICATION_LIFETIME};

    fn verification() -> Verification {
        Verification::new_pending(
            "a",
            Mode::Test,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                ..Default::default()
            },
            Utc::now(),
            VERIFICATION_LIFETIME,
        )
    }

    fn refused() -> Result<ProviderIncome, ProviderError> {
        Err(ProviderError::Rejected("x".into()))
    }

    fn build(income: &ProviderIncome) -> IncomeReport {
        build_report(income, None)
    }

    #[test]
    fn a_refusal_routes_while_a_method_remains_then_fails() {
        let v = verification();
        let now = Utc::now();
        let t = decide(&v, Bank, &[Bank, Payroll], refused(), (now, false), build).unwrap();
        let Transition::Attempt { attempt } = &t else {
            panic!("{t:?}")
        };
        assert_eq!(
            (attempt.method, attempt.outcome),
            (Bank, AttemptOutcome::Failed)
        );
        let tried = t.apply(&v, now);
        assert!(retry_notice(&tried, "/t").contains("by bank did not work"));
        let t = decide(
            &tried,
            Payroll,
            &[Bank, Payroll],
            refused(),
            (now, false),
            build,
        )
        .unwrap();
        assert!(matches!(t, Transition::Fail { .. }), "{t:?}");
        assert!(
            decide(&v, Bank, &[Bank], refused(), (now, false), build)
                .is_some_and(|t| matches!(t, Transition::Fail { .. }))
        );
    }

    #[test]
    fn every_method_failed_or_abandoned_fails_the_verification() {
        let now = Utc::now();
        let mut v = verification();
        v.method_attempts = vec![MethodAttempt {
            method: Bank,
            outcome: AttemptOutcome::Abandoned,
            at: now,
        }];
        assert!(retry_notice(&v, "/t").contains("You left connecting by bank"));
        let all = [Bank, Payroll, Document];
        // Documents remain after payroll: a refusal routes to them.
        let t = decide(&v, Payroll, &all, refused(), (now, false), build).unwrap();
        assert!(matches!(t, Transition::Attempt { .. }), "{t:?}");
        // With bank abandoned, payroll's refusal leaves nothing: the verification fails.
        let t = decide(
            &v,
            Payroll,
            &[Bank, Payroll],
            refused(),
            (now, false),
            build,
        )
        .unwrap();
        assert!(matches!(t, Transition::Fail { .. }), "{t:?}");
        // An abandoned method is no longer open.
        assert_eq!(
            methods::remaining(&all, &v.method_attempts),
            vec![Payroll, Document]
        );
    }

    #[test]
    fn no_income_routes_and_the_report_after_routing_records_every_try() {
        let v = verification();
        let now = Utc::now();
        let empty = Ok(ProviderIncome::empty(Bank, now.date_naive()));
        let t = decide(&v, Bank, &[Bank, Payroll], empty, (now, false), build).unwrap();
        let tried = t.apply(&v, now);
        assert_eq!(tried.method_attempts[0].outcome, AttemptOutcome::NoIncome);
        let paid = ProviderIncome {
            sources: vec![ProviderIncomeSource::on_cycle(
                "Job",
                "SALARY",
                domain::income::PayFrequency::Monthly,
                now.date_naive(),
                6,
                |_| 1000.0,
            )],
            ..ProviderIncome::empty(Payroll, now.date_naive())
        };
        let Transition::Complete { report } = decide(
            &tried,
            Payroll,
            &[Bank, Payroll],
            Ok(paid),
            (now, false),
            build,
        )
        .unwrap() else {
            panic!()
        };
        let tries: Vec<_> = report
            .attempts
            .iter()
            .map(|a| (a.method, a.outcome))
            .collect();
        assert_eq!(
            tries,
            vec![
                (Bank, AttemptOutcome::NoIncome),
                (Payroll, AttemptOutcome::Succeeded)
            ]
        );
        // Without routing the report names no tries.
        assert!(report.attempts.len() == 2 && v.method_attempts.is_empty());
        assert!(
            decide(
                &v,
                Bank,
                &[Bank],
                Err(ProviderError::Unavailable("x".into())),
                (now, false),
                build
            )
            .is_none()
        );
    }
}
