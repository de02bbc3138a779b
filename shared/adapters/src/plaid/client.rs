//! The Plaid HTTP client: one authenticated JSON call, shared by the Plaid Check flow (`check`)
//! and the webhook verification keys (`webhook_keys`).

use std::fmt;

use reqwest::{header, redirect};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::plaid::config::{PlaidConfig, PlaidConfigError, parse_base_url};
use crate::plaid::errors::{plaid_error, transport_error, unavailable};
use crate::plaid::wire::{Authenticated, LinkTokenCreateResponse};
use ports::{ConnectStep, ProviderError};

/// The API version the shapes of `wire` were written against. Pinned per request so a change
/// of the default version in the Plaid dashboard cannot silently change what we parse.
const PLAID_VERSION: &str = "2020-09-14";

/// Plaid's API with the service's credentials. Build it once per cold start: it holds one HTTP
/// client (connection pool, TLS session cache).
pub struct PlaidClient {
    http: reqwest::Client,
    base_url: String,
    client_id: String,
    secret: String,
    /// The local stack's stand-in Link script (None: Plaid's own).
    link_script: Option<String>,
}

impl fmt::Debug for PlaidClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaidClient")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl PlaidClient {
    pub fn new(config: PlaidConfig) -> Result<Self, PlaidConfigError> {
        let (base_url, plain_http) = parse_base_url(&config.base_url)?;
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            // Plaid never redirects its API; following one could send the secret elsewhere.
            .redirect(redirect::Policy::none())
            .https_only(!plain_http)
            .build()
            .map_err(|_| PlaidConfigError::Client)?;
        Ok(PlaidClient {
            http,
            base_url,
            client_id: config.client_id,
            secret: config.secret,
            link_script: None,
        })
    }

    /// Link's script from `url` instead of Plaid's CDN: the local stack's stand-in only.
    pub fn with_link_script(mut self, url: String) -> Self {
        self.link_script = Some(url);
        self
    }

    /// One Plaid call: POST JSON with the credentials in the body, JSON back.
    pub(crate) async fn call<Req: Serialize, Resp: DeserializeOwned>(
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

impl PlaidClient {
    /// `/link/token/create`, and Plaid Link opened with the token.
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
            script: self.link_script.clone(),
        })
    }
}
