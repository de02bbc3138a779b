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
//! `meets_requirement` is true when either holds AND at least one applicant completed: a guarantor
//! backs an applicant, and a landlord must not get a yes for a household in which nobody who
//! would live there had their income and identity verified. Members whose verification failed,
//! expired or was cancelled are reported in `made_without`, and the decision counts only completed
//! members. A household in which no member completed has no decision (nothing to decide on).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::affordability::{
    RentTerms, affordability, cents_of, format_money, hundredths_of, tenant_portion_cents,
};
use crate::{Mode, Status, Verification};

pub mod role;
pub mod shape;

pub use role::MemberRole;
pub use shape::{HouseholdShape, member_id};

/// A guarantor must earn this many times the tenant's portion when the request names no multiple.
pub const DEFAULT_GUARANTOR_MULTIPLE: f64 = 5.0;
/// Allowed guarantor multiples (inclusive).
pub const MIN_GUARANTOR_MULTIPLE: f64 = 1.0;
pub const MAX_GUARANTOR_MULTIPLE: f64 = 10.0;
/// Members of one household: each is a verification written in the create's one transaction.
pub const MAX_MEMBERS: usize = 6;

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
    #[serde(with = "crate::ts")]
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
        with = "crate::ts::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub decided_at: Option<DateTime<Utc>>,
    /// Set once by DELETE /households (only while undecided, and only with at least one member
    /// open), in the same write that cancels every open member: a cancelled household is never
    /// decided.
    #[serde(
        default,
        with = "crate::ts::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub cancelled_at: Option<DateTime<Utc>>,
    /// Set once, when a member's personal data was erased: the household's own personal and
    /// financial data (address, rent, decision) went with it (docs/households.md).
    #[serde(
        default,
        with = "crate::ts::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub erased_at: Option<DateTime<Utc>>,
}

impl Household {
    /// Decided or cancelled: nothing more happens to it (a cancel refuses it).
    pub fn is_closed(&self) -> bool {
        self.decision.is_some() || self.cancelled_at.is_some()
    }

    /// The household once a member's personal data was erased: its address, rent and subsidy and
    /// its decision (combined figures of the members' incomes) gone, `erased_at` set once (the
    /// first erasure's time stays). Ids, members, statuses and the landlord's multiples stay.
    pub fn erased(&self, now: DateTime<Utc>) -> Household {
        Household {
            property_address: None,
            monthly_rent: 0.0,
            rent_subsidy_monthly: None,
            decision: None,
            erased_at: Some(self.erased_at.unwrap_or(now)),
            ..self.clone()
        }
    }

    pub fn rent_terms(&self) -> RentTerms {
        RentTerms {
            monthly_rent: Some(self.monthly_rent),
            rent_subsidy_monthly: self.rent_subsidy_monthly,
            income_multiple: self.income_multiple,
        }
    }

    /// Member `v` as the household's cancel wrote it: a member read open (from the members' index,
    /// which lags the items by a moment) of a household cancelled before its expiry was cancelled
    /// in the cancel's own write. Anything else, as it is.
    pub fn member_as_of(&self, v: &Verification) -> Verification {
        match self.cancelled_at {
            Some(at) if v.status.is_open() && at < v.expires_at => {
                crate::Transition::Cancel.apply(v, at)
            }
            _ => v.clone(),
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
    /// At least one applicant completed and their incomes reach `income_required`.
    pub applicants_meet_requirement: bool,
    pub guarantor_multiple: f64,
    /// guarantor_multiple x tenant_portion, rounded up to the cent.
    pub guarantor_income_required: f64,
    /// Whether one completed guarantor alone earns `guarantor_income_required`.
    pub guarantor_meets_requirement: bool,
    /// (applicants_meet_requirement OR guarantor_meets_requirement) with at least one completed
    /// applicant.
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
    /// Cancelled (DELETE /households) while a member was open: never decided.
    Cancelled,
}

impl HouseholdState {
    pub fn as_str(&self) -> &'static str {
        match self {
            HouseholdState::Open { .. } => "open",
            HouseholdState::Decided(_) => "decided",
            HouseholdState::Closed => "closed",
            HouseholdState::Cancelled => "cancelled",
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
    let applicant_completed = completed(MemberRole::Applicant).next().is_some();
    let applicants_income: i64 = completed(MemberRole::Applicant).map(income_cents).sum();
    let applicants = affordability(terms, applicants_income)?;
    // Without a completed applicant a zero tenant's portion would otherwise be "met" by nobody.
    let applicants_meet = applicant_completed && applicants.meets_requirement;
    let g_multiple = hundredths_of(guarantor_multiple.unwrap_or(DEFAULT_GUARANTOR_MULTIPLE));
    let g_scaled = portion * g_multiple;
    let best_guarantor = completed(MemberRole::Guarantor).map(income_cents).max();
    let guarantor_meets = best_guarantor.is_some_and(|income| 100 * income >= g_scaled);
    let g_required = (g_scaled + 99) / 100;
    let made_without: Vec<MemberOutcome> = (members.iter())
        .filter(|m| m.status != Status::Completed)
        .cloned()
        .collect();
    let meets = applicant_completed && (applicants_meet || guarantor_meets);
    let rule = rule_sentence(
        applicant_completed.then_some(applicants.rule.as_str()),
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
        applicants_meet_requirement: applicants_meet,
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

/// `applicants_rule` is None when no applicant completed.
fn rule_sentence(
    applicants_rule: Option<&str>,
    best_guarantor: Option<i64>,
    guarantor_meets: bool,
    g_multiple: i64,
    made_without: &[MemberOutcome],
    meets: bool,
) -> String {
    // "Income 4,200.00 is at least 3 x the rent 1,400.00." -> "The applicants' combined income ..."
    let applicants = match applicants_rule {
        None => "No applicant's verification completed.".to_string(),
        Some(rule) => rule
            .strip_prefix("Income ")
            .map(|rest| format!("The applicants' combined income {rest}"))
            .unwrap_or_else(|| rule.to_string()),
    };
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
    let verdict = match (meets, applicants_rule) {
        (true, _) => "The household meets the requirement.",
        (false, Some(_)) => "The household does not meet the requirement.",
        (false, None) => {
            "The household does not meet the requirement: a guarantor backs an applicant, and \
             no applicant's income or identity was verified."
        }
    };
    format!("{applicants} {guarantor} {verdict}{without}")
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Failed => "failed",
        Status::Expired => "expired or cancelled",
        other => other.as_str(),
    }
}

#[cfg(test)]
mod tests;
