//! The Argyle HTTP client and the calls of the flow (see the module docs of `argyle`).

use std::fmt;

use reqwest::{Method, StatusCode, header, redirect};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::argyle::config::{ArgyleConfig, ArgyleConfigError, base_url_of};
use crate::argyle::errors::{argyle_error, transport_error, unavailable};
use crate::argyle::income::{
    Records, as_of, connected_accounts, income_from_records, is_gig_platform,
};
use crate::argyle::wire::{
    Account, Employment, Gig, Identity, Page, Paystub, User, UserCreateRequest, UserCreateResponse,
    UserTokenRequest, UserTokenResponse,
};
use domain::Verification;
use domain::income::{ProviderIncome, VerificationMethod};
use ports::{ConnectStep, IncomeProvider, ProviderError};

/// Items per list page (Argyle's maximum).
const PAGE_LIMIT: &str = "200";
/// At most this many pages per list: 2,000 pay stubs is decades of weekly pay...
const MAX_PAGES: usize = 10;
/// ...and 10,000 gigs is a year of some 27 a day.
const MAX_GIG_PAGES: usize = 50;
/// Gigs are read from this many days before the as-of date: the rules look back a year.
const GIG_DAYS: i64 = domain::income::rules::YEAR_DAYS;

/// The Argyle implementation of [`IncomeProvider`]. Build it once per cold start: it holds one
/// HTTP client (connection pool, TLS session cache).
pub struct ArgyleIncomeProvider {
    http: reqwest::Client,
    base_url: String,
    api_key_id: String,
    api_key_secret: String,
    sandbox: bool,
    /// The local stack's stand-in for Argyle Link's script; None: Argyle's own.
    link_script: Option<String>,
}

impl fmt::Debug for ArgyleIncomeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArgyleIncomeProvider")
            .field("base_url", &self.base_url)
            .field("api_key_id", &self.api_key_id)
            .field("api_key_secret", &"<redacted>")
            .finish()
    }
}

impl ArgyleIncomeProvider {
    pub fn new(config: ArgyleConfig) -> Result<Self, ArgyleConfigError> {
        let (base_url, plain_http) = base_url_of(&config.base_url)?;
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            // Argyle never redirects its API; following one could send the key elsewhere.
            .redirect(redirect::Policy::none())
            .https_only(!plain_http)
            .build()
            .map_err(|_| ArgyleConfigError::Client)?;
        Ok(ArgyleIncomeProvider {
            sandbox: base_url.contains("sandbox") || plain_http,
            http,
            base_url,
            api_key_id: config.api_key_id,
            api_key_secret: config.api_key_secret,
            link_script: None,
        })
    }

    /// Opens Link with the script at `url` (the local stack's stand-in) instead of Argyle's.
    pub fn with_link_script(mut self, url: String) -> Self {
        self.link_script = Some(url);
        self
    }

    /// One request with Basic auth (a JSON body when given): the status and the answer's bytes.
    async fn send(
        &self,
        endpoint: &'static str,
        method: Method,
        url: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(StatusCode, Vec<u8>), ProviderError> {
        let mut request = self
            .http
            .request(method, url)
            .basic_auth(&self.api_key_id, Some(&self.api_key_secret))
            .header(header::ACCEPT, "application/json");
        if let Some(body) = body {
            request = request
                .header(header::CONTENT_TYPE, "application/json")
                .body(body);
        }
        let response = request
            .send()
            .await
            .map_err(|e| transport_error(endpoint, &e))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| transport_error(endpoint, &e))?;
        Ok((status, bytes.to_vec()))
    }

    /// One call: Basic auth, JSON both ways.
    async fn call<Resp: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        method: Method,
        url: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Resp, ProviderError> {
        let (status, bytes) = self.send(endpoint, method, url, body).await?;
        if !status.is_success() {
            return Err(argyle_error(endpoint, status));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            // The serde message can quote values from the body; line and column suffice.
            tracing::warn!(
                endpoint,
                line = e.line(),
                column = e.column(),
                "malformed answer from Argyle"
            );
            unavailable(endpoint, "malformed answer")
        })
    }

    async fn post<Req: Serialize, Resp: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        request: &Req,
    ) -> Result<Resp, ProviderError> {
        let body = serde_json::to_vec(request)
            .map_err(|_| unavailable(endpoint, "the request could not be encoded"))?;
        let url = format!("{}{endpoint}", self.base_url);
        self.call(endpoint, Method::POST, &url, Some(body)).await
    }

    /// Every item of a list for one user, following `next` while it stays on the same endpoint
    /// of the same host (a `next` elsewhere would receive the API key).
    async fn list<T: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        user: &str,
    ) -> Result<Vec<T>, ProviderError> {
        self.list_from(endpoint, user, &[], MAX_PAGES).await
    }

    /// `list` with more query parameters and its own page cap.
    async fn list_from<T: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        user: &str,
        more: &[(&str, &str)],
        max_pages: usize,
    ) -> Result<Vec<T>, ProviderError> {
        let params = [("user", user), ("limit", PAGE_LIMIT)];
        let first = reqwest::Url::parse_with_params(
            &format!("{}{endpoint}", self.base_url),
            params.iter().chain(more),
        )
        .map_err(|_| unavailable(endpoint, "the request could not be encoded"))?;
        let prefix = format!("{}{endpoint}?", self.base_url);
        let mut url = first.to_string();
        let mut items = Vec::new();
        for _ in 0..max_pages {
            match self
                .call::<Page<T>>(endpoint, Method::GET, &url, None)
                .await?
            {
                Page::Bare(page) => {
                    items.extend(page);
                    return Ok(items);
                }
                Page::Paged { next, results } => {
                    items.extend(results);
                    match next.filter(|n| !n.trim().is_empty()) {
                        None => return Ok(items),
                        Some(n) if n.starts_with(&prefix) => url = n,
                        Some(_) => return Err(unavailable(endpoint, "a next page elsewhere")),
                    }
                }
            }
        }
        Err(unavailable(endpoint, "too many pages"))
    }
}

