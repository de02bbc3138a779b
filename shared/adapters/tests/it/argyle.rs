//! The Argyle payroll adapter against Argyle's documented answers (tests/fixtures/argyle/, each
//! file's source page in its README), served on loopback by `fake_provider`.

use std::time::Duration;

use adapters::argyle::{ArgyleConfig, ArgyleIncomeProvider};
use ports::ProviderError;
use serde_json::json;

use crate::fake_provider::{
    FakeProvider, Recorded, Reply, VERIFICATION_ID, expect_rejected, expect_unavailable, ok,
    verification,
};

const KEY_ID: &str = "7a1c3e5f-0b2d-4f6a-8c9e-1d3f5a7b9c0e";
const KEY_SECRET: &str = "sk_argyle_b4c5d6e7f8a9b0c1d2e3";
const USER: &str = "018051aa-f7a9-a0db-2f38-6cfa325e9d69";

const USERS_CREATE: &str = include_str!("../fixtures/argyle/users_create.json");
const USER_TOKENS_CREATE: &str = include_str!("../fixtures/argyle/user_tokens_create.json");
const ACCOUNTS: &str = include_str!("../fixtures/argyle/accounts.json");
const ACCOUNTS_SYNCING: &str = include_str!("../fixtures/argyle/accounts_syncing.json");
const ACCOUNTS_ERROR: &str = include_str!("../fixtures/argyle/accounts_connection_error.json");
const ACCOUNTS_EMPTY: &str = include_str!("../fixtures/argyle/accounts_empty.json");
const EMPLOYMENTS: &str = include_str!("../fixtures/argyle/employments.json");
const IDENTITIES: &str = include_str!("../fixtures/argyle/identities.json");
const PAYSTUBS_1: &str = include_str!("../fixtures/argyle/paystubs_page1.json");
const PAYSTUBS_2: &str = include_str!("../fixtures/argyle/paystubs_page2.json");
const INVALID_CREDENTIALS: &str = include_str!("../fixtures/argyle/error_invalid_credentials.json");
const INVALID_ENVIRONMENT: &str = include_str!("../fixtures/argyle/error_invalid_environment.json");
const INVALID_EMAIL: &str = include_str!("../fixtures/argyle/error_invalid_email.json");
const NOT_FOUND: &str = include_str!("../fixtures/argyle/error_not_found.json");

/// The second page of pay stubs, as `next` of the first names it.
const PAGE_2: &str = "/v2/paystubs?cursor=ZXhhbXBsZV9jdXJzb3I";

/// A fake Argyle serving a whole tenant: three accounts, their employments, identities and two
/// pages of pay stubs.
async fn argyle_with_accounts(accounts: &str) -> FakeProvider {
    let fake = FakeProvider::start(vec![
        ("/v2/accounts", ok(accounts)),
        ("/v2/employments", ok(EMPLOYMENTS)),
        ("/v2/identities", ok(IDENTITIES)),
        (PAGE_2, ok(PAYSTUBS_2)),
    ])
    .await;
    let first = PAYSTUBS_1.replace("NEXT_PAGE_URL", &format!("{}{PAGE_2}", fake.base_url));
    fake.route("/v2/paystubs", ok(&first));
    fake
}

fn provider(fake: &FakeProvider) -> ArgyleIncomeProvider {
    provider_with_timeout(fake, Duration::from_secs(5))
}

fn provider_with_timeout(fake: &FakeProvider, timeout: Duration) -> ArgyleIncomeProvider {
    ArgyleIncomeProvider::new(ArgyleConfig {
        base_url: fake.base_url.clone(),
        api_key_id: KEY_ID.into(),
        api_key_secret: KEY_SECRET.into(),
        webhook_secret: None,
        timeout,
    })
    .unwrap()
}

/// Every request carries the API key as HTTP Basic, and nothing about the tenant.
fn assert_authenticated(request: &Recorded) {
    use base64::Engine as _;
    let expected =
        base64::engine::general_purpose::STANDARD.encode(format!("{KEY_ID}:{KEY_SECRET}"));
    assert_eq!(
        request.headers["authorization"],
        format!("Basic {expected}")
    );
    assert!(!request.body.to_string().contains('@'), "{}", request.body);
    assert!(!request.path.contains('@'), "{}", request.path);
}

/// What no error text may carry: the key, a token, an e-mail address.
const FORBIDDEN: &[&str] = &[KEY_SECRET, KEY_ID, "eyJ", "@"];

fn unavailable(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    expect_unavailable(result, FORBIDDEN)
}

fn rejected(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    expect_rejected(result, FORBIDDEN)
}

mod as_documented;
mod errors;
mod fetch_income;
mod gigs;
mod link_and_user;
