//! Which verification methods a tenant may use: `bank`, `payroll`, `document`
//! ([verification-methods.md](../../../docs/verification-methods.md)).
//!
//! A create may name them (`methods`); an account may have a default set (admin
//! `set-default-methods`); otherwise every method the stack has applies. The order is the
//! landlord's order of preference.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::Mode;
use crate::income::VerificationMethod;

/// How one try of a method ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// The income was read and counted: the report was made from it.
    Succeeded,
    /// The provider refused: the connection failed or nothing could be read.
    Failed,
    /// The connection worked and found no income that counts.
    NoIncome,
    /// The tenant left the method for another without finishing it.
    Abandoned,
}

/// One try of a method on the tenant page, as the report records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodAttempt {
    pub method: VerificationMethod,
    pub outcome: AttemptOutcome,
    #[serde(with = "crate::ts")]
    pub at: DateTime<Utc>,
}

/// The methods still open to the tenant: those of `methods` no attempt has closed, in order.
pub fn remaining(
    methods: &[VerificationMethod],
    attempts: &[MethodAttempt],
) -> Vec<VerificationMethod> {
    methods
        .iter()
        .copied()
        .filter(|m| !attempts.iter().any(|a| a.method == *m))
        .collect()
}

/// Every method, in the order the service offers them by default.
pub const ALL: [VerificationMethod; 3] = [
    VerificationMethod::Bank,
    VerificationMethod::Payroll,
    VerificationMethod::Document,
];

impl VerificationMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            VerificationMethod::Bank => "bank",
            VerificationMethod::Payroll => "payroll",
            VerificationMethod::Document => "document",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        ALL.into_iter().find(|m| m.as_str() == raw)
    }

    /// The method in the tenant's and the landlord's words ("documents").
    pub fn words(self) -> &'static str {
        match self {
            VerificationMethod::Bank => "bank",
            VerificationMethod::Payroll => "payroll",
            VerificationMethod::Document => "documents",
        }
    }
}

/// The methods named by `raw`, in order and once each, or the names that are no method.
pub fn parse_methods(raw: &[&str]) -> Result<Vec<VerificationMethod>, Vec<String>> {
    let unknown: Vec<String> = raw
        .iter()
        .filter(|r| VerificationMethod::parse(r).is_none())
        .map(|r| r.to_string())
        .collect();
    if !unknown.is_empty() {
        return Err(unknown);
    }
    let mut methods = Vec::new();
    for m in raw.iter().filter_map(|r| VerificationMethod::parse(r)) {
        if !methods.contains(&m) {
            methods.push(m);
        }
    }
    Ok(methods)
}

/// What a stack offers: the methods of its live income providers for live keys, in the stack's
/// order, the sandbox's bank and payroll scenarios for test keys, and uploaded documents for both
/// where the stack has a documents bucket (`documents`).
pub fn available(
    live: &[VerificationMethod],
    mode: Mode,
    documents: bool,
) -> Vec<VerificationMethod> {
    let mut methods = match mode {
        Mode::Test => vec![VerificationMethod::Bank, VerificationMethod::Payroll],
        Mode::Live => live.to_vec(),
    };
    if documents {
        methods.push(VerificationMethod::Document);
    }
    methods
}

/// The methods of a verification: its own, else the account's default set, else everything the
/// stack has; always only what the stack has.
pub fn effective(
    own: &[VerificationMethod],
    account_default: &[VerificationMethod],
    available: &[VerificationMethod],
) -> Vec<VerificationMethod> {
    let chosen = if !own.is_empty() {
        own
    } else if !account_default.is_empty() {
        account_default
    } else {
        available
    };
    chosen
        .iter()
        .copied()
        .filter(|m| available.contains(m))
        .collect()
}

/// The methods a verification created without its own takes from the account's default set
/// when the tenant consents: those of the default the page serves (`available`), in the
/// default's order. A method the stack lacks is skipped (a default spans live and test keys, whose
/// methods differ); empty when there is no default or it names nothing the page serves, and then
/// every method the page serves applies, as without a default.
pub fn from_account_default(
    default: &[VerificationMethod],
    available: &[VerificationMethod],
) -> Vec<VerificationMethod> {
    default
        .iter()
        .copied()
        .filter(|m| available.contains(m))
        .collect()
}

/// Names, comma-separated, for messages.
pub fn names(methods: &[VerificationMethod]) -> String {
    methods
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use VerificationMethod::*;

    #[test]
    fn names_parse_in_order_once_each_or_name_the_unknown() {
        assert_eq!(
            parse_methods(&["payroll", "bank", "payroll"]),
            Ok(vec![Payroll, Bank])
        );
        assert_eq!(
            parse_methods(&["bank", "crypto", "Bank"]),
            Err(vec!["crypto".to_string(), "Bank".to_string()])
        );
    }

    #[test]
    fn a_tried_method_is_no_longer_open() {
        let at = Utc::now();
        let tried = |method, outcome| MethodAttempt {
            method,
            outcome,
            at,
        };
        let methods = [Bank, Payroll, Document];
        assert_eq!(
            remaining(&methods, &[tried(Bank, AttemptOutcome::Failed)]),
            vec![Payroll, Document]
        );
        assert_eq!(
            remaining(
                &methods,
                &[
                    tried(Payroll, AttemptOutcome::Abandoned),
                    tried(Document, AttemptOutcome::NoIncome)
                ]
            ),
            vec![Bank]
        );
    }

    #[test]
    fn the_verifications_own_set_wins_then_the_accounts_then_the_stacks() {
        let stack = [Bank, Payroll];
        assert_eq!(effective(&[Payroll], &[Bank], &stack), vec![Payroll]);
        assert_eq!(
            effective(&[], &[Payroll, Bank], &stack),
            vec![Payroll, Bank]
        );
        assert_eq!(effective(&[], &[], &stack), vec![Bank, Payroll]);
        // An account default naming a method the stack lacks keeps the rest.
        assert_eq!(effective(&[], &[Document, Bank], &stack), vec![Bank]);
        assert_eq!(available(&[Payroll], Mode::Live, false), vec![Payroll]);
        assert_eq!(available(&[], Mode::Live, false), vec![]);
        // Several live providers: their methods in the stack's order, then uploads.
        assert_eq!(
            available(&[Bank, Payroll], Mode::Live, true),
            vec![Bank, Payroll, Document]
        );
        assert_eq!(
            available(&[Payroll], Mode::Test, false),
            vec![Bank, Payroll]
        );
        // At consent, the account's default less what the stack lacks; nothing when none is left.
        assert_eq!(
            from_account_default(&[Document, Payroll], &stack),
            vec![Payroll]
        );
        assert_eq!(from_account_default(&[Document], &stack), vec![]);
        assert_eq!(from_account_default(&[], &stack), vec![]);
        // A documents bucket adds uploads for both kinds of key.
        assert_eq!(available(&[], Mode::Live, true), vec![Document]);
        assert_eq!(
            available(&[Bank], Mode::Test, true),
            vec![Bank, Payroll, Document]
        );
    }
}
