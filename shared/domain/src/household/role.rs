//! A member's role in a household, which the member's verification carries.

use serde::{Deserialize, Serialize};

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
