//! The Plaid adapter against recorded Plaid answers (tests/fixtures/plaid/, written from Plaid's
//! API reference), served on 127.0.0.1 by `fake_provider`, which also records what the adapter
//! sends.

use std::time::Duration;

use adapters::plaid::{PlaidConfig, PlaidConfigError, PlaidIncomeProvider};
use domain::income::{AmountsBasis, PayFrequency, VerificationMethod};
use domain::report::build_report;
use domain::stability::{RegularityLabel, TrendLabel};
use ports::{ConnectStep, IncomeProvider, ProviderError};
use serde_json::json;

use crate::fake_provider::{
    FakeProvider, Recorded, Reply, TENANT_EMAIL, VERIFICATION_ID, expect_rejected,
    expect_unavailable, ok, verification,
};

const CLIENT_ID: &str = "5f7c1a2b3c4d5e6f7a8b9c0d";
const SECRET: &str = "b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8";
const USER_TOKEN: &str = "user-sandbox-b0e2c4ee-a763-4df5-bfe9-46a46bce993d";
const LINK_TOKEN: &str = "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176";

const USER_CREATE: &str = include_str!("../fixtures/plaid/user_create.json");
const LINK_TOKEN_CREATE: &str = include_str!("../fixtures/plaid/link_token_create.json");
const BANK_INCOME: &str = include_str!("../fixtures/plaid/bank_income_get.json");
const BANK_INCOME_UNREADABLE: &str =
    include_str!("../fixtures/plaid/bank_income_get_unavailable_data.json");
const PRODUCT_NOT_READY: &str = include_str!("../fixtures/plaid/error_product_not_ready.json");
const INVALID_API_KEYS: &str = include_str!("../fixtures/plaid/error_invalid_api_keys.json");
const ITEM_LOGIN_REQUIRED: &str = include_str!("../fixtures/plaid/error_item_login_required.json");
const INTERNAL_SERVER_ERROR: &str =
    include_str!("../fixtures/plaid/error_internal_server_error.json");
const USER_REMOVE: &str = include_str!("../fixtures/plaid/user_remove.json");

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

    fn provider(&self) -> PlaidIncomeProvider {
        self.provider_with_timeout(Duration::from_secs(5))
    }

    fn provider_with_timeout(&self, timeout: Duration) -> PlaidIncomeProvider {
        PlaidIncomeProvider::new(PlaidConfig {
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
const FORBIDDEN: &[&str] = &[SECRET, USER_TOKEN, LINK_TOKEN, "@", CLIENT_ID];

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
mod fetch_income;
mod link_and_user;
