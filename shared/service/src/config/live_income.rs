//! `INCOME_PROVIDERS`: where live verifications get their income, as an ordered list of
//! providers, one per method (docs/verification-methods.md).

use super::{ConfigError, Env};
use domain::income::VerificationMethod;

/// One real income provider a stack may use for live verifications.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Bank income through Plaid Check's Consumer Report (same credentials as Plaid's).
    PlaidCheck,
    /// Payroll income through Argyle.
    Argyle,
    /// The local stack only (`make dev`, tests): sandbox scenarios stand in for live data and the
    /// report says `local_sandbox: true`. Built in code; no environment variable selects it.
    LocalSandbox,
}

impl Provider {
    /// The method this provider serves for live keys (the local sandbox stands for a bank).
    pub fn method(self) -> VerificationMethod {
        match self {
            Provider::PlaidCheck | Provider::LocalSandbox => VerificationMethod::Bank,
            Provider::Argyle => VerificationMethod::Payroll,
        }
    }

    fn parse(raw: &str) -> Result<Self, ConfigError> {
        match raw {
            "plaid_check" => Ok(Provider::PlaidCheck),
            "argyle" => Ok(Provider::Argyle),
            "sandbox" => Err(ConfigError(SANDBOX_FOR_LIVE_REFUSED.into())),
            _ => Err(ConfigError(
                "INCOME_PROVIDERS must list plaid_check and/or argyle (comma-separated), or be none"
                    .into(),
            )),
        }
    }
}

/// Where the income of live verifications comes from (test verifications always use the
/// sandbox): the stack's providers in the order the tenant page offers their methods. Empty: live
/// verifications are refused at create (403 `live_mode_unavailable`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveIncome {
    providers: Vec<Provider>,
}

pub const SANDBOX_FOR_LIVE_REFUSED: &str = "INCOME_PROVIDERS=sandbox is refused: live verifications \
get income only from real providers (plaid_check, argyle) or none (live creates are refused); the sandbox serves \
test keys, and live keys only in the local stack";

impl LiveIncome {
    /// No provider: live verifications are refused.
    pub fn none() -> Self {
        LiveIncome::default()
    }

    /// These providers, in this order (the local stack and tests build it in code).
    pub fn of(providers: &[Provider]) -> Self {
        LiveIncome {
            providers: providers.to_vec(),
        }
    }

    /// The local stack's sandbox standing in for live data.
    pub fn local_sandbox() -> Self {
        Self::of(&[Provider::LocalSandbox])
    }

    /// `INCOME_PROVIDERS`: a comma-separated list of `plaid_check` and `argyle`, each at most
    /// once, in order of preference; `none` or unset: no provider. Plaid Bank Income (`plaid`)
    /// is retired (docs/verification-methods.md).
    pub fn parse(raw: Option<&str>) -> Result<Self, ConfigError> {
        let raw = raw.map(str::trim).unwrap_or("");
        if raw.is_empty() || raw == "none" {
            return Ok(LiveIncome::none());
        }
        let mut providers = Vec::new();
        for name in raw.split(',').map(str::trim) {
            let provider = Provider::parse(name)?;
            if providers.contains(&provider) {
                return Err(ConfigError(format!("INCOME_PROVIDERS names {name} twice")));
            }
            providers.push(provider);
        }
        Ok(LiveIncome { providers })
    }

    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::parse(env.optional("INCOME_PROVIDERS").as_deref())
    }

    pub fn is_none(&self) -> bool {
        self.providers.is_empty()
    }

    pub fn uses(&self, provider: Provider) -> bool {
        self.providers.contains(&provider)
    }

    /// The providers, in order.
    pub fn providers(&self) -> &[Provider] {
        &self.providers
    }

    /// The methods live keys have, in the providers' order.
    pub fn methods(&self) -> Vec<VerificationMethod> {
        self.providers.iter().map(|p| p.method()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_providers_are_an_ordered_list_without_the_sandbox() {
        assert!(
            LiveIncome::parse(Some("plaid")).is_err(),
            "Bank Income is retired"
        );
        let both = LiveIncome::parse(Some("plaid_check, argyle")).unwrap();
        assert_eq!(both.providers(), &[Provider::PlaidCheck, Provider::Argyle]);
        assert_eq!(
            both.methods(),
            vec![VerificationMethod::Bank, VerificationMethod::Payroll]
        );
        let reversed = LiveIncome::parse(Some("argyle,plaid_check")).unwrap();
        assert_eq!(
            reversed.methods(),
            vec![VerificationMethod::Payroll, VerificationMethod::Bank]
        );
        assert!(LiveIncome::parse(Some("none")).unwrap().is_none());
        assert!(LiveIncome::parse(None).unwrap().is_none());
        assert_eq!(
            LiveIncome::parse(Some("argyle")).unwrap(),
            LiveIncome::of(&[Provider::Argyle])
        );
        let twice = LiveIncome::parse(Some("argyle,argyle")).unwrap_err();
        assert!(twice.to_string().contains("twice"), "{twice}");
        let refused = LiveIncome::parse(Some("plaid_check,sandbox")).unwrap_err();
        assert!(
            refused.to_string().contains("sandbox is refused"),
            "{refused}"
        );
        assert!(LiveIncome::parse(Some("Sandbox")).is_err());
        assert!(LiveIncome::parse(Some("local_sandbox")).is_err());
        assert!(LiveIncome::parse(Some("plaid_check,")).is_err());
    }
}
