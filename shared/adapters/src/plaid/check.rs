//! Plaid Check adapter of the `IncomeProvider` port: the Consumer Report with Income Insights,
//! Plaid's FCRA-compliant bank-income product, pulled for tenant screening, on Plaid's new User
//! APIs (https://plaid.com/docs/api/users/user-apis/): a client that first called `/user/create`
//! on or after 10 December 2025 gets a `user_id` and no `user_token`, and names the user by that
//! `user_id` in every later call and webhook. This service is such a client.
//!
//! Which endpoints: Plaid's error reference calls `/cra/report/create` and `/cra/report/get`
//! current and `/cra/check_report/*` legacy, and its "Migrate from legacy Plaid Check APIs" page
//! says the legacy ones keep working. `/cra/report/get` answers per-product `attributes`, not
//! dated transactions, and needs decision stages enabled by contract. The income rules need the
//! dated deposits, which only `/cra/check_report/income_insights/get` documents. So this adapter
//! follows that documented flow ([verification-methods.md](../../../../docs/verification-methods.md)
//! says more):
//!
//! 1. `create_user` (at consent, with the identity the tenant typed on the page): `/user/create`
//!    with `client_user_id` (the verification id plus a random suffix) and
//!    `consumer_report_user_identity`. The answer's `user_id` is kept as the handle
//!    `"{client_user_id} {user_id}"`; an answer without one (a legacy client) is refused.
//! 2. `begin` (every connect page): `/link/token/create` with `user_id`, the products
//!    `cra_base_report` and `cra_income_insights`, the permissible purpose
//!    `LEGITIMATE_BUSINESS_NEED_TENANT_SCREENING` (FCRA 604(a)(3)(F)(i), a property rental),
//!    365 days of history and the `webhook` Plaid Check sends `CHECK_REPORT_READY` to. Plaid
//!    Check builds the report after the tenant finishes Link, and tells us by that webhook.
//! 3. `fetch_income` (once the report is ready): `/cra/check_report/income_insights/get` with
//!    `user_id`. The report's items hold the same sources and dated deposits as the older Bank
//!    Income report, so one mapping (`income`) makes the domain's sources; each keeps Plaid's own
//!    `forecasted_average_monthly_income` beside it.
//! 4. `close_user`: `/user/remove` with `user_id`.
//!
//! Errors are Plaid's (`errors`); `PRODUCT_NOT_READY` (the report is still being built) is
//! transient.

mod wire;

use std::fmt;

use crate::plaid::DAYS_REQUESTED;
use crate::plaid::client::PlaidClient;
use crate::plaid::config::{PlaidConfig, PlaidConfigError};
use crate::plaid::errors::unavailable;
use crate::plaid::income::income_from_report;
use crate::plaid::wire::{BankIncomeGetResponse, LinkUser, UserRemoveRequest, UserRemoveResponse};
use domain::Verification;
use domain::income::{ProviderIncome, VerificationMethod};
use domain::tenant_identity::TenantIdentity;
use ports::{ConnectStep, IncomeProvider, ProviderError};

pub use crate::plaid::check::wire::{ConsumerAddress, ConsumerIdentity};
use crate::plaid::check::wire::{
    CraOptions, IncomeInsightsGetRequest, IncomeInsightsGetResponse, LinkTokenCreateRequest,
    UserCreateRequest, UserCreateResponse, forecasts_in_mapping_order,
};

/// The FCRA permissible purpose of every report this service pulls: a property rental.
pub const PERMISSIBLE_PURPOSE: &str = "LEGITIMATE_BUSINESS_NEED_TENANT_SCREENING";
const CLIENT_NAME: &str = "Tenant Income Verification";

/// The Plaid Check implementation of [`IncomeProvider`].
pub struct PlaidCheckIncomeProvider {
    plaid: PlaidClient,
    /// Where Plaid Check sends this service's webhooks (`POST /webhooks/providers/plaid`); the
    /// verification id rides along as a query parameter (see `webhook_for`).
    webhook_url: Option<String>,
}

impl fmt::Debug for PlaidCheckIncomeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaidCheckIncomeProvider")
            .field("plaid", &self.plaid)
            .field("webhook_url", &self.webhook_url)
            .finish()
    }
}

impl PlaidCheckIncomeProvider {
    pub fn new(config: PlaidConfig) -> Result<Self, PlaidConfigError> {
        Ok(PlaidCheckIncomeProvider {
            plaid: PlaidClient::new(config)?,
            webhook_url: None,
        })
    }

    /// Opens Link with the local stack's stand-in script (the Plaid emulator's), never Plaid's.
    pub fn with_link_script(mut self, url: String) -> Self {
        self.plaid = self.plaid.with_link_script(url);
        self
    }

    /// Sets the webhook URL given to every link token (the stack's provider-webhooks route).
    pub fn with_webhook_url(mut self, url: Option<String>) -> Self {
        self.webhook_url = url;
        self
    }

    /// The webhook of one verification's Link session: Plaid's `CHECK_REPORT_*` webhooks carry
    /// only the `user_id`, so the verification they concern is named in the URL. The handler
    /// trusts it only when the signed body's `user_id` is that verification's user.
    fn webhook_for(&self, verification: &Verification) -> Option<String> {
        self.webhook_url
            .as_ref()
            .map(|url| format!("{url}?verification_id={}", verification.verification_id))
    }

