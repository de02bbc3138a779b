//! The household decision: both paths, the exact edges, members left out, no applicant.

use super::*;
use proptest::prelude::*;

fn terms(rent: f64, subsidy: Option<f64>) -> RentTerms {
    RentTerms {
        monthly_rent: Some(rent),
        rent_subsidy_monthly: subsidy,
        income_multiple: None,
    }
}

fn member(role: MemberRole, status: Status, income: Option<f64>) -> MemberOutcome {
    MemberOutcome {
        verification_id: Uuid::new_v4(),
        role,
        status,
        monthly_income: income,
    }
}

use MemberRole::{Applicant, Guarantor};
use Status::{Completed, Expired, Failed, InProgress, Pending};

#[test]
fn two_applicants_meet_the_rule_together_not_alone() {
    let members = [
        member(Applicant, Completed, Some(2_000.0)),
        member(Applicant, Completed, Some(2_200.0)),
    ];
    let d = decide(&terms(1_400.0, None), None, &members).unwrap();
    assert_eq!(d.applicants_monthly_income, 4_200.0);
    assert_eq!(d.income_required, 4_200.0);
    assert!(d.applicants_meet_requirement);
    assert!(!d.guarantor_meets_requirement);
    assert!(d.meets_requirement);
    assert!(d.made_without.is_empty());
    assert_eq!(
        d.rule,
        "The applicants' combined income 4,200.00 is at least 3 x the rent 1,400.00. \
         There is no completed guarantor. The household meets the requirement."
    );
    let alone = decide(&terms(1_400.0, None), None, &members[..1]).unwrap();
    assert!(!alone.meets_requirement);
}

#[test]
fn a_guarantor_carries_a_student_who_earns_too_little() {
    let members = [
        member(Applicant, Completed, Some(600.0)),
        member(Guarantor, Completed, Some(7_000.0)),
    ];
    let d = decide(&terms(1_400.0, None), None, &members).unwrap();
    assert!(!d.applicants_meet_requirement);
    assert_eq!(d.guarantor_multiple, DEFAULT_GUARANTOR_MULTIPLE);
    assert_eq!(d.guarantor_income_required, 7_000.0);
    assert!(d.guarantor_meets_requirement);
    assert!(d.meets_requirement);
    // A guarantor's income is not added to the applicants'.
    assert_eq!(d.applicants_monthly_income, 600.0);
    assert!(
        d.rule
            .contains("guarantor income 7,000.00 is enough for the guarantor rule of 5")
    );
    // One cent short, and with a stricter multiple: no.
    let short = [
        members[0].clone(),
        member(Guarantor, Completed, Some(6_999.99)),
    ];
    assert!(
        !decide(&terms(1_400.0, None), None, &short)
            .unwrap()
            .meets_requirement
    );
    let strict = decide(&terms(1_400.0, None), Some(6.0), &members).unwrap();
    assert!(!strict.meets_requirement);
    assert_eq!(strict.guarantor_income_required, 8_400.0);
}

#[test]
fn a_failed_member_is_left_out_and_named() {
    let members = [
        member(Applicant, Completed, Some(4_500.0)),
        member(Applicant, Failed, None),
        member(Guarantor, Expired, None),
    ];
    let d = decide(&terms(1_500.0, None), None, &members).unwrap();
    assert!(d.meets_requirement);
    assert_eq!(d.made_without.len(), 2);
    assert_eq!(d.made_without[0].status, Failed);
    assert!(d.rule.ends_with(
        "Decided without 2 members (applicant failed, guarantor expired or cancelled)."
    ));
}

#[test]
fn the_subsidy_is_subtracted_for_both_rules() {
    let members = [
        member(Applicant, Completed, Some(1_000.0)),
        member(Guarantor, Completed, Some(2_500.0)),
    ];
    let d = decide(&terms(1_400.0, Some(900.0)), None, &members).unwrap();
    assert_eq!(d.tenant_portion, 500.0);
    assert_eq!(d.income_required, 1_500.0);
    assert_eq!(d.guarantor_income_required, 2_500.0);
    assert!(!d.applicants_meet_requirement && d.guarantor_meets_requirement);
}

