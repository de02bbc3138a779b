//! Plaid Check adapter of the `IncomeProvider` port: the Consumer Report with Income Insights,
//! Plaid's FCRA-compliant bank-income product, pulled for tenant screening.
//!
//! Which endpoints: Plaid's error reference calls `/cra/report/create` and `/cra/report/get`
//! current and `/cra/check_report/*` legacy. But `/cra/report/get` has no page in the API
//! reference (its OpenAPI entry is hidden from the docs), and it answers opaque per-product
//! `attributes`, not dated transactions. The income rules need the dated deposits, which only
//! `/cra/check_report/income_insights/get` documents. So this adapter follows the documented
//! flow ([verification-methods.md](../../../../docs/verification-methods.md) says more):
//!
//! 1. `create_user` (at consent, with the identity the tenant typed on the page): `/user/create`
//!    with `client_user_id` (the verification id plus a random suffix) and
//!    `consumer_report_user_identity`: name, e-mail, phone, date of birth and address.
//! 2. `begin` (every connect page): `/link/token/create` for the products `cra_base_report` and
//!    `cra_income_insights`, with the permissible purpose
//!    `LEGITIMATE_BUSINESS_NEED_TENANT_SCREENING` (FCRA 604(a)(3)(F)(i), a property rental) and
//!    365 days of history. Plaid Check builds the report when the tenant finishes Link.
//! 3. `fetch_income`: `/cra/check_report/income_insights/get`. The report's items hold the same
//!    income sources and dated deposits as Bank Income's, so the Bank Income mapping makes the
//!    domain's sources; each keeps Plaid's own `forecasted_average_monthly_income` beside it.
//!
//! Errors are Plaid's, decided as for Bank Income (`errors`); `PRODUCT_NOT_READY` (the report is
//! still being built) lets the tenant try again.

mod wire;

use std::fmt;

use crate::plaid::DAYS_REQUESTED;
use crate::plaid::client::{PlaidIncomeProvider, parse_handle};
use crate::plaid::config::{PlaidConfig, PlaidConfigError};
use crate::plaid::errors::unavailable;
use crate::plaid::income::income_from_report;
use crate::plaid::wire::{BankIncomeGetResponse, LinkUser};
use domain::Verification;
use domain::income::ProviderIncome;
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

/// The Plaid Check implementation of [`IncomeProvider`], on the same client and credentials as
/// Bank Income's.
pub struct PlaidCheckIncomeProvider {
    plaid: PlaidIncomeProvider,
}

impl fmt::Debug for PlaidCheckIncomeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaidCheckIncomeProvider")
            .field("plaid", &self.plaid)
            .finish()
    }
}

impl PlaidCheckIncomeProvider {
    pub fn new(config: PlaidConfig) -> Result<Self, PlaidConfigError> {
        Ok(PlaidCheckIncomeProvider {
            plaid: PlaidIncomeProvider::new(config)?,
        })
    }

    /// Creates the tenant's Plaid Check user with the identity Plaid Check requires. The handle
    /// is `"{client_user_id} {user_token}"`, as for Bank Income.
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
        let user_token = created
            .user_token
            .filter(|t| !t.trim().is_empty() && !t.contains(' '))
            .ok_or_else(|| unavailable("/user/create", "no user_token in the answer"))?;
        Ok(format!("{client_user_id} {user_token}"))
    }
}

impl IncomeProvider for PlaidCheckIncomeProvider {
    /// Plaid Check refuses a user without the consumer's identity, which only the tenant can
    /// give: the page asks it at consent (`needs_identity`) and passes it here, never stored.
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

    fn needs_identity(&self) -> bool {
        true
    }

    async fn begin(
        &self,
        verification: &Verification,
        provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        let Some((client_user_id, user_token)) =
            provider_user.and_then(|h| parse_handle(verification, h))
        else {
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
                user: LinkUser {
                    client_user_id: &client_user_id,
                },
                user_token,
                products: ["cra_base_report", "cra_income_insights"],
                consumer_report_permissible_purpose: PERMISSIBLE_PURPOSE,
                cra_options: CraOptions {
                    days_requested: DAYS_REQUESTED,
                },
            })
            .await
    }

    async fn fetch_income(
        &self,
        verification: &Verification,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        let Some((_, user_token)) = parse_handle(verification, connection) else {
            return Err(ProviderError::Rejected(
                "Plaid Check: no user to fetch a report for".into(),
            ));
        };
        let response: IncomeInsightsGetResponse = self
            .plaid
            .call(
                "/cra/check_report/income_insights/get",
                &IncomeInsightsGetRequest { user_token },
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

    /// `/user/remove`, as for Bank Income: the user goes with its reports, its connections and
    /// the identity the tenant typed.
    async fn close_user(
        &self,
        verification: &Verification,
        provider_user: &str,
    ) -> Result<(), ProviderError> {
        self.plaid.close_user(verification, provider_user).await
    }
}