    /// Creates the tenant's Plaid Check user with the identity Plaid Check requires. The handle
    /// is `"{client_user_id} {user_id}"`.
    pub async fn create_user_with(
        &self,
        verification: &Verification,
        identity: &ConsumerIdentity,
    ) -> Result<String, ProviderError> {
        let client_user_id = format!(
            "{}-{:08x}",
            verification.verification_id,
            rand::random::<u32>()
        );
        let created: UserCreateResponse = self
            .plaid
            .call(
                "/user/create",
                &UserCreateRequest {
                    client_user_id: &client_user_id,
                    consumer_report_user_identity: identity,
                },
            )
            .await?;
        // A client still on the legacy User APIs gets a user_token instead; this service never
        // was one, so that answer is a configuration to fix, not a flow to follow.
        let user_id = created
            .user_id
            .filter(|t| !t.trim().is_empty() && !t.contains(' '))
            .ok_or_else(|| unavailable("/user/create", "no user_id in the answer"))?;
        Ok(format!("{client_user_id} {user_id}"))
    }
}

impl IncomeProvider for PlaidCheckIncomeProvider {
    /// Plaid Check refuses a user without the consumer's identity, which only the tenant can
    /// give: the page asks it at consent (`identity_methods`) and passes it here, never stored.
    async fn create_user(
        &self,
        verification: &Verification,
        identity: Option<&TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        let Some(identity) = identity else {
            return Err(unavailable(
                "/user/create",
                "Plaid Check needs the tenant's date of birth and address first",
            ));
        };
        let consumer = ConsumerIdentity {
            first_name: identity.first_name.clone(),
            last_name: identity.last_name.clone(),
            emails: vec![verification.tenant_email.clone()],
            phone_numbers: vec![identity.phone.clone()],
            date_of_birth: identity.date_of_birth,
            primary_address: ConsumerAddress {
                street: identity.street.clone(),
                city: identity.city.clone(),
                region: identity.region.clone(),
                postal_code: identity.postal_code.clone(),
                country: "US".into(),
            },
        };
        self.create_user_with(verification, &consumer)
            .await
            .map(Some)
    }

    fn identity_methods(&self) -> &[VerificationMethod] {
        &[VerificationMethod::Bank]
    }

    /// Plaid Check builds the report after Link and says so by `CHECK_REPORT_READY`.
    fn reports_later(&self, _method: VerificationMethod) -> bool {
        true
    }

    async fn begin(
        &self,
        verification: &Verification,
        _method: VerificationMethod,
        provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        let Some((client_user_id, user_id)) = provider_user.and_then(parse_handle) else {
            return Err(unavailable(
                "/link/token/create",
                "no Plaid Check user for this verification",
            ));
        };
        self.plaid
            .link_widget(&LinkTokenCreateRequest {
                client_name: CLIENT_NAME,
                language: "en",
                country_codes: ["US"],
                user: LinkUser { client_user_id },
                user_id,
                products: ["cra_base_report", "cra_income_insights"],
                consumer_report_permissible_purpose: PERMISSIBLE_PURPOSE,
                cra_options: CraOptions {
                    days_requested: DAYS_REQUESTED,
                },
                webhook: self.webhook_for(verification),
            })
            .await
    }

    async fn fetch_income(
        &self,
        _verification: &Verification,
        _method: VerificationMethod,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        let Some((_, user_id)) = parse_handle(connection) else {
            return Err(ProviderError::Rejected(
                "Plaid Check: no user to fetch a report for".into(),
            ));
        };
        let response: IncomeInsightsGetResponse = self
            .plaid
            .call(
                "/cra/check_report/income_insights/get",
                &IncomeInsightsGetRequest { user_id },
            )
            .await?;
        let forecasts = forecasts_in_mapping_order(&response.report.forecasts);
        let mut income = income_from_report(BankIncomeGetResponse {
            bank_income: vec![response.report.base],
        })?;
        for (source, forecast) in income.sources.iter_mut().zip(forecasts) {
            source.provider_forecast_monthly = forecast;
        }
        Ok(income)
    }

    /// `/user/remove`: the user goes with its reports, its connections and the identity the
    /// tenant typed.
    async fn close_user(
        &self,
        _verification: &Verification,
        provider_user: &str,
    ) -> Result<(), ProviderError> {
        let Some((_, user_id)) = parse_handle(provider_user) else {
            return Err(ProviderError::Rejected(
                "Plaid Check: no user to remove for this verification".into(),
            ));
        };
        let _: UserRemoveResponse = self
            .plaid
            .call("/user/remove", &UserRemoveRequest { user_id })
            .await?;
        Ok(())
    }
}

/// The stored handle of a Plaid Check user: `"{client_user_id} {user_id}"`.
pub fn parse_handle(handle: &str) -> Option<(&str, &str)> {
    let (client_user_id, user_id) = handle.trim().split_once(' ')?;
    let user_id = user_id.trim();
    (!client_user_id.is_empty() && !user_id.is_empty()).then_some((client_user_id, user_id))
}

/// The Plaid `user_id` of a stored handle (what Plaid's webhooks name).
pub fn user_id_of(handle: &str) -> Option<&str> {
    parse_handle(handle).map(|(_, user_id)| user_id)
}