impl ArgyleIncomeProvider {
    /// The verification `user` was made for: `GET /v2/users/{id}`, whose `external_id` is the
    /// verification id and a random suffix (`create_user`). None: no such user, or not ours.
    /// https://docs.argyle.com/api-reference/users/retrieve-a-user
    pub async fn verification_of(&self, user: &str) -> Result<Option<uuid::Uuid>, ProviderError> {
        const ENDPOINT: &str = "/v2/users/{id}";
        let user = user.trim();
        if !is_user_id(user) {
            return Ok(None);
        }
        let url = format!("{}/v2/users/{user}", self.base_url);
        let (status, bytes) = self.send(ENDPOINT, Method::GET, &url, None).await?;
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(argyle_error(ENDPOINT, status));
        }
        let found: User = serde_json::from_slice(&bytes)
            .map_err(|_| unavailable(ENDPOINT, "malformed answer"))?;
        Ok(found
            .external_id
            .as_deref()
            .and_then(|e| e.get(..36))
            .and_then(|id| uuid::Uuid::parse_str(id).ok()))
    }
}

impl IncomeProvider for ArgyleIncomeProvider {
    fn methods(&self) -> &[VerificationMethod] {
        &[VerificationMethod::Payroll]
    }

    /// Argyle syncs the pay stubs (or gigs) after Link and says so by `paystubs.fully_synced`
    /// (or `gigs.fully_synced`).
    fn reports_later(&self, _method: VerificationMethod) -> bool {
        true
    }

    async fn create_user(
        &self,
        verification: &Verification,
        _identity: Option<&domain::tenant_identity::TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        // Our reference only; a fresh one per attempt, as for Plaid, so a user made by an attempt
        // whose store write failed never blocks the next.
        let external_id = format!(
            "{}-{:08x}",
            verification.verification_id,
            rand::random::<u32>()
        );
        let created: UserCreateResponse = self
            .post(
                "/v2/users",
                &UserCreateRequest {
                    external_id: &external_id,
                },
            )
            .await?;
        let id = created.id.trim();
        if !is_user_id(id) {
            return Err(unavailable("/v2/users", "no usable user id in the answer"));
        }
        Ok(Some(id.to_string()))
    }

    async fn begin(
        &self,
        _verification: &Verification,
        _method: VerificationMethod,
        provider_user: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        let Some(user) = provider_user.map(str::trim).filter(|u| is_user_id(u)) else {
            return Err(unavailable(
                "/v2/user-tokens",
                "no Argyle user for this verification",
            ));
        };
        let token: UserTokenResponse = self
            .post("/v2/user-tokens", &UserTokenRequest { user })
            .await?;
        let user_token = token
            .user_token
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| unavailable("/v2/user-tokens", "empty user token"))?;
        Ok(ConnectStep::PayrollWidget {
            user_token,
            sandbox: self.sandbox,
            script: self.link_script.clone(),
        })
    }

    async fn fetch_income(
        &self,
        _verification: &Verification,
        _method: VerificationMethod,
        connection: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        let user = connection.trim();
        if !is_user_id(user) {
            return Err(ProviderError::Rejected(
                "Argyle: no user to fetch payroll income for".into(),
            ));
        }
        let accounts: Vec<Account> = self.list("/v2/accounts", user).await?;
        // Nothing more is read before a connection is there and its pay stubs (or gigs) are in.
        let read = connected_accounts(&accounts)?;
        // Gigs only where a gig platform is read, over the year the rules look at.
        let gigs_from = (read.iter().any(|a| is_gig_platform(a)))
            .then(|| as_of(&read))
            .transpose()?
            .map(|day| (day - chrono::Duration::days(GIG_DAYS)).format("%Y-%m-%dT00:00:00Z"))
            .map(|from| from.to_string());
        let gigs = async {
            match &gigs_from {
                Some(from) => {
                    let since = [("from_start_datetime", from.as_str())];
                    (self.list_from::<Gig>("/v2/gigs", user, &since, MAX_GIG_PAGES)).await
                }
                None => Ok(Vec::new()),
            }
        };
        let (employments, identities, paystubs, gigs) = tokio::join!(
            self.list::<Employment>("/v2/employments", user),
            self.list::<Identity>("/v2/identities", user),
            self.list::<Paystub>("/v2/paystubs", user),
            gigs,
        );
        income_from_records(Records {
            accounts,
            employments: employments?,
            identities: identities?,
            paystubs: paystubs?,
            gigs: gigs?,
        })
    }

    async fn close_user(
        &self,
        _verification: &Verification,
        provider_user: &str,
    ) -> Result<(), ProviderError> {
        // Deleting the user deletes its accounts and every record read through them.
        const ENDPOINT: &str = "/v2/users/{id}";
        let user = provider_user.trim();
        if !is_user_id(user) {
            return Err(ProviderError::Rejected(
                "Argyle: no user to delete for this verification".into(),
            ));
        }
        let url = format!("{}/v2/users/{user}", self.base_url);
        let (status, _) = self.send(ENDPOINT, Method::DELETE, &url, None).await?;
        // A user already gone (a redone piece) is closed too.
        if status.is_success() || status == StatusCode::NOT_FOUND {
            Ok(())
        } else {
            Err(argyle_error(ENDPOINT, status))
        }
    }
}

/// Argyle ids are UUIDs: hex digits and dashes only, so one is safe in a query and a log line.
pub(super) fn is_user_id(id: &str) -> bool {
    (8..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}
