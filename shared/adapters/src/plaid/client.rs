//! The Plaid HTTP client and the three calls of the flow (see the module docs of `plaid`).

use std::fmt;

use reqwest::{header, redirect};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::plaid::DAYS_REQUESTED;
use crate::plaid::config::{PlaidConfig, PlaidConfigError, parse_base_url};
use crate::plaid::errors::{plaid_error, transport_error, unavailable};
use crate::plaid::income::income_from_report;
use crate::plaid::wire::{
    Authenticated, BankIncomeGetOptions, BankIncomeGetRequest, BankIncomeGetResponse,
    BankIncomeOptions, IncomeVerificationOptions, LinkTokenCreateRequest, LinkTokenCreateResponse,
    LinkUser, UserCreateRequest, UserCreateResponse, UserRemoveRequest, UserRemoveResponse,
};
use domain::Verification;
use domain::income::ProviderIncome;
use ports::{ConnectStep, IncomeProvider, ProviderError};

/// The API version the shapes of `wire` were written against. Pinned per request so a change
/// of the default version in the Plaid dashboard cannot silently change what we parse.
const PLAID_VERSION: &str = "2020-09-14";
const CLIENT_NAME: &str = "Tenant Income Verification";

/// The Plaid Bank Income implementation of [`IncomeProvider`]. Build it once per cold start: it
/// holds one HTTP client (connection pool, TLS session cache).
pub struct PlaidIncomeProvider {
    http: reqwest::Client,
    base_url: String,
    client_id: String,
    secret: String,
}

impl fmt::Debug for PlaidIncomeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaidIncomeProvider")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl PlaidIncomeProvider {
    pub fn new(config: PlaidConfig) -> Result<Self, PlaidConfigError> {
        let (base_url, plain_http) = parse_base_url(&config.base_url)?;
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            // Plaid never redirects its API; following one could send the secret elsewhere.
            .redirect(redirect::Policy::none())
            .https_only(!plain_http)
            .build()
            .map_err(|_| PlaidConfigError::Client)?;
        Ok(PlaidIncomeProvider {
            http,
            base_url,
            client_id: config.client_id,
            secret: config.secret,
        })
    }

    /// One Plaid call: POST JSON with the credentials in the body, JSON back.
    pub(super) async fn call<Req: Serialize, Resp: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        request: &Req,
    ) -> Result<Resp, ProviderError> {
        let body = serde_json::to_vec(&Authenticated {
            client_id: &self.client_id,
            secret: &self.secret,
            request,
        })
        .map_err(|_| unavailable(endpoint, "the request could not be encoded"))?;
        let response = self
            .http
            .post(format!("{}{endpoint}", self.base_url))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json")
            .header("Plaid-Version", PLAID_VERSION)
            .body(body)
            .send()
            .await
            .map_err(|e| transport_error(endpoint, &e))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| transport_error(endpoint, &e))?;
        if !status.is_success() {
            return Err(plaid_error(endpoint, status, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            // The serde message can quote values from the body (tokens); line and column suffice.
            tracing::warn!(
                endpoint,
                line = e.line(),
                column = e.column(),
                "malformed answer from Plaid"
            );
            unavailable(endpoint, "malformed answer")
        })
    }
}

impl PlaidIncomeProvider {
    /// `/link/token/create`, and Plaid Link opened with the token (Bank Income and Plaid Check).
    pub(super) async fn link_widget<Req: Serialize>(
        &self,
        request: &Req,
    ) -> Result<ConnectStep, ProviderError> {
        let link: LinkTokenCreateResponse = self.call("/link/token/create", request).await?;
        if link.link_token.trim().is_empty() {
            return Err(unavailable("/link/token/create", "empty link_token"));
        }
        Ok(ConnectStep::Widget {
            link_token: link.link_token,
        })
    }
}

impl IncomeProvider for PlaidIncomeProvider {
    async fn create_user(
        &self,
        verification: &Verification,
        _identity: Option<&domain::tenant_identity::TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        // Plaid refuses a second /user/create for a client_user_id and never hands a user token
        // out again, so a user created by an attempt whose store write then failed would block
        // every retry. Each attempt gets its own id (the verification id plus a random suffix).
        let client_user_id = format!(
            "{}-{:08x}",
            verification.verification_id,
            rand::random::<u32>()
        );
        let created: UserCreateResponse = self
            .call(
                "/user/create",
                &UserCreateRequest {
                    client_user_id: &client_user_id,
                },
            )
            .await?;
        // Clients enabled for Plaid's newer user APIs get only a user_id back; this adapter
        // speaks the user_token flow of Bank Income.
        let user_token = created
            .user_token
            .filter(|t| !t.trim().is_empty() && !t.contains(' '))
            .ok_or_else(|| unavailable("/user/create", "no user_token in the answer"))?;
        Ok(Some(format!("{client_user_id} {user_token}")))
    }

    async fn begin(
        &self,
        verification: &Verification,
        provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        // Link tokens live four hours and serve one Link session: every page gets a fresh one for
        // the verification's stored user, so a tenant coming back later is never stuck.
        let Some((client_user_id, user_token)) =
            provider_user.and_then(|h| parse_handle(verification, h))
        else {
            return Err(unavailable(
                "/link/token/create",
                "no Plaid user for this verification",
            ));
        };
        self.link_widget(&LinkTokenCreateRequest {
            client_name: CLIENT_NAME,
            language: "en",
            country_codes: ["US"],
            user: LinkUser {
                client_user_id: &client_user_id,
            },
            user_token,
            products: ["income_verification"],
            income_verification: IncomeVerificationOptions {
                income_source_types: ["bank"],
                bank_income: BankIncomeOptions {
                    days_requested: DAYS_REQUESTED,
                },
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
                "Plaid: no user to fetch bank income for".into(),
            ));
        };
        let response: BankIncomeGetResponse = self
            .call(
                "/credit/bank_income/get",
                &BankIncomeGetRequest {
                    user_token,
                    options: BankIncomeGetOptions { count: 1 },
                },
            )
            .await?;
        income_from_report(response)
    }

    async fn close_user(
        &self,
        verification: &Verification,
        provider_user: &str,
    ) -> Result<(), ProviderError> {
        // Bank Income's Items belong to the user and hold no access token of ours: removing the
        // user removes them (`/item/remove` needs an access token this flow never gets).
        let Some((_, user_token)) = parse_handle(verification, provider_user) else {
            return Err(ProviderError::Rejected(
                "Plaid: no user to remove for this verification".into(),
            ));
        };
        let _: UserRemoveResponse = self
            .call("/user/remove", &UserRemoveRequest { user_token })
            .await?;
        Ok(())
    }
}

/// The stored handle of a Plaid user: `"{client_user_id} {user_token}"`. A bare user token (stored
/// before the handle had two parts) belongs to the client_user_id that was the verification id.
pub(super) fn parse_handle<'a>(
    verification: &Verification,
    handle: &'a str,
) -> Option<(String, &'a str)> {
    let handle = handle.trim();
    let (client_user_id, user_token) = match handle.split_once(' ') {
        Some((id, token)) => (id.to_string(), token.trim()),
        None => (verification.verification_id.to_string(), handle),
    };
    (!client_user_id.is_empty() && !user_token.is_empty()).then_some((client_user_id, user_token))
}
