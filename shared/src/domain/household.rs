//! Households: co-applicants and guarantors verified together, one decision for all of them.
//!
//! Each member is an ordinary verification (the contract's endpoints show, list and count it);
//! the household item names the members and their roles and, once every member's verification is
//! final, holds the decision. The rule, in exact integer arithmetic as in `affordability`:
//!
//! - the applicants' combined monthly income must be at least `income_multiple` (default 3) x the
//!   tenant's portion of the rent (`monthly_rent - rent_subsidy_monthly`); or
//! - one guarantor's own monthly income must be at least `guarantor_multiple` (default
//!   [`DEFAULT_GUARANTOR_MULTIPLE`] = 5) x the tenant's portion.
//!
//! `meets_requirement` is true when either holds. Members whose verification failed, expired or
//! was cancelled are reported in `made_without`, and the decision counts only completed members.
//! A household in which no member completed has no decision (nothing to decide on).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::affordability::{
    RentTerms, affordability, cents_of, format_money, hundredths_of, tenant_portion_cents,
};
use crate::domain::{Mode, Status, Verification};

/// A guarantor must earn this many times the tenant's portion when the request names no multiple.
pub const DEFAULT_GUARANTOR_MULTIPLE: f64 = 5.0;
/// Allowed guarantor multiples (inclusive).
pub const MIN_GUARANTOR_MULTIPLE: f64 = 1.0;
pub const MAX_GUARANTOR_MULTIPLE: f64 = 10.0;
/// Members of one household: each is a verification written in the create's one transaction.
pub const MAX_MEMBERS: usize = 6;

/// What a member is to the household.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberRole {
    /// Will live there and pay: incomes are added up.
    Applicant,
    /// Vouches for the rent: must meet the guarantor rule alone.
    Guarantor,
}

impl MemberRole {
    pub fn as_str(self) -> &'static str {
        match self {
            MemberRole::Applicant => "applicant",
            MemberRole::Guarantor => "guarantor",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [MemberRole::Applicant, MemberRole::Guarantor]
            .into_iter()
            .find(|r| r.as_str() == raw)
    }
}

/// One member: their verification and role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HouseholdMember {
    pub verification_id: Uuid,
    pub role: MemberRole,
}

/// A household as stored (`Debug` redacts the address, rent and hook path: `redact`). The rent terms are the ones every member's verification carries too.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Household {
    pub household_id: Uuid,
    pub account_id: String,
    pub mode: Mode,
    #[serde(with = "crate::domain::ts")]
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property_address: Option<String>,
    pub monthly_rent: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rent_subsidy_monthly: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub income_multiple: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guarantor_multiple: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    pub members: Vec<HouseholdMember>,
    /// Set once, by the conditional write of the member completion that made it decidable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<HouseholdDecision>,
    #[serde(
        default,
        with = "crate::domain::ts::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub decided_at: Option<DateTime<Utc>>,
}

impl Household {
    pub fn rent_terms(&self) -> RentTerms {
        RentTerms {
            monthly_rent: Some(self.monthly_rent),
            rent_subsidy_monthly: self.rent_subsidy_monthly,
            income_multiple: self.income_multiple,
        }
    }

    pub fn role_of(&self, verification_id: Uuid) -> Option<MemberRole> {
        self.members
            .iter()
            .find(|m| m.verification_id == verification_id)
            .map(|m| m.role)
    }
}

/// A member as the decision saw it (`Debug` redacts the income: `redact`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberOutcome {
    pub verification_id: Uuid,
    pub role: MemberRole,
    pub status: Status,
    /// The verified monthly income (completed members only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monthly_income: Option<f64>,
}

impl MemberOutcome {
    /// The member as seen at `now` (an open verification past its expiry is expired).
    pub fn of(v: &Verification, role: MemberRole, now: DateTime<Utc>) -> Self {
        let status = v.effective_status(now);
        MemberOutcome {
            verification_id: v.verification_id,
            role,
            status,
            monthly_income: (status == Status::Completed)
                .then(|| v.income_report.as_ref().map(|r| r.total_monthly_income))
                .flatten(),
        }
    }
}