#[test]
fn open_members_hold_the_decision_and_nothing_completed_closes() {
    let open = [
        member(Applicant, Completed, Some(9_000.0)),
        member(Applicant, Pending, None),
        member(Guarantor, InProgress, None),
    ];
    match household_state(&terms(1_000.0, None), None, &open) {
        HouseholdState::Open { open_members } => {
            assert_eq!(
                open_members,
                vec![open[1].verification_id, open[2].verification_id]
            )
        }
        other => panic!("{other:?}"),
    }
    let none = [
        member(Applicant, Failed, None),
        member(Guarantor, Expired, None),
    ];
    assert_eq!(
        household_state(&terms(1_000.0, None), None, &none),
        HouseholdState::Closed
    );
}

#[test]
fn a_guarantor_alone_is_no_yes_when_no_applicant_completed() {
    let members = [
        member(Applicant, Failed, None),
        member(Applicant, Expired, None),
        member(Guarantor, Completed, Some(9_000.0)),
    ];
    let d = decide(&terms(1_400.0, None), None, &members).unwrap();
    assert!(
        d.guarantor_meets_requirement,
        "the guarantor's own figure is still shown"
    );
    assert!(!d.applicants_meet_requirement);
    assert!(!d.meets_requirement);
    assert_eq!(d.applicants_monthly_income, 0.0);
    assert_eq!(
        d.rule,
        "No applicant's verification completed. The highest guarantor income 9,000.00 is enough \
         for the guarantor rule of 5 x the tenant's portion. The household does not meet the \
         requirement: a guarantor backs an applicant, and no applicant's income or identity was \
         verified. Decided without 2 members (applicant failed, applicant expired or cancelled)."
    );
    // A fully subsidised rent (tenant's portion 0) is not "met" by nobody either.
    let free = decide(&terms(1_400.0, Some(1_400.0)), None, &members).unwrap();
    assert_eq!(free.tenant_portion, 0.0);
    assert!(!free.applicants_meet_requirement && !free.meets_requirement);
    // One completed applicant, however little they earn, lets the guarantor carry the household.
    let with_one = [
        member(Applicant, Completed, Some(100.0)),
        members[1].clone(),
        members[2].clone(),
    ];
    let d = decide(&terms(1_400.0, None), None, &with_one).unwrap();
    assert!(!d.applicants_meet_requirement && d.meets_requirement);
    assert!(d.rule.contains("The household meets the requirement."));
}

proptest! {
    #[test]
    fn the_household_rule_is_exact_and_either_path_suffices_with_an_applicant(
        rent_c in 1i64..500_000,
        applicants in proptest::collection::vec((0i64..2_000_000, any::<bool>()), 1..4),
        guarantor in proptest::option::of(0i64..5_000_000),
    ) {
        let t = terms(rent_c as f64 / 100.0, None);
        // (income, completed): an applicant who did not complete failed and has no income.
        let mut members: Vec<MemberOutcome> = applicants
            .iter()
            .map(|(c, done)| match done {
                true => member(Applicant, Completed, Some(*c as f64 / 100.0)),
                false => member(Applicant, Failed, None),
            })
            .collect();
        if let Some(g) = guarantor {
            members.push(member(Guarantor, Completed, Some(g as f64 / 100.0)));
        }
        let any_applicant = applicants.iter().any(|(_, done)| *done);
        let Some(d) = decide(&t, None, &members) else {
            // Nothing completed: no decision.
            prop_assert!(!any_applicant && guarantor.is_none());
            return Ok(());
        };
        let sum: i64 = applicants.iter().filter(|(_, done)| *done).map(|(c, _)| c).sum();
        prop_assert_eq!(d.applicants_meet_requirement, any_applicant && sum >= rent_c * 3);
        prop_assert_eq!(d.guarantor_meets_requirement, guarantor.is_some_and(|g| g >= rent_c * 5));
        prop_assert_eq!(
            d.meets_requirement,
            any_applicant && (d.applicants_meet_requirement || d.guarantor_meets_requirement)
        );
        prop_assert_eq!(cents_of(d.applicants_monthly_income), sum);
        prop_assert_eq!(d.made_without.len(), applicants.len() - applicants.iter().filter(|(_, d)| *d).count());
    }
}
