//! A second method on the tenant page ("add another income source"), against the in-memory
//! store: a connection's income held while the tenant adds another, the report built once they
//! finish, and a job seen by two methods counted once.

use domain::Status;
use domain::documents::record::DocumentState;
use domain::income::AmountsBasis;
use domain::income::VerificationMethod::*;
use domain::income::rules::ExclusionReason;
use domain::methods::AttemptOutcome;
use domain::{Transition, Verification};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use service::handlers::analyze_document::analyze_documents;

use crate::documents_flow::{PNG, rig_with};
use crate::portal_routing::{consent, page, page_deps, pending, stored};

const MORE_BOX: &str = r#"name="more" value="yes""#;

fn tries(v: &Verification) -> Vec<(domain::income::VerificationMethod, AttemptOutcome)> {
    let report = v.income_report.as_ref().expect("a report");
    report
        .attempts
        .iter()
        .map(|a| (a.method, a.outcome))
        .collect()
}

#[tokio::test]
async fn payroll_then_documents_of_a_second_job_counts_both() {
    let rig = rig_with(vec![Payroll, Document], vec![]).await;
    assert!(rig.page(None).await.body.contains(MORE_BOX));
    let held = rig
        .page(Some("action=connect&scenario=payroll_active&more=yes"))
        .await;
    assert_eq!(held.status, 303, "{}", held.body);
    let v = rig.stored();
    assert_eq!(v.status, Status::InProgress, "held, not completed");
    assert!(v.held_income.is_some() && v.income_report.is_none());
    let p = rig.page(None).await;
    assert!(
        p.body.contains("Your income from payroll is in"),
        "{}",
        p.body
    );
    assert!(p.body.contains("Finish and share my income"));
    assert!(p.body.contains("Or upload documents"));

    // The second job's stub, a photo whose figures the tenant types.
    analyze_documents(&rig.analysis(), rig.upload("d1", &PNG, "e1")).await;
    assert_eq!(rig.stored().documents["d1"].state, DocumentState::Analysed);
    let typed =
        "action=state_pay&document=d1&pay_date=2026-03-06&gross=2500&net=1900&frequency=biweekly";
    assert_eq!(rig.page(Some(typed)).await.status, 303);
    let done = rig.page(Some("action=finish_documents")).await;
    assert_eq!(done.status, 303, "{}", done.body);
    let v = rig.stored();
    assert_eq!(v.status, Status::Completed);
    let report = v.income_report.clone().unwrap();
    // 5,200.00 from payroll counts at once; 2,500.00 every two weeks from the typed stub, a
    // second job, once the landlord accepts it.
    assert_eq!(report.total_monthly_income, 5200.0);
    assert_eq!(report.income_sources.len(), 1);
    assert!(report.excluded_sources.is_empty());
    let awaiting = report.awaiting_review.clone().unwrap();
    assert_eq!(awaiting.total_monthly_income_if_accepted, 10616.67);
    assert_eq!(report.methods_used, vec![Payroll, Document]);
    assert!(report.documents.is_some());
    assert_eq!(
        tries(&v),
        vec![
            (Payroll, AttemptOutcome::Succeeded),
            (Document, AttemptOutcome::Succeeded)
        ]
    );
}

#[tokio::test]
async fn bank_then_payroll_of_the_same_employer_counts_it_once() {
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[Bank, Payroll]);
    consent(&deps, &link).await;
    let held = page(
        &deps,
        &link,
        Some("action=connect&scenario=samejob&more=yes"),
    )
    .await;
    assert_eq!(held.status, 303, "{}", held.body);
    let p = page(&deps, &link, None).await;
    assert!(p.body.contains("Your income from bank is in"), "{}", p.body);
    assert!(
        p.body.contains("value=\"payroll_active\""),
        "payroll offered next"
    );
    assert!(!p.body.contains(MORE_BOX), "no third method to add");

    let done = page(&deps, &link, Some("action=connect&scenario=payroll_active")).await;
    assert_eq!(done.status, 303, "{}", done.body);
    let done = stored(&deps, &v);
    assert_eq!(done.status, Status::Completed);
    let report = done.income_report.clone().unwrap();
    // Payroll's 5,200.00 gross, once: not with the bank's 4,024.80 net deposits of the same pay.
    assert_eq!(report.total_monthly_income, 5200.0);
    assert_eq!(report.income_sources.len(), 1);
    let kept = &report.income_sources[0];
    assert_eq!(
        (kept.method, kept.amounts_basis),
        (Payroll, Some(AmountsBasis::Gross))
    );
    assert_eq!(kept.net_monthly_income, Some(4024.8));
    // One source, two sightings: payroll's stubs make the figure, the bank's deposits beside.
    let seen: Vec<_> = (kept.sightings.iter())
        .map(|s| (s.method, s.payment_count))
        .collect();
    assert_eq!(
        seen,
        vec![(Payroll, 24), (Bank, 24)],
        "{:?}",
        kept.sightings
    );
    let [duplicate] = report.excluded_sources.as_slice() else {
        panic!("{:?}", report.excluded_sources)
    };
    assert_eq!(duplicate.reason, ExclusionReason::Duplicate);
    assert_eq!(duplicate.method, Bank);
    assert_eq!(
        duplicate.duplicate_of.as_deref(),
        Some("Whole Goods Market")
    );
    assert!(duplicate.explanation.contains("counted once"));
    assert_eq!(report.methods_used, vec![Bank, Payroll]);
    assert_eq!(report.verification_method, Payroll);
    assert_eq!(
        tries(&done),
        vec![
            (Bank, AttemptOutcome::Succeeded),
            (Payroll, AttemptOutcome::Succeeded)
        ]
    );
    // The tenant's copy says it in plain words.
    let copy = page(&deps, &link, None).await.body;
    assert!(copy.contains("Verified by bank and payroll"), "{copy}");
    assert!(
        copy.contains("Not counted again: the same pay as"),
        "{copy}"
    );
    assert!(
        copy.contains("Seen by payroll: &quot;Whole Goods Market&quot;, 24 pays; bank:"),
        "{copy}"
    );
}