/// The household's decision (the `decision` of GET /households and of `household.completed`);
/// `Debug` redacts the money (`redact`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct HouseholdDecision {
    pub monthly_rent: f64,
    pub rent_subsidy_monthly: f64,
    /// monthly_rent - rent_subsidy_monthly.
    pub tenant_portion: f64,
    /// The completed applicants' monthly incomes added up.
    pub applicants_monthly_income: f64,
    pub income_multiple: f64,
    /// income_multiple x tenant_portion, rounded up to the cent.
    pub income_required: f64,
    pub applicants_meet_requirement: bool,
    pub guarantor_multiple: f64,
    /// guarantor_multiple x tenant_portion, rounded up to the cent.
    pub guarantor_income_required: f64,
    /// Whether one completed guarantor alone earns `guarantor_income_required`.
    pub guarantor_meets_requirement: bool,
    /// applicants_meet_requirement OR guarantor_meets_requirement.
    pub meets_requirement: bool,
    /// Every member as decided on.
    pub members: Vec<MemberOutcome>,
    /// Members whose verification did not complete (failed, expired, cancelled): left out.
    pub made_without: Vec<MemberOutcome>,
    /// The rule applied, in plain English.
    pub rule: String,
}

/// What a household is, read off its members at a moment.
#[derive(Debug, Clone, PartialEq)]
pub enum HouseholdState {
    /// These members are still pending or in progress.
    Open { open_members: Vec<Uuid> },
    /// Every member is final and at least one completed.
    Decided(HouseholdDecision),
    /// Every member is final and none completed: nothing to decide on.
    Closed,
}

impl HouseholdState {
    pub fn as_str(&self) -> &'static str {
        match self {
            HouseholdState::Open { .. } => "open",
            HouseholdState::Decided(_) => "decided",
            HouseholdState::Closed => "closed",
        }
    }
}

/// The state of a household whose members are `members` (in the household's order).
pub fn household_state(
    terms: &RentTerms,
    guarantor_multiple: Option<f64>,
    members: &[MemberOutcome],
) -> HouseholdState {
    let open: Vec<Uuid> = (members.iter())
        .filter(|m| m.status.is_open())
        .map(|m| m.verification_id)
        .collect();
    if !open.is_empty() {
        return HouseholdState::Open { open_members: open };
    }
    match decide(terms, guarantor_multiple, members) {
        Some(decision) => HouseholdState::Decided(decision),
        None => HouseholdState::Closed,
    }
}

fn income_cents(m: &MemberOutcome) -> i64 {
    m.monthly_income.map_or(0, cents_of)
}

/// The decision over final members; None while a member is open, when no member completed, or
/// without a rent.
pub fn decide(
    terms: &RentTerms,
    guarantor_multiple: Option<f64>,
    members: &[MemberOutcome],
) -> Option<HouseholdDecision> {
    if members.iter().any(|m| m.status.is_open())
        || !members.iter().any(|m| m.status == Status::Completed)
    {
        return None;
    }
    let portion = tenant_portion_cents(terms)?;
    let completed = |role: MemberRole| {
        members
            .iter()
            .filter(move |m| m.role == role && m.status == Status::Completed)
    };
    let applicants_income: i64 = completed(MemberRole::Applicant).map(income_cents).sum();
    let applicants = affordability(terms, applicants_income)?;
    let g_multiple = hundredths_of(guarantor_multiple.unwrap_or(DEFAULT_GUARANTOR_MULTIPLE));
    let g_scaled = portion * g_multiple;
    let best_guarantor = completed(MemberRole::Guarantor).map(income_cents).max();
    let guarantor_meets = best_guarantor.is_some_and(|income| 100 * income >= g_scaled);
    let g_required = (g_scaled + 99) / 100;
    let made_without: Vec<MemberOutcome> = (members.iter())
        .filter(|m| m.status != Status::Completed)
        .cloned()
        .collect();
    let meets = applicants.meets_requirement || guarantor_meets;
    let rule = rule_sentence(
        &applicants.rule,
        best_guarantor,
        guarantor_meets,
        g_multiple,
        &made_without,
        meets,
    );
    Some(HouseholdDecision {
        monthly_rent: applicants.monthly_rent,
        rent_subsidy_monthly: applicants.rent_subsidy_monthly,
        tenant_portion: applicants.tenant_portion,
        applicants_monthly_income: applicants_income as f64 / 100.0,
        income_multiple: applicants.income_multiple,
        income_required: applicants.income_required,
        applicants_meet_requirement: applicants.meets_requirement,
        guarantor_multiple: g_multiple as f64 / 100.0,
        guarantor_income_required: g_required as f64 / 100.0,
        guarantor_meets_requirement: guarantor_meets,
        meets_requirement: meets,
        members: members.to_vec(),
        made_without,
        rule,
    })
}

