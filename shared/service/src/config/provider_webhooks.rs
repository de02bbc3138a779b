//! Configuration of `provider-webhooks`: the table, and where the live provider's credentials
//! are (its webhook keys are fetched with them).

use super::{ConfigError, Env, LiveIncome, PlaidVariables, ProviderVariables};

#[derive(Debug, Clone)]
pub struct ProviderWebhooksConfig {
    pub table_name: String,
    /// `INCOME_PROVIDERS`: whose webhooks are checked; other providers' routes 404.
    pub live_income: LiveIncome,
    /// Read only when `live_income` uses Plaid Check.
    pub plaid: PlaidVariables,
    /// Read only when `live_income` uses Argyle.
    pub argyle: ProviderVariables,
}

impl ProviderWebhooksConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        let (live_income, plaid, argyle) = ProviderVariables::with_live_income(env)?;
        Ok(ProviderWebhooksConfig {
            table_name: env.required("TABLE_NAME")?,
            live_income,
            plaid,
            argyle,
        })
    }
}
