//! The income providers of live verifications, chosen once per cold start from
//! `INCOME_PROVIDERS`: Plaid Check (bank) and Argyle (payroll), in the stack's order; none; or
//! (only in the local stack) the sandbox standing in for a bank.
//!
//! Each method is served by its own provider. The tenant's users at the providers are made at
//! consent, one per provider the verification may use, and stored as one handle
//! (`ports::provider_users`): each provider is handed only its own part.

use futures::future::{join_all, try_join_all};

use domain::Verification;
use domain::income::{ProviderIncome, VerificationMethod};
use domain::tenant_identity::TenantIdentity;
use ports::{ConnectStep, IncomeProvider, ProviderError, provider_users};
use service::sandbox::SandboxProvider;

/// One provider of live verifications.
pub enum Provider {
    /// Bank income through Plaid Check's Consumer Report (asks the tenant's identity at consent).
    PlaidCheck(crate::plaid::check::PlaidCheckIncomeProvider),
    /// Payroll income through Argyle.
    Argyle(crate::argyle::ArgyleIncomeProvider),
    /// The local stack's stand-in for a bank (`make dev`, tests). Never for a deployment: its
    /// income is invented.
    LocalSandbox(SandboxProvider),
}

impl Provider {
    fn method(&self) -> VerificationMethod {
        match self {
            Provider::PlaidCheck(_) | Provider::LocalSandbox(_) => VerificationMethod::Bank,
            Provider::Argyle(_) => VerificationMethod::Payroll,
        }
    }
}

/// The income providers of live verifications, one per method, in the stack's order. None: live
/// verifications cannot be completed (and are refused at create).
pub struct LiveProvider {
    providers: Vec<Provider>,
    methods: Vec<VerificationMethod>,
}

impl LiveProvider {
    /// These providers, in this order; a second provider of one method is left out.
    pub fn of(providers: impl IntoIterator<Item = Provider>) -> Self {
        let mut live = LiveProvider {
            providers: vec![],
            methods: vec![],
        };
        for provider in providers {
            if !live.methods.contains(&provider.method()) {
                live.methods.push(provider.method());
                live.providers.push(provider);
            }
        }
        live
    }

    /// No provider.
    pub fn none() -> Self {
        Self::of([])
    }

    /// The local stack's stand-in for a bank-income provider (`make dev`, tests).
    pub fn local_sandbox() -> Self {
        Self::of([Provider::LocalSandbox(SandboxProvider)])
    }

    /// Plaid Check alone (the local stack's Plaid emulator, tests).
    pub fn plaid_check(provider: crate::plaid::check::PlaidCheckIncomeProvider) -> Self {
        Self::of([Provider::PlaidCheck(provider)])
    }

    fn serving(&self, method: VerificationMethod) -> Result<&Provider, ProviderError> {
        (self.providers.iter())
            .find(|p| p.method() == method)
            .ok_or_else(|| no_live_provider(method))
    }
}

fn no_live_provider(method: VerificationMethod) -> ProviderError {
    ProviderError::Unavailable(format!(
        "no income provider for live {} verifications is configured",
        method.as_str()
    ))
}

/// The part of the stored handle that is `method`'s provider's (the sandbox has none).
fn own_part(handle: Option<&str>, method: VerificationMethod) -> Option<&str> {
    handle.and_then(|h| provider_users::part(h, method))
}

impl IncomeProvider for LiveProvider {
    /// One user at each provider the verification may use (its own methods, or every method the
    /// stack serves), made concurrently. A failure of one writes nothing, and the tenant agrees
    /// again: the users made meanwhile at the other providers are closed, best effort, so none
    /// is left holding what the tenant gave.
    async fn create_user(
        &self,
        v: &Verification,
        identity: Option<&TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        if self.providers.is_empty() {
            return Err(ProviderError::Unavailable(
                "no income provider for live verifications is configured".into(),
            ));
        }
        let wanted = |p: &&Provider| v.methods.is_empty() || v.methods.contains(&p.method());
        let tries = join_all(self.providers.iter().filter(wanted).map(|p| async move {
            let user = match p {
                Provider::PlaidCheck(p) => p.create_user(v, identity).await?,
                Provider::Argyle(p) => p.create_user(v, identity).await?,
                Provider::LocalSandbox(p) => p.create_user(v, identity).await?,
            };
            match user {
                Some(user) if !provider_users::fits(&user) => Err(ProviderError::Unavailable(
                    "a provider's user handle can not be stored".into(),
                )),
                user => Ok(user.map(|u| (p.method(), u))),
            }
        }))
        .await;
        let (made, failed): (Vec<_>, Vec<_>) = tries.into_iter().partition(Result::is_ok);
        let made: Vec<_> = made.into_iter().filter_map(Result::ok).flatten().collect();
        let joined = provider_users::join(&made);
        let Some(Err(first)) = failed.into_iter().next() else {
            return Ok(joined);
        };
        if let Some(handle) = joined.as_deref()
            && let Err(e) = self.close_user(v, handle).await
        {
            tracing::warn!(error = %e, "a user made at another provider could not be closed");
        }
        Err(first)
    }

    fn identity_methods(&self) -> &[VerificationMethod] {
        let plaid_check = |p: &Provider| matches!(p, Provider::PlaidCheck(_));
        match self.providers.iter().any(plaid_check) {
            true => &[VerificationMethod::Bank],
            false => &[],
        }
    }

    async fn begin(
        &self,
        v: &Verification,
        method: VerificationMethod,
        handle: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        let user = own_part(handle, method);
        match self.serving(method)? {
            Provider::PlaidCheck(p) => p.begin(v, method, user).await,
            Provider::Argyle(p) => p.begin(v, method, user).await,
            Provider::LocalSandbox(p) => p.begin(v, method, handle).await,
        }
    }

    async fn fetch_income(
        &self,
        v: &Verification,
        method: VerificationMethod,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        let user = own_part(Some(connection), method).unwrap_or_default();
        match self.serving(method)? {
            Provider::PlaidCheck(p) => p.fetch_income(v, method, user).await,
            Provider::Argyle(p) => p.fetch_income(v, method, user).await,
            // The connection is the scenario the tenant picked.
            Provider::LocalSandbox(p) => p.fetch_income(v, method, connection).await,
        }
    }

    fn methods(&self) -> &[VerificationMethod] {
        &self.methods
    }

    /// Every provider's user, each closed by its provider; a failure leaves the piece to be
    /// redone, and a user closed already counts as closed.
    async fn close_user(&self, v: &Verification, handle: &str) -> Result<(), ProviderError> {
        let parts = provider_users::parts(handle);
        try_join_all(parts.into_iter().map(|(method, user)| async move {
            match self.serving(method)? {
                Provider::PlaidCheck(p) => p.close_user(v, user).await,
                Provider::Argyle(p) => p.close_user(v, user).await,
                Provider::LocalSandbox(p) => p.close_user(v, user).await,
            }
        }))
        .await
        .map(|_| ())
    }

    fn simulated(&self) -> bool {
        (self.providers.iter()).any(|p| matches!(p, Provider::LocalSandbox(_)))
    }

    /// Each provider says (Plaid Check and Argyle do: their webhooks say when the data is in).
    fn reports_later(&self, method: VerificationMethod) -> bool {
        match self.serving(method) {
            Ok(Provider::PlaidCheck(p)) => p.reports_later(method),
            Ok(Provider::Argyle(p)) => p.reports_later(method),
            Ok(Provider::LocalSandbox(p)) => p.reports_later(method),
            Err(_) => false,
        }
    }
}