/// `300` hundredths as `3`, `250` as `2.5`.
fn multiple_text(hundredths: i64) -> String {
    let text = format!("{}.{:02}", hundredths / 100, hundredths % 100);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn rule_sentence(
    applicants_rule: &str,
    best_guarantor: Option<i64>,
    guarantor_meets: bool,
    g_multiple: i64,
    made_without: &[MemberOutcome],
    meets: bool,
) -> String {
    // "Income 4,200.00 is at least 3 x the rent 1,400.00." -> "The applicants' combined income ..."
    let applicants = applicants_rule
        .strip_prefix("Income ")
        .map(|rest| format!("The applicants' combined income {rest}"))
        .unwrap_or_else(|| applicants_rule.to_string());
    let guarantor = match best_guarantor {
        None => "There is no completed guarantor.".to_string(),
        Some(income) => format!(
            "The highest guarantor income {} is {} the guarantor rule of {} x the tenant's portion.",
            format_money(income),
            if guarantor_meets {
                "enough for"
            } else {
                "below"
            },
            multiple_text(g_multiple)
        ),
    };
    let without = match made_without.len() {
        0 => String::new(),
        n => {
            let what: Vec<String> = (made_without.iter())
                .map(|m| format!("{} {}", m.role.as_str(), status_word(m.status)))
                .collect();
            format!(
                " Decided without {n} member{} ({}).",
                if n == 1 { "" } else { "s" },
                what.join(", ")
            )
        }
    };
    format!(
        "{applicants} {guarantor} The household {} the requirement.{without}",
        if meets { "meets" } else { "does not meet" }
    )
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Failed => "failed",
        Status::Expired => "expired or cancelled",
        other => other.as_str(),
    }
}

#[cfg(test)]
mod tests {
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

    proptest! {
        #[test]
        fn the_household_rule_is_exact_and_either_path_suffices(
            rent_c in 1i64..500_000,
            incomes in proptest::collection::vec(0i64..2_000_000, 1..4),
            guarantor in proptest::option::of(0i64..5_000_000),
        ) {
            let t = terms(rent_c as f64 / 100.0, None);
            let mut members: Vec<MemberOutcome> = incomes
                .iter()
                .map(|c| member(Applicant, Completed, Some(*c as f64 / 100.0)))
                .collect();
            if let Some(g) = guarantor {
                members.push(member(Guarantor, Completed, Some(g as f64 / 100.0)));
            }
            let d = decide(&t, None, &members).unwrap();
            let sum: i64 = incomes.iter().sum();
            prop_assert_eq!(d.applicants_meet_requirement, sum >= (rent_c * 3));
            prop_assert_eq!(d.guarantor_meets_requirement, guarantor.is_some_and(|g| g >= rent_c * 5));
            prop_assert_eq!(d.meets_requirement, d.applicants_meet_requirement || d.guarantor_meets_requirement);
            prop_assert_eq!(cents_of(d.applicants_monthly_income), sum);
        }
    }
}
