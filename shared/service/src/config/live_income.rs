//! `INCOME_PROVIDER`: where live verifications get their income.

use super::{ConfigError, Env};
use domain::income::VerificationMethod;

/// Where the income of live verifications comes from (test verifications always use the sandbox).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveIncome {
    /// No real provider: live verifications are refused at create (403 `live_mode_unavailable`).
    None,
    /// Bank income through Plaid Check's Consumer Report (same credentials as Plaid's).
    PlaidCheck,
    /// Payroll income through Argyle.
    Argyle,
    /// The local stack only (`make dev`, tests): sandbox scenarios stand in for live data and the
    /// report says `local_sandbox: true`. Built in code; no environment variable selects it.
    LocalSandbox,
}

pub const SANDBOX_FOR_LIVE_REFUSED: &str = "INCOME_PROVIDER=sandbox is refused: live verifications \
get income only from a real provider (plaid_check, argyle) or none (live creates are refused); the sandbox serves \
test keys, and live keys only in the local stack";

impl LiveIncome {
    /// `INCOME_PROVIDER`: `plaid_check`, `argyle`, or `none` / unset (live verifications
    /// refused). Plaid Bank Income (`plaid`) is retired (docs/verification-methods.md).
    pub fn parse(raw: Option<&str>) -> Result<Self, ConfigError> {
        match raw.map(str::trim).unwrap_or("") {
            "" | "none" => Ok(LiveIncome::None),
            "plaid_check" => Ok(LiveIncome::PlaidCheck),
            "argyle" => Ok(LiveIncome::Argyle),
            "sandbox" => Err(ConfigError(SANDBOX_FOR_LIVE_REFUSED.into())),
            _ => Err(ConfigError(
                "INCOME_PROVIDER must be plaid_check, argyle or none".into(),
            )),
        }
    }

    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::parse(env.optional("INCOME_PROVIDER").as_deref())
    }

    /// The verification method this provider serves for live keys (the local sandbox stands
    /// for a bank).
    pub fn method(self) -> Option<VerificationMethod> {
        match self {
            LiveIncome::None => None,
            LiveIncome::PlaidCheck | LiveIncome::LocalSandbox => Some(VerificationMethod::Bank),
            LiveIncome::Argyle => Some(VerificationMethod::Payroll),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_can_not_be_configured_for_live_verifications() {
        assert!(
            LiveIncome::parse(Some("plaid")).is_err(),
            "Bank Income is retired"
        );
        assert_eq!(
            LiveIncome::parse(Some("plaid_check")).unwrap(),
            LiveIncome::PlaidCheck
        );
        assert_eq!(LiveIncome::parse(Some("none")).unwrap(), LiveIncome::None);
        assert_eq!(
            LiveIncome::parse(Some("argyle")).unwrap(),
            LiveIncome::Argyle
        );
        assert_eq!(LiveIncome::parse(None).unwrap(), LiveIncome::None);
        let refused = LiveIncome::parse(Some("sandbox")).unwrap_err();
        assert!(
            refused.to_string().contains("sandbox is refused"),
            "{refused}"
        );
        assert!(LiveIncome::parse(Some("Sandbox")).is_err());
        assert!(LiveIncome::parse(Some("local_sandbox")).is_err());
    }
}
