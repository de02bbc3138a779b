//! Redacting `Debug` for the household types: address, rent, incomes and the webhook URL's path
//! and query never print; ids, roles, statuses, multiples and the verdicts stay visible.

use std::fmt::{self, Debug, Formatter};

use super::{Hidden, UrlOrigin, presence};
use crate::household::{Household, HouseholdDecision, MemberOutcome};

impl Debug for Household {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Household")
            .field("household_id", &self.household_id)
            .field("account_id", &self.account_id)
            .field("mode", &self.mode)
            .field("created_at", &self.created_at)
            .field("property_address", &presence(&self.property_address))
            .field("monthly_rent", &Hidden)
            .field(
                "rent_subsidy_monthly",
                &presence(&self.rent_subsidy_monthly),
            )
            .field("income_multiple", &self.income_multiple)
            .field("guarantor_multiple", &self.guarantor_multiple)
            .field("webhook_url", &self.webhook_url.as_deref().map(UrlOrigin))
            .field("members", &self.members)
            .field("decision", &self.decision)
            .field("decided_at", &self.decided_at)
            .field("cancelled_at", &self.cancelled_at)
            .finish()
    }
}

impl Debug for MemberOutcome {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemberOutcome")
            .field("verification_id", &self.verification_id)
            .field("role", &self.role)
            .field("status", &self.status)
            .field("monthly_income", &presence(&self.monthly_income))
            .finish()
    }
}

impl Debug for HouseholdDecision {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("HouseholdDecision")
            .field("income_multiple", &self.income_multiple)
            .field("guarantor_multiple", &self.guarantor_multiple)
            .field(
                "applicants_meet_requirement",
                &self.applicants_meet_requirement,
            )
            .field(
                "guarantor_meets_requirement",
                &self.guarantor_meets_requirement,
            )
            .field("meets_requirement", &self.meets_requirement)
            .field("members", &self.members)
            .field("made_without", &self.made_without)
            // Rent, portion, incomes, requirements and the rule sentence (which names them).
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use uuid::Uuid;

    use crate::Status;
    use crate::affordability::RentTerms;
    use crate::household::{HouseholdMember, MemberRole, decide};

    use super::*;

    #[test]
    fn a_household_hides_its_address_rent_incomes_and_hook_path() {
        let member = MemberOutcome {
            verification_id: Uuid::new_v4(),
            role: MemberRole::Applicant,
            status: Status::Completed,
            monthly_income: Some(4321.98),
        };
        let decision = decide(
            &RentTerms::rent_only(Some(1234.56)),
            None,
            std::slice::from_ref(&member),
        )
        .expect("decided");
        let household = Household {
            household_id: Uuid::new_v4(),
            account_id: "acct".into(),
            mode: crate::Mode::Test,
            created_at: Utc::now(),
            property_address: Some("17 Hidden Lane".into()),
            monthly_rent: 1234.56,
            rent_subsidy_monthly: Some(111.11),
            income_multiple: None,
            guarantor_multiple: Some(4.0),
            webhook_url: Some("https://hooks.example.com/hook-path-secret?t=tok3n".into()),
            members: vec![HouseholdMember {
                verification_id: member.verification_id,
                role: MemberRole::Applicant,
            }],
            decision: Some(decision),
            decided_at: None,
            cancelled_at: None,
            erased_at: None,
        };
        let out = format!("{household:?} {household:#?}");
        for secret in [
            "17 Hidden Lane",
            "1234.56",
            "1,234.56",
            "111.11",
            "4321.98",
            "4,321.98",
            "hook-path-secret",
            "tok3n",
        ] {
            assert!(!out.contains(secret), "{secret} leaked in {out}");
        }
        assert!(out.contains("hooks.example.com") && out.contains("meets_requirement: true"));
        assert!(out.contains(&member.verification_id.to_string()));
    }
}
