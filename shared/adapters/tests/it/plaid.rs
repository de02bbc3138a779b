//! The Plaid adapter against recorded Plaid answers (tests/fixtures/plaid/, written from Plaid's
//! API reference), served on 127.0.0.1 by `fake_provider`, which also records what the adapter
//! sends.

use std::time::Duration;

use adapters::plaid::check::PlaidCheckIncomeProvider;
use adapters::plaid::{PlaidConfig, PlaidConfigError};
use domain::tenant_identity::TenantIdentity;
use ports::{IncomeProvider, ProviderError};
use serde_json::json;

use crate::fake_provider::{
    FakeProvider, Recorded, Reply, TENANT_EMAIL, expect_rejected, expect_unavailable, ok,
    verification,
};

const CLIENT_ID: &str = "5f7c1a2b3c4d5e6f7a8b9c0d";
const SECRET: &str = "b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8";
/// The Plaid user of the new User APIs (`user_id`), as a stored handle.
const USER_ID: &str = "usr_8c3ZbDBfXwJbV7Bq6sPWzRm2";
const HANDLE: &str = "0b7f9a52-3c1e-4d8e-9f61-2a4c5e7d9b13-00c0ffee usr_8c3ZbDBfXwJbV7Bq6sPWzRm2";
const LINK_TOKEN: &str = "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176";

const USER_CREATE: &str = include_str!("../fixtures/plaid/user_create.json");
const INCOME_INSIGHTS: &str = include_str!("../fixtures/plaid_check/income_insights_get.json");
const PRODUCT_NOT_READY: &str = include_str!("../fixtures/plaid/error_product_not_ready.json");
const INVALID_API_KEYS: &str = include_str!("../fixtures/plaid/error_invalid_api_keys.json");
const REPORT_NOT_FOUND: &str =
    include_str!("../fixtures/plaid_check/error_consumer_report_not_found.json");
const INTERNAL_SERVER_ERROR: &str =
    include_str!("../fixtures/plaid/error_internal_server_error.json");

/// An identity as the consent form gives it.
pub(crate) fn typed_identity() -> TenantIdentity {
    TenantIdentity {
        first_name: "Jane".into(),
        last_name: "Tenant".into(),
        phone: "+14155550123".into(),
        date_of_birth: "1990-04-12".parse().unwrap(),
        street: "1 Main St".into(),
        city: "Oakland".into(),
        region: "CA".into(),
        postal_code: "94612".into(),
    }
}

// ---- A fake Plaid ------------------------------------------------------------------------------

struct FakePlaid {
    server: FakeProvider,
}

impl FakePlaid {
    /// Serves `routes` (path -> reply); unknown paths get a Plaid-style 404.
    async fn start(routes: Vec<(&'static str, Reply)>) -> Self {
        FakePlaid {
            server: FakeProvider::start(routes).await,
        }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.server.requests()
    }

    fn provider(&self) -> PlaidCheckIncomeProvider {
        self.provider_with_timeout(Duration::from_secs(5))
    }

    fn provider_with_timeout(&self, timeout: Duration) -> PlaidCheckIncomeProvider {
        PlaidCheckIncomeProvider::new(PlaidConfig {
            base_url: self.server.base_url.clone(),
            client_id: CLIENT_ID.into(),
            secret: SECRET.into(),
            timeout,
        })
        .unwrap()
    }
}

// ---- Helpers -----------------------------------------------------------------------------------

/// What no error text may carry: the secret, a token, an e-mail address, the client id.
const FORBIDDEN: &[&str] = &[SECRET, USER_ID, LINK_TOKEN, "@", CLIENT_ID];

fn unavailable(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    expect_unavailable(result, FORBIDDEN)
}

fn rejected(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    expect_rejected(result, FORBIDDEN)
}

fn assert_authenticated(request: &Recorded, path: &str) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, path);
    assert_eq!(request.headers["content-type"], "application/json");
    assert_eq!(request.headers["plaid-version"], "2020-09-14");
    assert_eq!(request.body["client_id"], CLIENT_ID);
    assert_eq!(request.body["secret"], SECRET);
    // Nothing about the tenant goes to Plaid but the verification id.
    assert!(!request.body.to_string().contains('@'));
}

mod config;
mod errors;
