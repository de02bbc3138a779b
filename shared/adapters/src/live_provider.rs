//! The income provider of live verifications, chosen once per cold start: Plaid Check (bank),
//! Argyle (payroll), none, or (only in the local stack) the sandbox standing in for a bank.

use domain::Verification;
use domain::income::ProviderIncome;
use domain::tenant_identity::TenantIdentity;
use ports::{ConnectStep, IncomeProvider, ProviderError};
use service::sandbox::SandboxProvider;

/// The income provider of live verifications. A deployment chooses `PlaidCheck`, `Argyle` or
/// `None` through `INCOME_PROVIDER`; `LocalSandbox` is built only in code, by the local stack.
pub enum LiveProvider {
    /// Bank income through Plaid Check's Consumer Report (asks the tenant's identity at consent).
    PlaidCheck(crate::plaid::check::PlaidCheckIncomeProvider),
    Argyle(crate::argyle::ArgyleIncomeProvider),
    /// No provider: live verifications cannot be completed (and are refused at create).
    None,
    LocalSandbox(SandboxProvider),
}

impl LiveProvider {
    /// The local stack's stand-in for a bank-income provider (`make dev`, tests). Never for a
    /// deployment: its income is invented.
    pub fn local_sandbox() -> Self {
        LiveProvider::LocalSandbox(SandboxProvider)
    }
}

fn no_live_provider() -> ProviderError {
    ProviderError::Unavailable("no income provider for live verifications is configured".into())
}

impl IncomeProvider for LiveProvider {
    async fn create_user(
        &self,
        v: &Verification,
        identity: Option<&TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        match self {
            LiveProvider::PlaidCheck(p) => p.create_user(v, identity).await,
            LiveProvider::Argyle(p) => p.create_user(v, identity).await,
            LiveProvider::None => Err(no_live_provider()),
            LiveProvider::LocalSandbox(p) => p.create_user(v, identity).await,
        }
    }

    fn needs_identity(&self) -> bool {
        match self {
            LiveProvider::PlaidCheck(p) => p.needs_identity(),
            _ => false,
        }
    }

    async fn begin(
        &self,
        v: &Verification,
        provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        match self {
            LiveProvider::PlaidCheck(p) => p.begin(v, provider_user).await,
            LiveProvider::Argyle(p) => p.begin(v, provider_user).await,
            LiveProvider::None => Err(no_live_provider()),
            LiveProvider::LocalSandbox(p) => p.begin(v, provider_user).await,
        }
    }

    async fn fetch_income(
        &self,
        v: &Verification,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        match self {
            LiveProvider::PlaidCheck(p) => p.fetch_income(v, connection).await,
            LiveProvider::Argyle(p) => p.fetch_income(v, connection).await,
            LiveProvider::None => Err(no_live_provider()),
            LiveProvider::LocalSandbox(p) => p.fetch_income(v, connection).await,
        }
    }

    fn method(&self) -> domain::income::VerificationMethod {
        match self {
            LiveProvider::Argyle(p) => p.method(),
            _ => domain::income::VerificationMethod::Bank,
        }
    }

    async fn close_user(&self, v: &Verification, provider_user: &str) -> Result<(), ProviderError> {
        match self {
            LiveProvider::PlaidCheck(p) => p.close_user(v, provider_user).await,
            LiveProvider::Argyle(p) => p.close_user(v, provider_user).await,
            LiveProvider::None => Err(no_live_provider()),
            LiveProvider::LocalSandbox(p) => p.close_user(v, provider_user).await,
        }
    }

    fn simulated(&self) -> bool {
        matches!(self, LiveProvider::LocalSandbox(_))
    }

    fn reports_later(&self) -> bool {
        matches!(self, LiveProvider::PlaidCheck(_))
    }
}