#[tokio::test]
async fn a_single_method_completes_at_once_as_before() {
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[Bank, Payroll]);
    consent(&deps, &link).await;
    assert!(page(&deps, &link, None).await.body.contains(MORE_BOX));
    let done = page(&deps, &link, Some("action=connect&scenario=good")).await;
    assert_eq!(done.status, 303);
    let done = stored(&deps, &v);
    assert_eq!(done.status, Status::Completed);
    assert!(done.held_income.is_none());
    let report = done.income_report.unwrap();
    assert_eq!(report.total_monthly_income, 5200.0);
    assert!(report.attempts.is_empty() && report.excluded_sources.is_empty());
    assert_eq!(report.methods_used, vec![Bank]);

    // With one method only, no box to add another; a "more" sent anyway completes.
    let (v, link) = pending(&deps, &[Bank]);
    consent(&deps, &link).await;
    assert!(!page(&deps, &link, None).await.body.contains(MORE_BOX));
    let done = page(&deps, &link, Some("action=connect&scenario=good&more=yes")).await;
    assert_eq!(done.status, 303);
    assert_eq!(stored(&deps, &v).status, Status::Completed);
    // A "more" outside the form's value is refused, whatever the state.
    let bad = page(&deps, &link, Some("action=connect&scenario=good&more=no")).await;
    assert_eq!(bad.status, 400);
}

#[tokio::test]
async fn with_income_held_an_empty_second_method_leaves_the_tenant_to_finish() {
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[Bank, Payroll]);
    consent(&deps, &link).await;
    // Finishing before anything is held shows the page as it is.
    assert_eq!(page(&deps, &link, Some("action=finish")).await.status, 200);
    let held = page(
        &deps,
        &link,
        Some("action=connect&scenario=samejob&more=yes"),
    )
    .await;
    assert_eq!(held.status, 303);
    // The last method finds no income: recorded, not the end of the verification.
    let empty = page(
        &deps,
        &link,
        Some("action=connect&scenario=payroll_terminated"),
    )
    .await;
    assert_eq!(empty.status, 303);
    let v_now = stored(&deps, &v);
    assert_eq!(v_now.status, Status::InProgress);
    let p = page(&deps, &link, None).await;
    assert!(p.body.contains("Finish and share my income"), "{}", p.body);
    let done = page(&deps, &link, Some("action=finish")).await;
    assert_eq!(done.status, 303, "{}", done.body);
    let done = stored(&deps, &v);
    assert_eq!(done.status, Status::Completed);
    let report = done.income_report.clone().unwrap();
    assert_eq!(report.total_monthly_income, 4024.8);
    assert_eq!(report.verification_method, Bank);
    assert_eq!(
        tries(&done),
        vec![
            (Bank, AttemptOutcome::Succeeded),
            (Payroll, AttemptOutcome::NoIncome)
        ]
    );
}

#[tokio::test]
async fn a_hold_and_a_completion_are_written_on_the_tries_as_read() {
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[Bank, Payroll]);
    consent(&deps, &link).await;
    // Two tabs read the page; one holds the bank's income first.
    let read = stored(&deps, &v);
    let held = page(
        &deps,
        &link,
        Some("action=connect&scenario=samejob&more=yes"),
    )
    .await;
    assert_eq!(held.status, 303);
    let now = crate::support::now();
    let income = service::sandbox::scenario_income("good", now.date_naive()).unwrap();
    let hold = Transition::Hold {
        attempt: domain::methods::MethodAttempt {
            method: Bank,
            outcome: AttemptOutcome::Succeeded,
            at: now,
        },
        income: Box::new(income.clone()),
    };
    let stale = deps.store.transition(&read, &hold, now).await.unwrap();
    assert!(matches!(stale, TransitionOutcome::Conflict(_)));
    // A completion from the stale read would leave the held income out: it conflicts too.
    let complete = Transition::Complete {
        report: Box::new(domain::report::build_report(&income, None)),
    };
    let stale = deps.store.transition(&read, &complete, now).await.unwrap();
    assert!(matches!(stale, TransitionOutcome::Conflict(_)));
    assert_eq!(stored(&deps, &v).method_attempts.len(), 1);
}

#[tokio::test]
async fn income_held_from_the_local_stack_s_sandbox_marks_the_report_local() {
    let mut deps = page_deps(&[], false).await;
    deps.live_provider = adapters::live_provider::LiveProvider::local_sandbox();
    let (v, link) = pending(&deps, &[Bank, Payroll]);
    let mut live = stored(&deps, &v);
    live.mode = domain::Mode::Live;
    deps.store.insert_verification(&live);
    consent(&deps, &link).await;
    let held = page(
        &deps,
        &link,
        Some("action=connect&scenario=samejob&more=yes"),
    )
    .await;
    assert_eq!(held.status, 303, "{}", held.body);
    assert_eq!(page(&deps, &link, Some("action=finish")).await.status, 303);
    let report = stored(&deps, &v).income_report.unwrap();
    assert_eq!(report.local_sandbox, Some(true));
    assert_eq!(report.total_monthly_income, 4024.8);
}
